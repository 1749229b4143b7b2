import { z } from 'zod';
import { PrestartedShells } from '../prestarted-shells';
import { noOutputResult, runProcess } from '../run-process';
import { BASH_SHELLS_ARG, hostToSpawnerSchema, type SpawnerToHost } from './spawner-protocol';

/**
 * The spawner helper: a small Node process that runs hook processes for its host. Forking
 * from a large host (an extension host of hundreds of MB) blocks the host's event loop for
 * milliseconds per spawn; forking from here is cheap and never blocks the host.
 */
interface RunningProcess {
  controller: AbortController;
  done: Promise<void>;
}

const running = new Map<number, RunningProcess>();
/** One helper serves command hooks (sh) or the Bash tool (bash), never both. */
const shells = new PrestartedShells({ bash: process.argv.includes(BASH_SHELLS_ARG) });
// Asked before the helper says it is ready (a few ms, off any run): until it is answered, a
// run would start as a plain spawn, whose process may run before its report reaches the host.
shells.probe();
/** Enough of a request to answer it, when the rest does not parse. */
const requestIdSchema = z.object({ type: z.literal('run'), id: z.number() });

function send(message: SpawnerToHost): void {
  if (process.connected) process.send?.(message);
}

process.on('message', (raw: unknown) => {
  const parsed = hostToSpawnerSchema.safeParse(raw);
  if (!parsed.success) {
    // A request the host waits for gets an answer, even when it cannot be run.
    const request = requestIdSchema.safeParse(raw);
    if (request.success)
      send({
        type: 'result',
        id: request.data.id,
        result: noOutputResult(0, { spawnError: `invalid spawn request: ${parsed.error.issues[0]?.message ?? 'unknown'}` }),
      });
    return;
  }
  const message = parsed.data;
  if (message.type === 'abort') {
    running.get(message.id)?.controller.abort();
    return;
  }
  const { id, options } = message;
  const entry: RunningProcess = { controller: new AbortController(), done: Promise.resolve() };
  running.set(id, entry);
  entry.done = runProcess(
    {
      ...options,
      signal: entry.controller.signal,
      onSpawn: (pid) => send({ type: 'started', id, pid }),
    },
    shells,
  ).then((result) => {
    running.delete(id);
    send({ type: 'result', id, result });
  });
});

// The host went away (exit, crash or dispose): stop what runs, then leave. The SIGKILLs
// still armed for what ignored SIGTERM fire as the helper exits (pending-kills).
process.on('disconnect', () => {
  shells.dispose();
  const entries = [...running.values()];
  for (const entry of entries) entry.controller.abort();
  void Promise.all(entries.map((entry) => entry.done)).then(() => process.exit(0));
});

void shells.whenSettled().then(() => send({ type: 'ready' }));
