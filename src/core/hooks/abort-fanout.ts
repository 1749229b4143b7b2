interface Fanout {
  listeners: Set<() => void>;
  onAbort: () => void;
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `listener` when `signal` aborts, through one shared listener per signal. Every hook
 * of a parallel group watches the turn's signal; one listener each would pass Node's limit
 * of 10 and print a MaxListenersExceededWarning. Returns the unsubscribe function.
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    const listeners = new Set<() => void>();
    const created: Fanout = {
      listeners,
      onAbort: () => {
        fanouts.delete(signal);
        for (const each of [...listeners]) each();
      },
    };
    fanout = created;
    fanouts.set(signal, created);
    signal.addEventListener('abort', created.onAbort, { once: true });
  }
  const current = fanout;
  current.listeners.add(listener);
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size > 0 || fanouts.get(signal) !== current) return;
    signal.removeEventListener('abort', current.onAbort);
    fanouts.delete(signal);
  };
}
