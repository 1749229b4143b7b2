import { existsSync } from 'node:fs';
import { copyFile, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isWithin } from '../agent/tools/workspace-paths';
import { readConfigText } from '../read-regular-file';

/**
 * A replay runs in a copy of the workspace, never in it: the recorded Write and Bash calls run
 * again. `.git` is not copied, whether folder, file or link (its objects can be large, history
 * is not what a replay tests, and a worktree's `.git` file names the real repository); a
 * `node_modules` folder larger than `maxNodeModulesBytes` is left out too. Symbolic links are
 * copied as links: as written when they point inside the workspace, else at their absolute
 * target (a relative link out of the workspace, say to a shared hooks.json, would point nowhere
 * from the copy, and the replay would run without what it configures). Hook configuration that
 * names a sibling of the workspace (`../rpc-policy-server/server.js`) finds it: the copy's
 * parent folder gets a link to each such sibling (hooks are the user's code; the model's calls
 * stay inside the copy).
 */
export interface ScratchWorkspaceOptions {
  /** Default 512 MiB: a larger workspace is refused rather than filling the temp folder. */
  maxBytes?: number;
  /** Default 100 MiB. */
  maxNodeModulesBytes?: number;
  /** Default 100,000 entries. */
  maxEntries?: number;
  /** Where the scratch folder is made (default: the system's temp folder). */
  tmpDir?: string;
  /** A cancelled replay stops copying at the next file, and nothing of the copy is left. */
  signal?: AbortSignal;
}

export interface ScratchWorkspace {
  /** The copy; the replay's workspace root. */
  dir: string;
  /** What was left out, for the report. */
  skipped: string[];
  dispose(): Promise<void>;
}

const CONFIG_FILES = ['.vscode/hooks.json', '.vscode/settings.json', '.claude/settings.json', '.claude/settings.local.json'];

class CopyBudget {
  bytes = 0;
  entries = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly maxEntries: number,
    private readonly root: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** Throws once the replay was cancelled: no more of the copy is made, and no replay starts in it. */
  stopIfCancelled(): void {
    if (this.signal?.aborted) throw new Error(`the replay was cancelled while ${this.root} was being copied`);
  }

  take(bytes: number): void {
    this.stopIfCancelled();
    this.bytes += bytes;
    this.entries++;
    if (this.bytes > this.maxBytes) throw new Error(`${this.root} is larger than ${this.maxBytes} bytes: too large to copy for a replay`);
    if (this.entries > this.maxEntries) {
      throw new Error(`${this.root} has more than ${this.maxEntries} files: too many to copy for a replay`);
    }
  }
}

/** The size of a folder tree, or Infinity once it passes `limit` (the walk stops there). */
async function treeSize(dir: string, limit: number): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    for (const entry of await readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) total += (await lstat(full)).size;
      if (total > limit) return Infinity;
    }
  }
  return total;
}

type Limits = Required<Omit<ScratchWorkspaceOptions, 'tmpDir' | 'signal'>>;

/**
 * What the copy of the link at `link` points to. The folders walked are the workspace's real
 * ones (a linked folder is copied as a link, not walked), so resolving the target against the
 * link's folder is where the system would look.
 */
function copiedLinkTarget(workspace: string, link: string, target: string): string {
  const resolved = path.resolve(path.dirname(link), target);
  return isWithin(workspace, resolved) ? target : resolved;
}

/** Asynchronous throughout: the extension host copies while its event loop goes on. */
async function copyTree(
  workspace: string,
  from: string,
  to: string,
  budget: CopyBudget,
  options: Limits,
  skipped: string[],
  rel = '',
): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    const relative = rel ? `${rel}/${entry.name}` : entry.name;
    // A `.git` file (a worktree, a submodule) or link points at the real repository: a replayed
    // `git commit` in the copy would change it. Skipped whatever its type.
    if (entry.name === '.git') {
      skipped.push(entry.isDirectory() ? `${relative}/` : relative);
      continue;
    }
    if (entry.isSymbolicLink()) {
      budget.take(0);
      await symlink(copiedLinkTarget(workspace, source, await readlink(source)), target);
    } else if (entry.isDirectory()) {
      if (entry.name === 'node_modules' && (await treeSize(source, options.maxNodeModulesBytes)) === Infinity) {
        skipped.push(`${relative}/ (over ${options.maxNodeModulesBytes} bytes)`);
        continue;
      }
      budget.take(0);
      await copyTree(workspace, source, target, budget, options, skipped, relative);
    } else if (entry.isFile()) {
      budget.take((await lstat(source)).size);
      await copyFile(source, target);
    }
    // Sockets, fifos and devices are not workspace content.
  }
}

/** Siblings of the workspace that its hook configuration names as `../NAME`. */
async function namedSiblings(workspace: string): Promise<string[]> {
  const names = new Set<string>();
  for (const file of CONFIG_FILES) {
    let text: string;
    try {
      text = readConfigText(path.join(workspace, file));
    } catch {
      continue;
    }
    for (const match of text.matchAll(/(?:^|[^\w.])\.\.[/\\]([\w.-]+)/g)) if (match[1] !== '..' && match[1] !== '.') names.add(match[1]);
  }
  return [...names];
}

export async function createScratchWorkspace(workspace: string, options: ScratchWorkspaceOptions = {}): Promise<ScratchWorkspace> {
  const source = await realpath(workspace);
  const limits: Limits = {
    maxBytes: options.maxBytes ?? 512 * 1024 * 1024,
    maxNodeModulesBytes: options.maxNodeModulesBytes ?? 100 * 1024 * 1024,
    maxEntries: options.maxEntries ?? 100_000,
  };
  const root = await mkdtemp(path.join(options.tmpDir ?? tmpdir(), 'hookpilot-replay-'));
  const dispose = () => rm(root, { recursive: true, force: true });
  try {
    const dir = path.join(root, path.basename(source) || 'workspace');
    const skipped: string[] = [];
    const budget = new CopyBudget(limits.maxBytes, limits.maxEntries, source, options.signal);
    await copyTree(source, source, dir, budget, limits, skipped);
    for (const name of await namedSiblings(source)) {
      const sibling = path.join(path.dirname(source), name);
      if (sibling !== source && existsSync(sibling) && !existsSync(path.join(root, name))) await symlink(sibling, path.join(root, name));
    }
    // A cancel that came after the last file.
    budget.stopIfCancelled();
    return { dir, skipped, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
