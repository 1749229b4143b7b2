import { basename } from 'node:path';

/**
 * The arguments that make `shell` run `script` as `shell -c script`. bash is told `--norc`:
 * started with `-c` and a socket as stdin (every pipe Node makes) at SHLVL 0 or unset, as a
 * desktop-launched editor's processes are, bash reads ~/.bashrc first, which would hand the
 * model's commands the credentials it exports and make runs depend on how the editor started.
 */
export function shellScriptArguments(shell: string, script: string): string[] {
  return isBash(shell) ? ['--norc', '-c', script] : ['-c', script];
}

/** Whether `shell` (a name or a path) is bash. */
export function isBash(shell: string): boolean {
  return basename(shell) === 'bash';
}
