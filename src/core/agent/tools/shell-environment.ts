import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isSecretEnvEntry } from '../../secret-env-names';

/**
 * A copy of `env` without the variables that look like credentials, except those the user
 * passes by name (`hookpilot.tools.bash.passEnv`, `--pass-env`). What the model's shell may
 * print is still redacted before the model reads it, passed values included.
 */
export function envWithoutSecrets(env: NodeJS.ProcessEnv, passEnv: readonly string[] = []): NodeJS.ProcessEnv {
  const passed = new Set(passEnv);
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => passed.has(name) || !isSecretEnvEntry(name, value)));
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
