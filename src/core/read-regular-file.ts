import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { errnoCode } from './agent/tools/file-content';

// O_NOFOLLOW: a link (to /dev/zero, or out of the workspace) is refused, not followed. O_NONBLOCK: opening
// a FIFO must not wait for a writer (regular files ignore it). Windows has neither; its FIFOs are not files.
const FOLLOWING = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const FLAGS = FOLLOWING | (constants.O_NOFOLLOW ?? 0);

/** More than any configuration file holds: a bigger one is refused, not read into memory. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** The file is larger than the caller reads: each caller words its own limit. */
export class FileTooLargeError extends Error {
  override readonly name = 'FileTooLargeError';
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`it is ${size} bytes, over the ${limit} read`);
  }
}

/**
 * A workspace file's text, read from one open handle and checked on that handle (fstat), so
 * a swap after the check is not what is read: it must be a regular file (a FIFO would block
 * the thread, a device never ends) of at most `maxBytes`, and not a symbolic link unless
 * `followLinks` (then what the link leads to must be such a file).
 */
export function readRegularFile(file: string, maxBytes: number, options: { followLinks?: boolean } = {}): string {
  return readRegularBytes(file, maxBytes, options).toString('utf8');
}

/** readRegularFile's bytes, undecoded. */
export function readRegularBytes(file: string, maxBytes: number, options: { followLinks?: boolean } = {}): Buffer {
  return readChecked(file, options, (size) => {
    if (size > maxBytes) throw new FileTooLargeError(size, maxBytes);
    return size;
  }).bytes;
}

/** As readRegularBytes, but a larger file is read up to `maxBytes` rather than refused; `size` says how much it holds. */
export function readRegularHead(file: string, maxBytes: number, options: { followLinks?: boolean } = {}): { bytes: Buffer; size: number } {
  return readChecked(file, options, (size) => Math.min(size, maxBytes));
}

function readChecked(
  file: string,
  options: { followLinks?: boolean },
  bytesToRead: (size: number) => number,
): { bytes: Buffer; size: number } {
  let fd: number;
  try {
    fd = openSync(file, options.followLinks ? FOLLOWING : FLAGS);
  } catch (error) {
    if (errnoCode(error) === 'ELOOP' && !options.followLinks) throw new Error('it is a symbolic link (not followed)');
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new Error('it is not a regular file (a FIFO, a device or a folder)');
    // Only the size checked is read: a file that grows meanwhile is cut there, never read past the cap.
    const buffer = Buffer.alloc(bytesToRead(info.size));
    let length = 0;
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, length);
      if (n === 0) break;
      length += n;
    }
    return { bytes: buffer.subarray(0, length), size: info.size };
  } finally {
    closeSync(fd);
  }
}

/**
 * A configuration file's text (settings, hooks, MCP servers): through links, since a person's
 * dotfiles often are links, but only a regular file of at most MAX_CONFIG_BYTES. A workspace,
 * or the model, can make one a link to `/dev/zero` or a FIFO, which would never end or never
 * start. A missing file throws ENOENT as a read would.
 */
export function readConfigText(file: string): string {
  return readConfigBytes(file).toString('utf8');
}

/** readConfigText's bytes, undecoded: what a fingerprint of the file hashes. */
export function readConfigBytes(file: string): Buffer {
  return readRegularBytes(file, MAX_CONFIG_BYTES, { followLinks: true });
}
