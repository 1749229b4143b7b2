import { open, readFile, stat } from 'node:fs/promises';

const SNIFF_BYTES = 8192;

/** A NUL byte in the first 8 KiB marks a file as binary, as git and grep decide. */
export function looksBinary(sample: Uint8Array): boolean {
  return sample.subarray(0, SNIFF_BYTES).includes(0);
}

export async function isBinaryFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** Node's errno code of a file-system error, if it has one. */
export function errnoCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** The current text of a file, or null when there is none; throws for a directory. */
export async function readExisting(filePath: string): Promise<string | null> {
  try {
    if ((await stat(filePath)).isDirectory()) throw new Error('it is a directory');
    return await readFile(filePath, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}
