import { homedir } from 'node:os';
import path from 'node:path';

/**
 * HOOKPILOT_HOME, else ~/.hookpilot: everything the CLI keeps between runs. Absolute, so that
 * the agent's protection of it matches the folder whatever the working directory.
 */
export function storageRoot(env: NodeJS.ProcessEnv): string {
  const home = env.HOOKPILOT_HOME?.trim();
  return path.resolve(home ? home : path.join(homedir(), '.hookpilot'));
}
