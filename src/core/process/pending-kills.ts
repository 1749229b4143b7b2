/**
 * SIGKILLs armed for runs told to stop, that wait out their grace period. A process that
 * leaves before they fire (a spawner helper whose host went away, a CLI quit by a second
 * Ctrl-C) would drop them with its timers and leave whatever ignored SIGTERM running, so
 * they fire at once as it exits. The same holds for runs still going as it exits.
 */
const pending = new Set<() => void>();

/**
 * Whether `exit` is being emitted (Node sets `_exiting` first, for process.exit(), an uncaught
 * error and an empty event loop alike): a kill armed from an `exit` listener (the CLI cancelling
 * its async hooks on a second Ctrl-C) would never run, since a listener added while `exit` is
 * emitted is not called, and no timer fires after it.
 */
function isExiting(): boolean {
  return (process as { _exiting?: boolean })._exiting === true;
}

function fireAll(): void {
  for (const kill of [...pending]) kill();
}

/** Keeps `fire` to be called as this process exits; forget it with the result. */
function atExit(fire: () => void): () => void {
  if (pending.size === 0) process.on('exit', fireAll);
  pending.add(fire);
  return () => {
    if (pending.delete(fire) && pending.size === 0) process.off('exit', fireAll);
  };
}

/**
 * Runs `kill` after `graceMs`, or as this process exits if that comes first (at once when it is
 * exiting already); cancel with the result.
 */
export function armKill(kill: () => void, graceMs: number): () => void {
  if (isExiting()) {
    kill();
    return () => undefined;
  }
  const fire = () => {
    cancel();
    kill();
  };
  const timer = setTimeout(fire, graceMs);
  timer.unref();
  const forget = atExit(fire);
  function cancel(): void {
    clearTimeout(timer);
    forget();
  }
  return cancel;
}

/** Runs `kill` as this process exits, unless the result was called first: what a run started does not outlive its host. */
export function killAtExit(kill: () => void): () => void {
  const fire = () => {
    forget();
    kill();
  };
  const forget = atExit(fire);
  return forget;
}
