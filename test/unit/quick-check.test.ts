import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { auditRecordSchema } from '../../src/core/audit/records';
import { receiveHostToManager } from '../../src/shared/manager-protocol';
import { quickArray, quickCheck } from '../../src/shared/quick-check';
import { makeTimeline } from '../webview/harness/timeline-fixture';
import { makeTraceSession } from '../webview/harness/trace-fixture';

const base = { seq: 3, ts: '2026-01-05T10:00:00.000Z', session_id: 's1' };
const SAMPLES: Array<Record<string, unknown>> = [
  { ...base, type: 'event', dispatch_id: 'd1', event: 'PreToolUse', payload: { tool_name: 'Bash' } },
  {
    ...base,
    type: 'hook_run',
    dispatch_id: 'd1',
    event: 'PreToolUse',
    hook_id: 'h',
    hook_name: 'guard',
    handler: 'command',
    source: 'hooksJson',
    status: 'success',
    decision: 'deny',
    reason: 'no',
    stdout: '',
    stderr: 'x',
    exit_code: null,
    duration_ms: 12.5,
    tokens: { prompt: 1, completion: 2, total: 3 },
    async: true,
  },
  { ...base, type: 'dispatch', dispatch_id: 'd1', event: 'Stop', decision: 'block', hooks_run: 2, duration_ms: 40 },
  { ...base, type: 'permission', tool_name: 'Bash', decision: 'ask', source: 'rule', by: 'rule', answer: 'once' },
  { ...base, type: 'note', level: 'warning', message: 'slow' },
];

/** Every value the test tries in place of a field: wrong types, missing, out of range, not finite. */
const REPLACEMENTS: unknown[] = [
  undefined,
  null,
  '',
  'x',
  0,
  -1,
  1.5,
  NaN,
  Infinity,
  true,
  {},
  [],
  { prompt: 1 },
  'success',
  'command',
  'info',
];

function variants(record: Record<string, unknown>): unknown[] {
  const out: unknown[] = [record, { ...record, extra: 1 }, [record], null, 'record'];
  for (const key of [...Object.keys(record), 'agent_id', 'level', 'answer']) {
    for (const value of REPLACEMENTS) out.push({ ...record, [key]: value });
    const { [key]: _dropped, ...rest } = record;
    out.push(rest);
  }
  out.push({ ...record, tokens: { prompt: 1, completion: 2, total: 'x' } });
  return out;
}

describe('quickCheck', () => {
  const quick = quickCheck(auditRecordSchema);

  it('never accepts what the schema refuses, and accepts every valid record', () => {
    let accepted = 0;
    let tried = 0;
    for (const sample of SAMPLES) {
      expect(auditRecordSchema.safeParse(sample).success).toBe(true);
      expect(quick(sample)).toBe(true);
      for (const value of variants(sample)) {
        tried++;
        const zodSays = auditRecordSchema.safeParse(value).success;
        if (quick(value)) {
          accepted++;
          expect({ value, zodSays }).toEqual({ value, zodSays: true });
        }
      }
    }
    // The quick path is not a stub that refuses everything: valid variants (optional fields left out, extra keys) pass.
    expect(accepted).toBeGreaterThan(SAMPLES.length * 3);
    expect(accepted).toBeLessThan(tried / 2);
  });

  it('accepts the fixture sessions whole', () => {
    const records = [...makeTimeline(3000), ...makeTraceSession(100)];
    expect(records.every((r) => quick(r))).toBe(true);
  });

  it('leaves to zod what it does not understand: refinements, string checks, strict objects', () => {
    expect(quickCheck(z.string().min(2))('abc')).toBe(false);
    expect(quickCheck(z.strictObject({ a: z.string() }))({ a: 'x' })).toBe(false);
    expect(quickCheck(z.number().multipleOf(2))(4)).toBe(false);
    expect(quickCheck(z.union([z.string(), z.number()]))('x')).toBe(false);
    expect(quickCheck(z.object({ n: z.number().int().positive() }))({ n: 0 })).toBe(false);
    expect(quickCheck(z.object({ n: z.number().int().positive() }))({ n: 2 })).toBe(true);
  });

  it("quickArray passes a good list on as it is and reports a bad one with zod's issues", () => {
    const schema = quickArray(auditRecordSchema);
    const good = SAMPLES.map((s) => ({ ...s }));
    const parsed = schema.safeParse(good);
    expect(parsed.success && parsed.data).toBe(good);
    const bad = schema.safeParse([SAMPLES[0], { ...SAMPLES[1], duration_ms: 'slow' }]);
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => i.path)).toEqual([[1, 'duration_ms']]);
    // The Hook Manager's timeline messages use it: a malformed record is still refused.
    expect(receiveHostToManager({ type: 'timelineAppend', sessionId: 's', records: [{ type: 'hook_run', seq: 1 }] }).ok).toBe(false);
    expect(receiveHostToManager({ type: 'timelineAppend', sessionId: 's', records: good }).ok).toBe(true);
  });
});
