import { constants, existsSync, realpathSync } from 'node:fs';
import { mkdir, open, readlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, relative } from 'node:path';
import { HardLinkError } from './workspace-paths';

const SNIFF_BYTES = 8192;
/** Largest text file Grep searches and Edit or Write rewrite: each holds the whole file, and more, in memory. */
export const MAX_TEXT_FILE_BYTES = 5 * 1024 * 1024;
// Windows has no O_NOFOLLOW; there, creating a symlink needs privileges the agent lacks anyway.
// O_NONBLOCK: opening a FIFO the model made must not hang the tool (regular files ignore it).
const NO_FOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
const DIRECTORY = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
/**
 * On Linux, /proc/self/fd/N is the file an open descriptor refers to: readlink says where it
 * really is, and `/proc/self/fd/N/name` resolves `name` in that very directory, as openat(2)
 * does, whatever happened to the path since. Elsewhere the paths are re-resolved instead.
 */
const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');
const CHANGED = 'a parent directory changed after the workspace check';

/** A NUL byte in the first 8 KiB marks a file as binary, as git and grep decide. */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.subarray(0, SNIFF_BYTES).includes(0);
}

export async function isBinaryFile(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
  return looksBinary(buffer.subarray(0, bytesRead));
}

// fatal: a byte that is not UTF-8 throws rather than turning into U+FFFD. ignoreBOM: a BOM stays in the text, so a rewrite keeps it.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A file's bytes as the text Edit rewrites, or why it cannot: a binary file, or one that is
 * not UTF-8, whose undecodable bytes a rewrite of the text would replace with U+FFFD.
 */
export function decodeText(bytes: Uint8Array): { text: string } | { problem: string } {
  if (looksBinary(bytes)) return { problem: 'it is a binary file' };
  try {
    return { text: UTF8.decode(bytes) };
  } catch {
    return { problem: 'it is not UTF-8 text' };
  }
}

/** Node's errno code of a file-system error, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Throws unless the open file is the one at `physical`: a parent was swapped for a symlink since the check. */
async function assertOpenedAt(handle: FileHandle, physical: string): Promise<void> {
  if (PROC_FD && (await readlink(`/proc/self/fd/${handle.fd}`)) !== physical) throw new Error(CHANGED);
}

/**
 * The checked directory `dir`, open and made if missing: missing directories are made one by
 * one, each inside the one opened before it (never by path), so a parent swapped for a
 * symlink meanwhile cannot send them, or the file made in them, outside the workspace.
 */
async function openDirectory(dir: string): Promise<FileHandle> {
  try {
    const handle = await open(dir, DIRECTORY);
    await assertOpenedAt(handle, dir).catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    return handle;
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT' || dirname(dir) === dir) throw error;
  }
  const parent = await openDirectory(dirname(dir));
  try {
    const child = `/proc/self/fd/${parent.fd}/${basename(dir)}`;
    await mkdir(child).catch((error: unknown) => {
      if (errnoCode(error) !== 'EEXIST') throw error;
    });
    return await open(child, DIRECTORY | NO_FOLLOW);
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw new Error(CHANGED);
    if (errnoCode(error) === 'ENOTDIR') throw new Error(`${basename(dir)} is not a directory`);
    throw error;
  } finally {
    await parent.close();
  }
}

/**
 * Opens `physical` to create it: in its directory opened and checked first (Linux), or
 * elsewhere after making the parents by path and resolving them again.
 */
async function openCreating(physical: string, flags: number): Promise<FileHandle> {
  if (!PROC_FD) {
    await mkdir(dirname(physical), { recursive: true });
    if (relative(realpathSync.native(dirname(physical)), dirname(physical)) !== '') throw new Error(CHANGED);
    return open(physical, flags, 0o666);
  }
  const directory = await openDirectory(dirname(physical));
  try {
    return await open(`/proc/self/fd/${directory.fd}/${basename(physical)}`, flags, 0o666);
  } finally {
    await directory.close();
  }
}

/**
 * Opens a path that `resolveInWorkspace` checked, so that what is read or written is what
 * was checked: the last name is not followed if it became a symlink since (O_NOFOLLOW), a
 * parent swapped for a symlink since is caught (the open file must be at `physical`), and the
 * open file is checked again (fstat): a regular file with a single link. Directories open for
 * reading, for the caller to report. With O_CREAT, missing parents are made.
 */
async function openChecked(physical: string, flags: number, requested: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = flags & constants.O_CREAT ? await openCreating(physical, flags | NO_FOLLOW) : await open(physical, flags | NO_FOLLOW);
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw new Error('it is a symbolic link (it changed after the workspace check)');
    if (errnoCode(error) === 'EISDIR') throw new Error('it is a directory');
    throw error;
  }
  try {
    await assertOpenedAt(handle, physical);
    const info = await handle.stat();
    if (!info.isFile() && !info.isDirectory()) throw new Error('it is not a regular file');
    if (info.isFile() && info.nlink > 1) throw new HardLinkError(requested, physical, info.nlink);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export function openForReading(physical: string, requested: string): Promise<FileHandle> {
  return openChecked(physical, constants.O_RDONLY, requested);
}

interface OpenedForUpdate {
  handle: FileHandle;
  created: boolean;
}

/**
 * Opens a file to rewrite it: `created` says whether it did not exist (and now does, empty,
 * with any missing parent directories). Returns undefined when it does not exist and `create`
 * is false.
 */
export async function openForUpdate(physical: string, requested: string, create: boolean): Promise<OpenedForUpdate | undefined> {
  if (create) {
    try {
      return { handle: await openChecked(physical, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, requested), created: true };
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
    }
  }
  try {
    return { handle: await openChecked(physical, constants.O_RDWR, requested), created: false };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * An open file's bytes when it holds at most `maxBytes`, else its size. The file can grow, or a
 * process can swap it, after any size check (handle.readFile() reads what it holds then, up to
 * 2 GiB), so the read itself stops at maxBytes + 1 bytes: that last byte says the file is over.
 */
export async function readUpTo(handle: FileHandle, maxBytes: number): Promise<{ bytes: Buffer } | { size: number }> {
  const { size } = await handle.stat();
  if (size > maxBytes) return { size };
  // A byte more than checked: a file that grew since shows it, and is then read on to the cap only.
  let buffer = Buffer.alloc(size + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) return { bytes: buffer.subarray(0, length) };
    length += bytesRead;
    if (length > maxBytes) return { size: Math.max(length, (await handle.stat()).size) };
    if (length === buffer.length) buffer = Buffer.concat([buffer], maxBytes + 1);
  }
}

/** Replaces the whole content of an open file. */
export async function rewrite(handle: FileHandle, text: string): Promise<void> {
  await handle.truncate(0);
  await handle.write(text, 0, 'utf8');
}
