import { mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startTestbed, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { projectStorageDir } from '../../src/cli/cli-environment';
import { DEFAULT_MAX_RECORD_BYTES } from '../../src/core/audit/audit-writer';
import { watchingPeakMemory } from '../support/peak-resident-memory';

// Each record is capped at 1 MiB, but their number is not: a model whose Bash calls print 1 MiB
// each adds ~1 MiB of PostToolUse payload per call, 50 calls a turn. Before the timeline streamed
// its records, this log peaked at 510 MiB of RSS.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('hookpilot timeline on a large session log', () => {
  it.each([
    ['row by row', [] as string[], 2 + 400, /^22:13:20\.400\s+PostToolUse$/],
    ['as a trace', ['--trace', '--all'], 2 + 400, /^\+0\.399s\s+0\.0\s+PostToolUse$/],
  ])(
    'prints a 400 MiB log of records the writer allows in under 256 MiB of RSS, %s',
    async (_, flags, lineCount, lastLine) => {
      const b = await startTestbed(bundle.bundle, { 'README.md': 'readme\n' });
      bed = b;
      const sessionId = 'big-session';
      const dir = path.join(projectStorageDir(String(b.env.HOOKPILOT_HOME), b.workspace.dir), 'audit');
      mkdirSync(dir, { recursive: true });
      const fd = openSync(path.join(dir, `${sessionId}.jsonl`), 'w');
      // Each line within the writer's per-record cap: a PostToolUse event whose tool_response holds a Bash call's output.
      const stdout = 'x'.repeat(DEFAULT_MAX_RECORD_BYTES - 4096);
      for (let seq = 1; seq <= 400; seq++) {
        const record = {
          seq,
          ts: new Date(1_700_000_000_000 + seq).toISOString(),
          session_id: sessionId,
          type: 'event',
          dispatch_id: `d${seq}`,
          event: 'PostToolUse',
          payload: { tool_name: 'Bash', tool_input: { command: 'yes | head -c 1048576' }, tool_response: { stdout } },
        };
        writeSync(fd, `${JSON.stringify(record)}\n`);
      }
      // Cut off mid-write: still reported once the rest is read.
      writeSync(fd, '{"seq":401,"ts":"2023-11-14T22:13:20.401Z","ty');
      closeSync(fd);

      const {
        result: r,
        peakMiB,
        killed,
      } = await watchingPeakMemory((onSpawn) =>
        runCli(bundle.bundle, ['timeline', sessionId, ...flags], { cwd: b.workspace.dir, env: b.env, timeoutMs: 120_000, onSpawn }),
      );
      console.log(`timeline ${flags.join(' ')}: exit ${r.code} ${r.signal ?? ''}, peak RSS ${peakMiB.toFixed(0)} MiB for a 400 MiB log`);
      expect(killed).toBe(false);
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      expect(lines).toHaveLength(lineCount);
      expect(lines.at(-1)).toMatch(lastLine);
      expect(r.stderr).toContain(`big-session.jsonl:401: torn last line (46 bytes) skipped`);
      // A streaming reader needs a few records' worth, not the whole log.
      expect(peakMiB).toBeLessThan(256);
    },
    180_000,
  );
});
