import { randomUUID } from 'node:crypto';
import { constants } from 'node:os';
import { z } from 'zod';
import { SESSION_MARKER_VARIABLE } from '../../process/marked-processes';
import { PrestartedShells } from '../../process/prestarted-shells';
import type { ProcessRunner } from '../../process/process-runner';
import { runProcess, type ProcessResult, type RunProcessOptions } from '../../process/run-process';
import { MAX_TOOL_OUTPUT_CHARS, truncateRedacted } from './output-limits';
import { envWithoutSecrets, resolveShell, withExplicitBareRepositories } from './shell-environment';
import { toolFailure, type Tool, type ToolContext, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Per stream; the model sees at most MAX_TOOL_OUTPUT_CHARS of it anyway. */
const MAX_CAPTURE_BYTES = 1024 * 1024;

export const bashInputSchema = z.object({
  command: z.string().min(1).describe('The shell command to run (bash -c, in the working directory).'),
  description: z.string().optional().describe('A short description of what the command does, in 5-10 words.'),
  timeout: z
    .number()
    .int()
    .positive()
    .max(MAX_BASH_TIMEOUT_MS)
    .optional()
    .describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, max ${MAX_BASH_TIMEOUT_MS}).`),
  run_in_background: z.boolean().optional().describe('Not supported: leave it out; commands always run in the foreground.'),
});
export type BashInput = z.infer<typeof bashInputSchema>;

/** Claude Code's Bash `tool_response`. */
export interface BashResponse {
  stdout: string;
  stderr: string;
  interrupted: boolean;
  isImage: false;
}

/** What ties a session's commands together, so that what they leave running ends with it. */
export interface BashSession {
  /** SESSION_MARKER_VARIABLE's value in every command's environment. */
  marker: string;
  /** Told each command's process group (its first process's pid) as the command starts... */
  onRunStarted: (pgid: number) => void;
  /** ...and as it ends: what the group holds then is the command's. */
  onRunEnded: (pgid: number) => void;
}

const BACKGROUND_UNSUPPORTED =
  'run_in_background is not supported: commands run in the foreground only. Run it without run_in_background ' +
  `(with a timeout of up to ${MAX_BASH_TIMEOUT_MS} ms for long tasks), or detach it yourself with nohup ... & ` +
  '(it runs until the session ends).';

/** The shell-style exit status: the code, or 128 + the signal number for a killed process. */
function exitStatus(result: ProcessResult): number {
  if (result.exitCode !== null) return result.exitCode;
  const signalNumber = result.signal ? constants.signals[result.signal] : undefined;
  return signalNumber === undefined ? 1 : 128 + signalNumber;
}

function captureNote(result: ProcessResult): string {
  const streams = [result.stdoutTruncated && 'stdout', result.stderrTruncated && 'stderr'].filter(Boolean);
  return streams.length === 0 ? '' : `\n[${streams.join(' and ')} beyond ${MAX_CAPTURE_BYTES} bytes was discarded]`;
}

/** stdout then stderr, as a terminal would interleave them at the end, capped for the model. */
function modelOutput(result: ProcessResult, ctx: ToolContext): string {
  const parts = [result.stdout.trimEnd(), result.stderr.trimEnd()].filter((part) => part !== '');
  return truncateRedacted(parts.join('\n'), ctx.redactForModel) + captureNote(result);
}

/** The captured streams, without the start of a secret value where the byte cap cut one. */
function withoutCutSecrets(result: ProcessResult, ctx: ToolContext): ProcessResult {
  const trim = ctx.withoutSecretStartAtEnd;
  if (trim === undefined) return result;
  return {
    ...result,
    stdout: result.stdoutTruncated ? trim(result.stdout) : result.stdout,
    stderr: result.stderrTruncated ? trim(result.stderr) : result.stderr,
  };
}

function withOutput(headline: string, output: string): string {
  return output === '' ? headline : `${headline}\n${output}`;
}

/**
 * Forking this process and exec'ing bash is most of a short command's cost: a bash waits,
 * started after the previous command, in the same directory and environment. `runner` (a
 * spawner helper started with `--bash-shells`) forks them from a small process instead: a
 * fork costs in proportion to the forking process's memory, which grows with a session.
 * `session.marker` is set as SESSION_MARKER_VARIABLE in every command's environment, and each
 * command's process group is told to `session` as it starts and ends, so the session finds what its
 * commands left running; each command also gets a marker of its own, so a timeout or an abort
 * ends all it started.
 */
export function createBashTool(
  runner: ProcessRunner | PrestartedShells = new PrestartedShells({ bash: true }),
  session?: BashSession,
): Tool<BashInput> {
  const run =
    runner instanceof PrestartedShells
      ? (options: RunProcessOptions) => runProcess(options, runner)
      : (options: RunProcessOptions) => runner.run(options);
  return {
    ...builtinToolIdentity('Bash'),
    description:
      'Runs a shell command with bash -c in the working directory and returns its stdout and stderr ' +
      `(output beyond ${MAX_TOOL_OUTPUT_CHARS} characters is cut from the middle). A non-zero exit is reported as ` +
      `"Exit code N". Default timeout ${DEFAULT_BASH_TIMEOUT_MS} ms, max ${MAX_BASH_TIMEOUT_MS} ms; on timeout the ` +
      'processes it started are killed. Prefer Read, Grep, Glob, Edit and Write for files. Credentials such as ' +
      '*_API_KEY, *_TOKEN and *PASSWORD* are removed from the environment, and secret values are redacted from the output.',
    inputSchema: bashInputSchema,
    async run(input, ctx): Promise<ToolResult> {
      if (input.run_in_background) return toolFailure(BACKGROUND_UNSUPPORTED);
      const timeoutMs = input.timeout ?? DEFAULT_BASH_TIMEOUT_MS;
      const shellEnv = withExplicitBareRepositories(envWithoutSecrets(ctx.env, ctx.passEnv, ctx.secretEnvNames));
      // Constant for the session, so a waiting shell started for one command fits the next.
      const env = session === undefined ? shellEnv : { ...shellEnv, [SESSION_MARKER_VARIABLE]: session.marker };
      let group: number | undefined;
      const captured = await run({
        // The user's hooks chose these lines (CLAUDE_ENV_FILE); the gate judged the model's command alone.
        command: ctx.shellPrelude ? `${ctx.shellPrelude}${input.command}` : input.command,
        shell: resolveShell(env),
        cwd: ctx.cwd,
        env,
        timeoutMs,
        signal: ctx.signal,
        maxOutputBytes: MAX_CAPTURE_BYTES,
        runMarker: randomUUID(),
        onSpawn:
          session &&
          ((pgid: number) => {
            group = pgid;
            session.onRunStarted(pgid);
          }),
      });
      if (session && group !== undefined) session.onRunEnded(group);
      const result = withoutCutSecrets(captured, ctx);
      const interrupted = result.timedOut || result.aborted;
      const response: BashResponse = {
        stdout: truncateRedacted(result.stdout, ctx.redactForModel),
        stderr: truncateRedacted(result.spawnError ?? result.stderr, ctx.redactForModel),
        interrupted,
        isImage: false,
      };
      const output = modelOutput(result, ctx);
      if (result.spawnError !== undefined) return toolFailure(`Failed to start the shell: ${result.spawnError}`, { response });
      if (result.aborted) return toolFailure(withOutput('Command aborted before it finished', output), { interrupted, response });
      if (result.timedOut) return toolFailure(withOutput(`Command timed out after ${timeoutMs} ms`, output), { interrupted, response });
      const status = exitStatus(result);
      if (status !== 0) return toolFailure(withOutput(`Exit code ${status}`, output), { response });
      return { ok: true, content: output === '' ? '(no output)' : output, response };
    },
  };
}
