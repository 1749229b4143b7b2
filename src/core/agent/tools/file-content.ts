import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { HardLinkError } from './workspace-paths';

const SNIFF_BYTES = 8192;
// Windows has no O_NOFOLLOW; there, creating a symlink needs privileges the agent lacks anyway.
// O_NONBLOCK: opening a FIFO the model made must not hang the tool (regular files ignore it).
const NO_FOLLOW = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/** A NUL byte in the first 8 KiB marks a file as binary, as git and grep decide. */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.subarray(0, SNIFF_BYTES).includes(0);
}

export async function isBinaryFile(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
  return looksBinary(buffer.subarray(0, bytesRead));
}

/** Node's errno code of a file-system error, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/**
 * Opens a path that `resolveInWorkspace` checked, so that what is read or written is what
 * was checked: the last name is not followed if it became a symlink since (O_NOFOLLOW; the
 * parents were resolved by the check), and the open file is checked again (fstat): a
 * regular file with a single link. Directories open for reading, for the caller to report.
 */
async function openChecked(physical: string, flags: number, requested: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(physical, flags | NO_FOLLOW, 0o666);
  } catch (error) {
    if (errnoCode(error) === 'ELOOP') throw new Error('it is a symbolic link (it changed after the workspace check)');
    if (errnoCode(error) === 'EISDIR') throw new Error('it is a directory');
    throw error;
  }
  try {
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
 * Opens a file to rewrite it: `created` says whether it did not exist (and now does, empty).
 * Returns undefined when it does not exist and `create` is false.
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

/** Replaces the whole content of an open file. */
export async function rewrite(handle: FileHandle, text: string): Promise<void> {
  await handle.truncate(0);
  await handle.write(text, 0, 'utf8');
}
