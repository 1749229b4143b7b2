/**
 * `work`, or a rejection with `reason()` once `signal` aborts first (what `work` does after is
 * ignored). For work that does not stop at once on its own signal (an SDK's retry backoff, a
 * transport's start): the caller is answered at once.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal, reason: () => unknown): Promise<T> {
  if (signal.aborted) return Promise.reject(reason());
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(reason());
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}
