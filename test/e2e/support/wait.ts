import { readFile } from 'node:fs/promises';

export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/** Polls `probe` until it returns a value other than undefined, or fails with `what`. */
export async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, options: WaitOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const intervalMs = options.intervalMs ?? 200;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Waits for a file that another process writes, and returns its content. */
export function waitForFile(file: string, options: WaitOptions = {}): Promise<string> {
  return waitUntil(
    `file ${file}`,
    async () => {
      try {
        // An empty file may be one caught between its creation and its write.
        const content = await readFile(file, 'utf8');
        return content === '' ? undefined : content;
      } catch {
        return undefined;
      }
    },
    options,
  );
}
