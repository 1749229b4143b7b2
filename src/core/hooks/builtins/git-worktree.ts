import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { isExecutableFile } from '../../process/executable-file';
import { pathOf, withoutAgentWritablePath } from '../../process/path-search-order';

/**
 * Options that keep git from running anything the repository names: the model can write
 * `.git/hooks` and `.git/config` like any other workspace file.
 */
const SAFE_GIT = ['--literal-pathspecs', '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'commit.gpgSign=false'];

/**
 * The repository settings a plain clone has: anything else in `.git/config` (a pager, an
 * fsmonitor, a filter, a worktree elsewhere, an include, an alias...) could make git run a
 * command or read files outside the workspace, so AutoCommit refuses to run git there.
 */
const SAFE_LOCAL_KEYS = [
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath)$/,
  /^remote\..+\.(url|pushurl|fetch|push|tagopt|prune|mirror)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote|description)$/,
  /^user\.(name|email)$/,
  /^init\.defaultbranch$/,
  /^pull\.(rebase|ff)$/,
  /^extensions\.objectformat$/,
];

/** Larger files are fingerprinted by their metadata, not read: the model can create a file of any size. */
const HASHED_FILE_BYTES = 16 * 1024 * 1024;
/** Past this many changed paths, fingerprinting them would hold the host's event loop: refused instead. */
export const MAX_DIRTY_PATHS = 10_000;

export class GitError extends Error {}

/** A repository whose top level is the workspace folder, driven through `git` with the options above. */
export class GitWorktree {
  private readonly gitDir: string;
  /** Settled once unsafeConfig() found nothing: every other git run waits for it. */
  private safe?: Promise<void>;
  private gitPath?: string;

  /** Where the agent may write: git and the programs it starts (a filter's `git-lfs`) never come from there. */
  private readonly writableRoots: readonly string[];

  constructor(
    readonly root: string,
    private readonly signal?: AbortSignal,
    extraWritableRoots: readonly string[] = [],
  ) {
    this.gitDir = path.join(root, '.git');
    this.writableRoots = [root, ...extraWritableRoots];
  }

  /** Whether the folder holds a repository of its own (a `.git` directory, not a link or a `gitdir:` file). */
  isRepository(): boolean {
    try {
      return lstatSync(this.gitDir).isDirectory();
    } catch {
      return false;
    }
  }

  /** Why git must not run here, or undefined. Reads `.git/config` as a plain file (includes are not followed). */
  async unsafeConfig(): Promise<string | undefined> {
    for (const name of ['commondir', 'config.worktree']) {
      if (exists(path.join(this.gitDir, name))) return `.git/${name} exists`;
    }
    const keys = (await this.git(['config', '--file', path.join(this.gitDir, 'config'), '--list', '--name-only', '-z']))
      .split('\0')
      .filter(Boolean);
    const unsafe = keys.find((key) => !SAFE_LOCAL_KEYS.some((pattern) => pattern.test(key.toLowerCase())));
    return unsafe === undefined ? undefined : `.git/config sets ${unsafe}`;
  }

  /** Every changed or untracked path (submodules ignored), each with a fingerprint of what is on disk now. */
  async dirty(): Promise<Map<string, string>> {
    await this.ensureSafe();
    const out = await this.git(['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all', '--no-renames']);
    const paths = out
      .split('\0')
      .filter((entry) => entry.length > 3)
      .map((entry) => entry.slice(3));
    if (paths.length > MAX_DIRTY_PATHS) throw new GitError(`${paths.length} changed or untracked files, more than ${MAX_DIRTY_PATHS}`);
    const prints = new Map<string, string>();
    // One file at a time, read asynchronously: the host's event loop is never held for long.
    for (const p of paths) prints.set(p, await this.fingerprint(p));
    return prints;
  }

  /** Stages exactly these paths (deletions too) and commits only them; the commit's id. */
  async commit(paths: readonly string[], message: string): Promise<string> {
    await this.ensureSafe();
    const list = paths.map((p) => `${p}\0`).join('');
    await this.git(['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], list);
    await this.git(['commit', '--no-verify', '--quiet', '-m', message, '--pathspec-from-file=-', '--pathspec-file-nul'], list);
    return (await this.git(['rev-parse', 'HEAD'])).trim();
  }

  /** What a path is now, without following a link: a changed file gets a new fingerprint. */
  private async fingerprint(relative: string): Promise<string> {
    const file = path.join(this.root, relative);
    try {
      const stat = await lstat(file);
      if (stat.isSymbolicLink()) return `link:${await readlink(file)}`;
      if (!stat.isFile()) return `other:${stat.mode}`;
      if (stat.size > HASHED_FILE_BYTES) return `large:${stat.mode}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
      return `file:${stat.mode}:${createHash('sha256')
        .update(await readFile(file))
        .digest('hex')}`;
    } catch {
      return 'missing';
    }
  }

  /** The path's size on disk without following a link (0 when it is gone). */
  size(relative: string): number {
    try {
      return lstatSync(path.join(this.root, relative)).size;
    } catch {
      return 0;
    }
  }

  /** Even `git status` can run a filter or another command `.git/config` names: nothing runs before the check. */
  private ensureSafe(): Promise<void> {
    this.safe ??= this.unsafeConfig().then((unsafe) => {
      if (unsafe !== undefined) throw new GitError(`not committing: ${unsafe}, which could make git run a command; commit by hand`);
    });
    return this.safe;
  }

  /**
   * git's absolute path from the folders of PATH the agent cannot write: a bare `git` can start
   * a `git` planted in the working directory (Windows looks there first) or the workspace.
   */
  private executable(): string {
    if (this.gitPath !== undefined) return this.gitPath;
    const windows = process.platform === 'win32';
    for (const dir of pathOf(withoutAgentWritablePath(process.env, this.writableRoots)).split(path.delimiter)) {
      if (!path.isAbsolute(dir)) continue;
      const candidate = path.join(dir, windows ? 'git.exe' : 'git');
      if (isExecutableFile(candidate)) return (this.gitPath = candidate);
    }
    throw new GitError('git not found in an absolute PATH directory outside the workspace');
  }

  private git(args: readonly string[], input?: string): Promise<string> {
    const env: NodeJS.ProcessEnv = {
      ...withoutAgentWritablePath(process.env, this.writableRoots),
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
    };
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CONFIG', 'GIT_CEILING_DIRECTORIES']) delete env[name];
    const full = [...SAFE_GIT, `--git-dir=${this.gitDir}`, `--work-tree=${this.root}`, ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.executable(),
        full,
        { cwd: this.root, env, maxBuffer: 64 * 1024 * 1024, signal: this.signal },
        (err, stdout, stderr) => {
          if (err) reject(new GitError(`git ${args[0]} failed: ${(stderr || err.message).trim()}`));
          else resolve(stdout);
        },
      );
      // git may exit without reading its input (an early error): that must not crash the host.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(input);
    });
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
