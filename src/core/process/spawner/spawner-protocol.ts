import { z } from 'zod';

/**
 * Messages between a host and its spawner helper (Node IPC, JSON). Both sides validate
 * what they receive: a message that does not parse is dropped, never trusted.
 */

/** The helper's argument for a Bash tool helper: its waiting shells are bash. */
export const BASH_SHELLS_ARG = '--bash-shells';

/** What the helper needs of RunProcessOptions: everything but the callbacks and the signal. */
export const spawnRequestOptionsSchema = z.object({
  command: z.string(),
  args: z.array(z.string()).optional(),
  shell: z.union([z.boolean(), z.string()]).optional(),
  cwd: z.string(),
  env: z.record(z.string(), z.string()),
  input: z.string().optional(),
  timeoutMs: z.number().optional(),
  maxOutputBytes: z.number().optional(),
  killGraceMs: z.number().optional(),
  runMarker: z.string().optional(),
});
export type SpawnRequestOptions = z.infer<typeof spawnRequestOptionsSchema>;

export const hostToSpawnerSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run'), id: z.number(), options: spawnRequestOptionsSchema }),
  z.object({ type: z.literal('abort'), id: z.number() }),
]);
export type HostToSpawner = z.infer<typeof hostToSpawnerSchema>;

export const processResultSchema = z.object({
  exitCode: z.number().nullable(),
  signal: z.string().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  timedOut: z.boolean(),
  aborted: z.boolean(),
  spawnError: z.string().optional(),
  durationMs: z.number(),
});

export const spawnerToHostSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('started'), id: z.number(), pid: z.number() }),
  z.object({ type: z.literal('result'), id: z.number(), result: processResultSchema }),
]);
export type SpawnerToHost = z.infer<typeof spawnerToHostSchema>;
