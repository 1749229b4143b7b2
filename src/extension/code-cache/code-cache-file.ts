import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../../core/error-message';

/**
 * The on-disk V8 code cache of one bundle: `<sha1 of the data><data>` in a file whose name
 * carries the bundle's content hash, the V8 version and the CPU architecture, so that a
 * different bundle or runtime never picks it up.
 */

const DIGEST = 'sha1';
const DIGEST_BYTES = 20;
const SUFFIX = '.cache';
const CONTENT_HEX = 16;

export type CacheRead = { kind: 'found'; data: Buffer } | { kind: 'missing' } | { kind: 'unreadable'; error: string } | { kind: 'corrupt' };

/**
 * Keyed by the bundle's content rather than its size and mtime: V8 itself only checks the
 * source's length, so a same-size rebuild within a coarse mtime tick would get bytecode
 * compiled from other code.
 */
export function cacheFileName(bundlePath: string, source: Buffer): string {
  const content = createHash(DIGEST).update(source).digest('hex').slice(0, CONTENT_HEX);
  const runtime = `${process.versions.v8}-${process.arch}`.replace(/[^\w.-]/g, '_');
  return `${bundleStem(bundlePath)}-${content}-${runtime}${SUFFIX}`;
}

/**
 * Reads and checks a cache file. The digest matters: V8 does not checksum code caches in
 * release builds, and a damaged one can abort the whole process while deserializing.
 */
export function readCacheFile(file: string): CacheRead {
  let raw: Buffer;
  try {
    raw = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    return { kind: 'unreadable', error: errorMessage(error) };
  }
  if (raw.length <= DIGEST_BYTES) return { kind: 'corrupt' };
  const data = raw.subarray(DIGEST_BYTES);
  const expected = createHash(DIGEST).update(data).digest();
  return expected.equals(raw.subarray(0, DIGEST_BYTES)) ? { kind: 'found', data } : { kind: 'corrupt' };
}

/** Writes through a temp file and a rename, so a reader sees the old file or the new one, never half. */
export async function writeCacheFile(file: string, data: Buffer): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, Buffer.concat([createHash(DIGEST).update(data).digest(), data]));
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Deletes the caches of earlier builds of the same bundle; an update would otherwise leave them behind. */
export async function removeStaleCacheFiles(file: string, bundlePath: string): Promise<void> {
  const dir = path.dirname(file);
  const prefix = `${bundleStem(bundlePath)}-`;
  // The content hash right after the prefix keeps "extension" from matching "extension-main"'s caches.
  const contentHash = new RegExp(`^[0-9a-f]{${CONTENT_HEX}}-`);
  const ours = (name: string) => name.startsWith(prefix) && name.endsWith(SUFFIX) && contentHash.test(name.slice(prefix.length));
  const stale = (await readdir(dir)).filter((name) => ours(name) && name !== path.basename(file));
  await Promise.all(stale.map((name) => unlink(path.join(dir, name)).catch(() => undefined)));
}

function bundleStem(bundlePath: string): string {
  return path.basename(bundlePath, path.extname(bundlePath));
}
