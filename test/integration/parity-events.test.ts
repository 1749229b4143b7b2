import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Claude Code's lifecycle events Hookpilot fires beyond its own loop, with real hook processes.

const logHook = (file: string, output = '') => `const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(${JSON.stringify(file)}, JSON.stringify(input) + '\\n');
process.stdout.write(${JSON.stringify(output)});
`;
const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('SessionStart after a compaction', () => {
  it('fires with source "compact", matched on it, and its context follows the summary', async () => {
    const cfg = hooksJson({ SessionStart: [{ matcher: 'compact', hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] });
    h = await startAgent({ 'hooks/start.js': logHook('start.log', 'RE-READ: the build uses pnpm'), '.vscode/hooks.json': cfg }, (req) => {
      const messages = req.body.messages as Array<{ content?: unknown }>;
      if (String(messages[0].content).startsWith('You compact')) return text('SUMMARY: five answers.');
      return text(`answer ${req.index}`);
    }, { session: bypass });
    for (let i = 0; i < 5; i++) await h.session.prompt(`question ${i}`);
    // The startup SessionStart did not match "compact".
    expect(() => readFileSync(h!.workspace.file('start.log'))).toThrow();
    expect(await h.session.compact(null)).toBe(true);
    expect(lines(h.workspace.file('start.log'))).toEqual([expect.objectContaining({ hook_event_name: 'SessionStart', source: 'compact' })]);
    await h.session.prompt('next');
    const sent = JSON.stringify(h.server.requests[h.server.requests.length - 1].body.messages);
    expect(sent).toContain('SUMMARY: five answers.');
    expect(sent).toContain('RE-READ: the build uses pnpm');
    expect(sent.indexOf('SUMMARY: five answers.')).toBeLessThan(sent.indexOf('RE-READ: the build uses pnpm'));
  });
});
