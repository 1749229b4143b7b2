import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isSecretEnvName } from '../../secret-env-names';

/** A copy of `env` without the variables that look like credentials. */
export function envWithoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretEnvName(name)));
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** bash from the command's PATH, else the POSIX shell every system has. */
export function resolveShell(env: NodeJS.ProcessEnv): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'bash');
    if (isExecutableFile(candidate)) return candidate;
  }
  return '/bin/sh';
}
