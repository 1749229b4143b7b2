import type { AuditLog } from './audit-log';
import { STOP_READING } from './audit-reader';
import type { AuditRecord } from './records';

type HookRunRecord = Extract<AuditRecord, { type: 'hook_run' }>;

/**
 * Hook run `seq` of a session's log and the payload it was given (its own `input`, else its
 * event's), for firing the hook again on it. Read as the timeline reads (a record at a time,
 * at most twice over, stopping at what it looks for): a log has no size limit.
 */
export async function recordedHookRun(
  log: AuditLog,
  sessionId: string,
  seq: number,
): Promise<{ run: HookRunRecord; payload: unknown } | undefined> {
  let run: HookRunRecord | undefined;
  await log.forEachRecord(sessionId, (record) => {
    if (record.seq !== seq) return undefined;
    if (record.type === 'hook_run') run = record;
    return STOP_READING;
  });
  if (run === undefined) return undefined;
  if (run.input !== undefined) return { run, payload: run.input };
  const dispatch = run.dispatch_id;
  let payload: unknown = {};
  await log.forEachRecord(sessionId, (record) => {
    if (record.type !== 'event' || record.dispatch_id !== dispatch) return undefined;
    payload = record.payload;
    return STOP_READING;
  });
  return { run, payload };
}
