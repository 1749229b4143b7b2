import { delimiter, join } from 'node:path';
import { isExecutableFile } from '../../process/executable-file';
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

/**
 * The last PATH searched and the shell found on it. Like Claude Code, which picks its shell
 * once, a session keeps the shell it found (a `bash` planted later in a folder of PATH is not
 * picked up); it searches again only when that shell is gone or PATH differs.
 */
let found: { path: string; shell: string } | undefined;

/** bash from the command's PATH, else the POSIX shell every system has. */
export function resolveShell(env: NodeJS.ProcessEnv): string {
  const path = env.PATH ?? '';
  if (found?.path === path && (found.shell === '/bin/sh' || isExecutableFile(found.shell))) return found.shell;
  found = { path, shell: searchShell(path) };
  return found.shell;
}

function searchShell(path: string): string {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'bash');
    if (isExecutableFile(candidate)) return candidate;
  }
  return '/bin/sh';
}
