import { runProcess } from '../run-process';
import { hostToSpawnerSchema, type SpawnerToHost } from './spawner-protocol';

/**
 * The spawner helper: a small Node process that runs hook processes for its host. Forking
 * from a large host (an extension host of hundreds of MB) blocks the host's event loop for
 * milliseconds per spawn; forking from here is cheap and never blocks the host.
 */
const running = new Map<number, { controller: AbortController; done: Promise<void> }>();

function send(message: SpawnerToHost): void {
  if (process.connected) process.send?.(message);
}

process.on('message', (raw: unknown) => {
  const parsed = hostToSpawnerSchema.safeParse(raw);
  if (!parsed.success) return;
  const message = parsed.data;
  if (message.type === 'abort') {
    running.get(message.id)?.controller.abort();
    return;
  }
  const { id, options } = message;
  const controller = new AbortController();
  const done = runProcess({ ...options, signal: controller.signal, onSpawn: (pid) => send({ type: 'started', id, pid }) }).then((result) => {
    running.delete(id);
    send({ type: 'result', id, result });
  });
  running.set(id, { controller, done });
});

// The host went away (exit, crash or dispose): stop what runs, then leave.
process.on('disconnect', () => {
  for (const { controller } of running.values()) controller.abort();
  void Promise.all([...running.values()].map((r) => r.done)).then(() => process.exit(0));
});

send({ type: 'ready' });
