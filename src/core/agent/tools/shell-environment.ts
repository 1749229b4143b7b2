import { delimiter, isAbsolute, join } from 'node:path';
import { isExecutableFile } from '../../process/executable-file';
import { isSecretEnvEntry } from '../../secret-env-names';

/**
 * What a non-interactive shell reads before its command (bash's BASH_ENV, a POSIX shell's ENV):
 * often `~/.bashrc`, whose exports would hand back the credentials taken out of the environment.
 */
const STARTUP_FILE_VARIABLES = new Set(['BASH_ENV', 'ENV']);

/**
 * A copy of `env` without the variables that look like credentials or are known to hold one
 * (`secretNames`), nor the ones that name a startup file, except those the user passes by name
 * (`hookpilot.tools.bash.passEnv`, `--pass-env`). What the model's shell may print is still
 * redacted before the model reads it, passed values included.
 */
export function envWithoutSecrets(
  env: NodeJS.ProcessEnv,
  passEnv: readonly string[] = [],
  secretNames: readonly string[] = [],
): NodeJS.ProcessEnv {
  const passed = new Set(passEnv);
  const secret = new Set(secretNames);
  const withheld = (name: string, value: string | undefined) =>
    secret.has(name) || STARTUP_FILE_VARIABLES.has(name) || isSecretEnvEntry(name, value);
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => passed.has(name) || !withheld(name, value)));
}

/**
 * `env` with git told, as by `git -c` (GIT_CONFIG_COUNT, after the settings the person's
 * environment already gives that way), to open a bare repository only when the command names
 * it (`--git-dir`): a folder the model wrote outside any `.git` (HEAD, config, objects/, refs/)
 * looks like one to git, which would run the programs its config names (an alias, a diff
 * driver, core.fsmonitor) on `cd folder && git …`. A line that changes these variables is no pattern rule's to grant.
 */
export function withExplicitBareRepositories(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const given = env.GIT_CONFIG_COUNT ?? '';
  // A count git cannot read fails every git command anyway: then these are the only settings.
  const count = /^\d+$/.test(given.trim()) ? Number(given) : 0;
  return {
    ...env,
    GIT_CONFIG_COUNT: String(count + 1),
    [`GIT_CONFIG_KEY_${count}`]: 'safe.bareRepository',
    [`GIT_CONFIG_VALUE_${count}`]: 'explicit',
  };
}

/**
 * The shell found on each PATH searched. Like Claude Code, which picks its shell once, a
 * process keeps the shell it found on a PATH (a `bash` planted later in a folder of that PATH
 * is not picked up); it searches that PATH again only when the shell it found is gone.
 */
const found = new Map<string, string>();
/** More PATHs than a process meets: past this, the oldest is searched again when it returns. */
const MAX_KEPT_PATHS = 16;

/** bash from the command's PATH, else the POSIX shell every system has. */
export function resolveShell(env: NodeJS.ProcessEnv): string {
  const path = env.PATH ?? '';
  const known = found.get(path);
  if (known !== undefined && (known === '/bin/sh' || isExecutableFile(known))) return known;
  const shell = searchShell(path);
  found.delete(path);
  found.set(path, shell);
  if (found.size > MAX_KEPT_PATHS) found.delete(found.keys().next().value as string);
  return shell;
}

/**
 * The first bash in PATH's absolute folders. A relative folder is skipped: it would be looked
 * up here against this process's directory, but the command starts in the workspace, where
 * the model may have put a `bash` of its own.
 */
function searchShell(path: string): string {
  for (const dir of path.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, 'bash');
    if (isExecutableFile(candidate)) return candidate;
  }
  return '/bin/sh';
}
