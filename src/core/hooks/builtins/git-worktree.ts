import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, lstatSync } from 'node:fs';
import { lstat, mkdtemp, open, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { envWithoutSecrets } from '../../agent/tools/shell-environment';
import { isWithin } from '../../agent/tools/workspace-paths';
import { isExecutableFile } from '../../process/executable-file';
import { pathOf, withoutAgentWritablePath } from '../../process/path-search-order';
import { gitDirLinkProblem } from './git-dir-links';

/**
 * Options that keep git from running anything the repository names: the model can write
 * `.git/hooks` and `.git/config` like any other workspace file, and a nested repository's
 * config, which git reads once it enters it (submodule.recurse).
 */
const SAFE_GIT = [
  '--literal-pathspecs',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'commit.gpgSign=false',
  '-c',
  'submodule.recurse=false',
];

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
/** What one snapshot reads in all; past it, files are fingerprinted by their metadata (the model can make thousands). */
const HASHED_SNAPSHOT_BYTES = 256 * 1024 * 1024;
/** A link as the last name is not followed; opening a FIFO swapped in after the check does not wait for a writer. */
const OPEN_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
/** Past this many changed paths, fingerprinting them would hold the host's event loop: refused instead. */
export const MAX_DIRTY_PATHS = 10_000;
/** Past this many ignored entries (only listed, not read), the snapshot is refused; an ignored folder is one entry. */
export const MAX_IGNORED_PATHS = 100_000;

export class GitError extends Error {}

/** What a path is on disk: its metadata, and the hash of its content when it was read. */
export interface Fingerprint {
  metadata: string;
  content?: string;
}

const MISSING: Fingerprint = { metadata: 'missing' };

/** Whether a path is as it was: by content when both snapshots read it, else by metadata. */
export function unchanged(before: Fingerprint | undefined, now: Fingerprint): boolean {
  if (before === undefined) return false;
  return before.content !== undefined && now.content !== undefined ? before.content === now.content : before.metadata === now.metadata;
}

/** What was changed, and what git ignored, at one moment. */
export interface Snapshot {
  dirty: Map<string, Fingerprint>;
  /** Ignored files, and ignored folders as one `dir/` entry each. */
  ignored: ReadonlySet<string>;
}

/** Whether git ignored the path when `ignored` was listed: the path itself, or a folder above it. */
export function ignoredIn(ignored: ReadonlySet<string>, relative: string): boolean {
  if (ignored.has(relative)) return true;
  for (let i = relative.indexOf('/'); i !== -1; i = relative.indexOf('/', i + 1)) {
    if (ignored.has(relative.slice(0, i + 1))) return true;
  }
  return false;
}

/** A repository whose top level is the workspace folder, driven through `git` with the options above. */
export class GitWorktree {
  private readonly gitDir: string;
  /** Settled once check() found nothing: every other git run waits for it. */
  private safe?: Promise<void>;
  private gitPath?: string;
  private realRoot?: Promise<string>;

  /** Where the agent may write: git and the programs it starts (a filter's `git-lfs`) never come from there. */
  private readonly writableRoots: readonly string[];

  constructor(
    readonly root: string,
    private readonly signal?: AbortSignal,
    extraWritableRoots: readonly string[] = [],
    /** The session's credential variables (an http hook's allowedEnvVars), kept from git as from the Bash tool. */
    private readonly secretEnvNames: readonly string[] = [],
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

  /** Why git must not run here because of a link in `.git` (git-dir-links.ts), or undefined. */
  async unsafeLink(): Promise<string | undefined> {
    if (!this.isRepository()) return '.git is not a folder';
    return gitDirLinkProblem(this.gitDir);
  }

  /** Every changed or untracked path (submodules ignored), each with a fingerprint of what is on disk now. */
  async dirty(): Promise<Map<string, Fingerprint>> {
    return (await this.status(false)).dirty;
  }

  /** dirty(), and what git ignores now: the turn's snapshot, so that a file it un-ignores is not taken for its own. */
  snapshot(): Promise<Snapshot> {
    return this.status(true);
  }

  private async status(listIgnored: boolean): Promise<Snapshot> {
    await this.ensureSafe();
    const out = await this.git([
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      '--ignore-submodules=all',
      '--no-renames',
      // "matching": an ignored folder is one `dir/` entry, not every file in it (node_modules/).
      ...(listIgnored ? ['--ignored=matching'] : []),
    ]);
    const entries = out.split('\0').filter((entry) => entry.length > 3);
    const ignored = new Set(entries.filter((entry) => entry.startsWith('!! ')).map((entry) => entry.slice(3)));
    const paths = entries.filter((entry) => !entry.startsWith('!! ')).map((entry) => entry.slice(3));
    if (paths.length > MAX_DIRTY_PATHS) throw new GitError(`${paths.length} changed or untracked files, more than ${MAX_DIRTY_PATHS}`);
    if (ignored.size > MAX_IGNORED_PATHS) throw new GitError(`${ignored.size} ignored files and folders, more than ${MAX_IGNORED_PATHS}`);
    const prints = new Map<string, Fingerprint>();
    const budget = { bytes: HASHED_SNAPSHOT_BYTES };
    // One file at a time, read asynchronously: the host's event loop is never held for long.
    for (const p of paths) {
      this.signal?.throwIfAborted();
      prints.set(p, await this.fingerprint(p, budget));
    }
    return { dirty: prints, ignored };
  }

  /**
   * Commits exactly these paths (deletions too), as they are on disk, on top of HEAD; the
   * commit's id, or undefined when they are as HEAD has them. Built in an index of its own with plumbing that takes each path as it is:
   * `git add` runs `git status` inside a path that is a nested repository (whose own config
   * names what runs), and `git commit <paths>` also stages what lies beneath a path, through
   * a link to a folder anywhere. The user's other staged work stays staged.
   */
  async commit(paths: readonly string[], message: string): Promise<string | undefined> {
    const list = (of: readonly string[]) => of.map((p) => `${p}\0`).join('');
    const scratch = await mkdtemp(path.join(tmpdir(), 'hookpilot-commit-'));
    try {
      // Checked again right before the runs that apply filters and write refs and reflogs, not
      // taken from the snapshot's check: the fingerprinting between them takes a while. A process
      // of the model's still running can race any check; this narrows it to the commit's own runs.
      await this.check();
      const index = { GIT_INDEX_FILE: path.join(scratch, 'index') };
      // Unborn (a repository without commits) when HEAD names no commit: update-ref then requires that it still does not.
      const parent = await this.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).then(
        (out) => out.trim(),
        () => '',
      );
      await this.git(['read-tree', ...(parent ? [parent] : ['--empty'])], { env: index });
      // A path beyond a link is gone for git (its folder became a link): removed, never read through the link.
      const gone = new Set(paths.filter((p) => !this.seenByGit(p)));
      await this.git(['update-index', '--force-remove', '-z', '--stdin'], { input: list([...gone]), env: index });
      await this.git(['update-index', '--add', '--remove', '-z', '--stdin'], {
        input: list(paths.filter((p) => !gone.has(p))),
        env: index,
      });
      const tree = (await this.git(['write-tree'], { env: index })).trim();
      if (parent && tree === (await this.git(['rev-parse', `${parent}^{tree}`])).trim()) return undefined;
      const commit = (
        await this.git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], { input: `${message}\n` })
      ).trim();
      await this.git(['update-ref', '-m', `commit: ${message.split('\n')[0]}`, 'HEAD', commit, parent]);
      // The user's index takes the committed state of these paths, as after `git commit <paths>`.
      await this.git(['reset', '-q', commit, '--pathspec-from-file=-', '--pathspec-file-nul'], { input: list(paths) });
      return commit;
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  /**
   * What a path is now, without following a link: a changed file gets a new fingerprint. Its
   * content is read while `budget` lasts, and never past the size checked.
   */
  private async fingerprint(relative: string, budget: { bytes: number }): Promise<Fingerprint> {
    const file = path.join(this.root, relative);
    try {
      // A folder on the way swapped for a link (to /proc/self) would lead out of the workspace; git sees no file there either.
      this.realRoot ??= realpath(this.root);
      if (!isWithin(await this.realRoot, await realpath(path.dirname(file)))) return MISSING;
      const stat = await lstat(file);
      if (stat.isSymbolicLink()) return { metadata: `link:${await readlink(file)}` };
      if (!stat.isFile()) return { metadata: `other:${stat.mode}` };
      const metadata = `file:${stat.mode}:${stat.size}:${stat.mtimeMs}:${stat.ino}`;
      if (stat.size > Math.min(HASHED_FILE_BYTES, budget.bytes)) return { metadata };
      budget.bytes -= stat.size;
      return { metadata, content: `${stat.mode}:${await hashRegularFile(file, stat.size, stat.ino)}` };
    } catch {
      return MISSING;
    }
  }

  /** Whether the path is a folder on disk: for git, a nested repository (status lists no other folder). */
  isDirectory(relative: string): boolean {
    try {
      return lstatSync(path.join(this.root, relative)).isDirectory();
    } catch {
      return false;
    }
  }

  /** Whether git finds something at the path: no folder on the way is a link (git stops there, "beyond a symbolic link"). */
  private seenByGit(relative: string): boolean {
    const names = relative.split('/');
    try {
      for (let i = 1; i < names.length; i++) if (lstatSync(path.join(this.root, ...names.slice(0, i))).isSymbolicLink()) return false;
      lstatSync(path.join(this.root, relative));
      return true;
    } catch {
      return false;
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
    this.safe ??= this.check();
    return this.safe;
  }

  /** Links first: reading `.git/config` through one would read a file outside. */
  private async check(): Promise<void> {
    const link = await this.unsafeLink();
    if (link !== undefined) {
      throw new GitError(`not committing: ${link}, through which git would read or write outside the repository; commit by hand`);
    }
    const unsafe = await this.unsafeConfig();
    if (unsafe !== undefined) throw new GitError(`not committing: ${unsafe}, which could make git run a command; commit by hand`);
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

  private git(args: readonly string[], options: { input?: string; env?: Readonly<Record<string, string>> } = {}): Promise<string> {
    // Without secrets, as the Bash tool's shell: a filter the user's git config names runs with this environment.
    const env: NodeJS.ProcessEnv = {
      ...envWithoutSecrets(withoutAgentWritablePath(process.env, this.writableRoots), [], this.secretEnvNames),
      GIT_TERMINAL_PROMPT: '0',
      GIT_OPTIONAL_LOCKS: '0',
    };
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_CONFIG', 'GIT_CEILING_DIRECTORIES']) delete env[name];
    Object.assign(env, options.env);
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
      child.stdin?.end(options.input);
    });
  }
}

/** The hash of the first `size` bytes of `file`, which must still be the regular file with inode `ino`. */
async function hashRegularFile(file: string, size: number, ino: number): Promise<string> {
  const handle = await open(file, OPEN_NO_FOLLOW);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.ino !== ino) throw new Error('replaced since it was checked');
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(Math.min(size, 1024 * 1024));
    // Only the size checked is read: a file that grows meanwhile (or a /proc file, which says 0) is cut there.
    for (let read = 0; read < size;) {
      const { bytesRead } = await handle.read(buffer, 0, Math.min(buffer.length, size - read), read);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      read += bytesRead;
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
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
