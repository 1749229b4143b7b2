import path from 'node:path';

/*
 * Files protected by what they are called, wherever they lie and whether or not they exist yet:
 * what they hold runs or governs outside every hook once a person, or VS Code, opens or uses them.
 */

/**
 * The repository's git folder: a git hook or a `core.fsmonitor` in its config runs a command
 * the next time a person, or VS Code's git view on its own, runs git, outside every hook.
 */
export const GIT_FOLDER = '.git';

/**
 * Whether a path is or lies in a `.git` folder or file anywhere, not only the workspace's: a
 * repository in a subfolder or an additional directory, or one a `.git` file (`gitdir: ../x`)
 * makes of any folder, runs its hooks and `core.fsmonitor` just as well once a person, or VS
 * Code's git view (which scans subfolders), runs git there. Case is ignored, as some file
 * systems do.
 */
export function inGitFolder(file: string): boolean {
  return file.split(/[\\/]/).some((segment) => segment.toLowerCase() === GIT_FOLDER);
}

/**
 * Whether a file is a VS Code workspace file: VS Code offers to open one it finds in a folder,
 * and once opened its settings (hooks, permissions) and tasks (one run on open) govern the agent.
 * Any such file counts, not only those there now: a new one is as good a bait. Case is ignored.
 */
export function isWorkspaceFile(file: string): boolean {
  return WORKSPACE_FILE.test(path.basename(file));
}
const WORKSPACE_FILE = /\.code-workspace$/i;
/** Why a change to a workspace file asks, after the words that name it. */
export const WORKSPACE_FILE_REASON =
  'a VS Code workspace file, whose settings and tasks govern the agent once a person opens it: a person must approve changes to it';
