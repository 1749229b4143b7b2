import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestbed, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { isProcessAlive } from '../support/process-liveness';
import { hooksJson } from '../support/workspace';

// A cloned repository declares rpc servers and hooks that would run its code. Commands that
// only read (list, validate, timeline, import) must start none of it; `hooks test` starts
// only what the fired event can reach. Each script leaves a marker the moment it starts.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** An rpc server that writes `markers/<name>` (its pid) synchronously, first thing. */
const server = (events: string[]) => `const fs = require('fs'), path = require('path');
fs.mkdirSync('markers', { recursive: true });
fs.writeFileSync(path.join('markers', process.argv[2]), String(process.pid));
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require(${JSON.stringify(path.join(REPO_ROOT, 'node_modules/vscode-jsonrpc/node'))});
const c = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
c.onRequest('initialize', () => ({ name: process.argv[2], observe: [], intercept: ${JSON.stringify(events)} }));
c.onRequest('hook/intercept', () => ({}));
c.onRequest('shutdown', () => null);
c.onNotification('exit', () => process.exit(0));
c.onClose(() => process.exit(0));
c.listen();
`;
const mark = (name: string) =>
  `node -e "require('fs').mkdirSync('markers',{recursive:true});require('fs').writeFileSync('markers/${name}', String(process.pid))"`;

const files = {
  'server.js': server(['PreToolUse']),
  'silent.js': server(['PreToolUse']),
  '.vscode/hooks.json': hooksJson(
    {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            { type: 'command', command: mark('pre-hook'), name: 'pre' },
            { type: 'rpc', server: 'declared' },
          ],
        },
      ],
      SessionStart: [{ hooks: [{ type: 'command', command: mark('session-hook'), name: 'start' }] }],
    },
    {
      servers: {
        declared: { command: ['node', 'server.js', 'declared'], intercept: ['PreToolUse'] },
        silent: { command: ['node', 'silent.js', 'silent'] },
        stopOnly: { command: ['node', 'server.js', 'stopOnly'], intercept: ['Stop'] },
      },
    },
  ),
  // Something for `hooks import` to read: Claude Code's project settings with a hook of its own.
  '.claude/settings.json': JSON.stringify({
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: mark('imported-hook') }] }] },
  }),
};

function markers(b: Testbed): string[] {
  const dir = b.workspace.file('markers');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

describe('read-only commands start nothing', () => {
  it('hooks list, validate, timeline and import run no workspace code', async () => {
    bed = await startTestbed(bundle.bundle, files);
    const list = await bed.cli(['hooks', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/PreToolUse +Bash +rpc +declared +\.vscode\/hooks\.json:\d+ +active \(server not started\)/);
    expect(list.stderr).toContain('rpc server "silent" (.vscode/hooks.json:');
    const json = JSON.parse((await bed.cli(['hooks', 'list', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(json.find((h) => h.type === 'rpc')).toMatchObject({ name: 'declared', server: { name: 'declared', started: false } });
    expect((await bed.cli(['hooks', 'validate'])).code).toBe(0);
    await bed.cli(['timeline', '--list']);
    await bed.cli(['timeline']);
    expect((await bed.cli(['hooks', 'import', '--dry-run'])).stdout).toContain('.claude/settings.json');
    expect((await bed.cli(['hooks', 'import', '--from', 'claude'])).code).toBe(0);
    // Every command has exited: anything it started would have left its marker by now.
    expect(markers(bed)).toEqual([]);
  });

  it('hooks test starts only the servers the event can reach, and none outlives it', async () => {
    bed = await startTestbed(bundle.bundle, files);
    const r = await bed.cli(['hooks', 'test', 'PreToolUse', '--input', '{"command":"ls"}', '--json']);
    expect(r.code).toBe(0);
    const runs = (JSON.parse(r.stdout) as { hooks: Array<{ name: string; status: string }> }).hooks.filter(
      (h) => h.name !== 'Cancellation',
    );
    // `declared` twice: the rpc hook entry, and the server's own declared PreToolUse; the
    // .claude/settings.json hook (read in place) is named after its command.
    expect(runs.map((h) => [h.name, h.status]).sort()).toEqual([
      ['declared', 'success'],
      ['declared', 'success'],
      [expect.stringMatching(/^node -e/), 'success'],
      ['pre', 'success'],
      ['silent', 'success'],
    ]);
    // The Stop-only server and the SessionStart hook are not reached by PreToolUse.
    expect(markers(bed)).toEqual(['declared', 'imported-hook', 'pre-hook', 'silent']);
    for (const name of ['declared', 'silent'])
      expect(isProcessAlive(Number(readFileSync(bed.workspace.file(`markers/${name}`), 'utf8')))).toBe(false);

    // Another event: only the server whose events are unknown until it answers is asked.
    rmSync(bed.workspace.file('markers'), { recursive: true });
    expect((await bed.cli(['hooks', 'test', 'Notification'])).code).toBe(0);
    expect(markers(bed)).toEqual(['silent']);
  });
});
