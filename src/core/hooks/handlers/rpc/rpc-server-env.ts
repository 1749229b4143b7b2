import type { ServerDefinition } from '../../types';

/** Inherited variables that look like credentials never reach a hook server. */
const SECRET_NAME = /(?:^|_)(?:API_KEY|TOKEN|SECRET)$/i;

function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The environment a server starts with: the host's minus anything secret-looking, the
 * project directory under both Claude Code's and Hookpilot's names, then the server's own
 * `env` from the config, which the user wrote explicitly and so is passed as given.
 */
export function serverEnvironment(base: NodeJS.ProcessEnv, server: ServerDefinition, projectDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isSecretEnvName(name)) env[name] = value;
  }
  env.CLAUDE_PROJECT_DIR = projectDir;
  env.HOOKPILOT_PROJECT_DIR = projectDir;
  return { ...env, ...server.env };
}
