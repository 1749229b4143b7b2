/**
 * SIGKILLs armed for runs told to stop, that wait out their grace period. A process that
 * leaves before they fire (a spawner helper whose host went away, a CLI quit by a second
 * Ctrl-C) would drop them with its timers and leave whatever ignored SIGTERM running, so
 * they fire at once as it exits.
 */
const pending = new Set<() => void>();

function fireAll(): void {
  for (const kill of [...pending]) kill();
}

/** Runs `kill` after `graceMs`, or as this process exits if that comes first; cancel with the result. */
export function armKill(kill: () => void, graceMs: number): () => void {
  const fire = () => {
    cancel();
    kill();
  };
  const timer = setTimeout(fire, graceMs);
  timer.unref();
  if (pending.size === 0) process.on('exit', fireAll);
  pending.add(fire);
  function cancel(): void {
    clearTimeout(timer);
    if (pending.delete(fire) && pending.size === 0) process.off('exit', fireAll);
  }
  return cancel;
}
