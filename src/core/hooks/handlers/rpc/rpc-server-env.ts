import { isAbsolute, resolve } from 'node:path';
import type { ServerDefinition } from '../../types';
import { withAgentWritablePathLast } from '../../../process/path-search-order';
import { expandBracedReferences, substituteProjectDir, untrustedWorkingFolder } from '../command-env';

/**
 * The environment a server starts with, by the same rules as command hooks (a server is the
 * user's own code too): the host's whole environment, the project directory under Claude
 * Code's and Hookpilot's names, then the server's own `env`, whose values may name host
 * variables (`${GH_TOKEN}`). PATH searches the folders the agent can write last, as for hooks.
 */
export function serverEnvironment(
  base: NodeJS.ProcessEnv,
  server: ServerDefinition,
  projectDir: string,
  writableRoots: readonly string[] = [],
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined) env[name] = value;
  const fixed = { CLAUDE_PROJECT_DIR: projectDir, HOOKPILOT_PROJECT_DIR: projectDir };
  const lookup = (name: string): string => (name in fixed ? fixed[name as keyof typeof fixed] : (base[name] ?? ''));
  for (const [name, value] of Object.entries(server.env ?? {})) {
    env[name] = expandBracedReferences(value, lookup);
  }
  return withAgentWritablePathLast({ ...env, ...fixed }, [projectDir, ...writableRoots]);
}

/** Program, arguments and cwd with `${CLAUDE_PROJECT_DIR}` / `${HOOKPILOT_PROJECT_DIR}` filled in (there is no shell to do it). */
export function serverLaunch(server: ServerDefinition, projectDir: string): { file: string; args: string[]; cwd: string } {
  const [file, ...args] = server.command.map((word) => substituteProjectDir(word, projectDir));
  const dir = server.cwd ? substituteProjectDir(server.cwd, projectDir) : projectDir;
  return { file, args, cwd: isAbsolute(dir) ? dir : resolve(projectDir, dir) };
}

/**
 * The server as it starts while the workspace is untrusted (Restricted Mode): in `emptyDir`
 * rather than the workspace folder, or, when its own `cwd` is in the workspace or its command
 * or `env` names the workspace, the reason it does not start (see untrustedWorkingFolder).
 */
export function serverWhileUntrusted(
  server: ServerDefinition,
  projectDir: string,
  emptyDir: string,
): { server: ServerDefinition; refused?: undefined } | { server?: undefined; refused: string } {
  const where = untrustedWorkingFolder(
    { cwd: server.cwd, runs: [...server.command, ...Object.values(server.env ?? {})] },
    projectDir,
    emptyDir,
  );
  return where.refused === undefined ? { server: { ...server, cwd: where.cwd } } : { refused: where.refused };
}
