import path from 'node:path';
import type { AgentSessionOptions } from '../agent/agent-session-options';
import type { HookEngine } from './hook-engine';

export interface SessionGuardSetup {
  /** Hookpilot's storage folders, every session's audit log and transcript: out of every model call's reach. */
  storageRoots: readonly string[];
  /** More files only a person may let the agent change. */
  extraProtectedPaths?: readonly string[];
}

type EngineSessionGuards = Required<
  Pick<AgentSessionOptions, 'dispatcher' | 'protectedPaths' | 'privatePaths' | 'secretEnvNames' | 'redactor' | 'cancellation'>
> &
  Pick<AgentSessionOptions, 'spawnerModulePath'>;

/**
 * What keeps an agent session on `engine` within the user's configuration: its hooks, the files
 * that govern them, the storage, the credentials its http hooks send, its secrets. `run` and
 * `replay` build their sessions with it, so that neither leaves one out.
 */
export function engineSessionGuards(engine: HookEngine, setup: SessionGuardSetup): EngineSessionGuards {
  return {
    dispatcher: engine.dispatcher,
    protectedPaths: () => [...engine.protectedPaths(), ...(setup.extraProtectedPaths ?? [])],
    // Whole roots: other projects' and sessions' records are there too.
    privatePaths: () => setup.storageRoots.map((root) => (root.endsWith(path.sep) ? root : root + path.sep)),
    secretEnvNames: () => engine.credentialEnvNames(),
    // The engine's registry: the API key, secret-looking variables, .env values.
    redactor: engine.audit.redactor,
    cancellation: engine.builtins.cancellation,
    spawnerModulePath: engine.options.spawnerModulePath,
  };
}
