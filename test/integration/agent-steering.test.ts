import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Every hook appends what it saw to a log in the workspace: `<event> "<prompt or turn>"`.
const logHook = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const detail = input.prompt !== undefined ? input.prompt : 'turn ' + input.turn_index;
require('fs').appendFileSync('events.log', input.hook_event_name + ' ' + JSON.stringify(detail) + (input.step !== undefined ? ' @' + input.step : '') + '\\n');
if (/secret/.test(input.prompt || '')) { process.stderr.write('no secrets in prompts'); process.exit(2); }
if (/halt/.test(input.prompt || '')) process.stdout.write(JSON.stringify({ continue: false, stopReason: 'halted by request' }));
`;
const logged = { type: 'command', command: 'node hooks/log.js' };
const files = {
  'hooks/log.js': logHook,
  '.vscode/hooks.json': hooksJson({
    UserPromptSubmit: [{ hooks: [logged] }],
    steering_injected: [{ hooks: [logged] }],
    follow_up_queued: [{ hooks: [logged] }],
    interrupt_received: [{ hooks: [logged] }],
  }),
};
const bypass = {
  session: { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) },
};

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The log lines, once `count` of them are there (observe hooks run in the background). */
async function logLines(harness: AgentHarness, count: number): Promise<string[]> {
  const file = harness.workspace.file('events.log');
  const read = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);
  await vi.waitFor(() => expect(read().length).toBeGreaterThanOrEqual(count), { timeout: 5_000, interval: 25 });
  return read();
}

const contents = (harness: AgentHarness, request: number) =>
  (harness.server.requests[request].body.messages as Array<{ role: string; content: unknown }>).map(
    (m) => `${m.role}: ${String(m.content)}`,
  );

/** An agent whose first step runs a short command; `message` is queued as soon as it starts. */
async function queueDuringTool(message: string, reply: string): Promise<AgentHarness> {
  const harness = await startAgent(
    files,
    [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'sleep 0.3' } }]), text(reply)],
    bypass,
  );
  harness.session.onEvent((e) => {
    if (e.type === 'tool_started') harness.session.queue(message);
  });
  return harness;
}

describe('messages sent while the agent works (steering, docs/design.md)', () => {
  it('reach the model after the running step, through UserPromptSubmit; SteeringInjected fires', async () => {
    h = await queueDuringTool('use tabs, not spaces', 'Done, with tabs.');
    const harness = h;
    const outcome = await harness.session.prompt('format the file');
    expect(outcome).toMatchObject({ reason: 'completed', result: 'Done, with tabs.' });
    expect(contents(harness, 1).slice(-2)).toEqual([expect.stringMatching(/^tool: /), 'user: use tabs, not spaces']);
    expect(harness.events.filter((e) => e.type === 'steering_injected')).toEqual([
      { type: 'steering_injected', text: 'use tabs, not spaces' },
    ]);
    expect(await logLines(harness, 3)).toEqual([
      'UserPromptSubmit "format the file"',
      'UserPromptSubmit "use tabs, not spaces"',
      'SteeringInjected "use tabs, not spaces" @2',
    ]);
    expect(harness.session.takeFollowUp()).toBeUndefined();
  });

  it('sent while the final answer streams, keep the turn going instead of ending it', async () => {
    h = await startAgent(files, [text('Here is the plan.', { chunks: 3, delayMs: 50 }), text('Plan with tests.')], bypass);
    const harness = h;
    let queued = false;
    harness.session.onEvent((e) => {
      if (e.type === 'text_delta' && !queued) {
        queued = true;
        harness.session.queue('include tests');
      }
    });
    const outcome = await harness.session.prompt('plan it');
    expect(outcome).toMatchObject({ reason: 'completed', result: 'Plan with tests.' });
    expect(harness.server.requests).toHaveLength(2);
    expect(contents(harness, 1).slice(-2)).toEqual(['assistant: Here is the plan.', 'user: include tests']);
  });

  it('blocked by a UserPromptSubmit hook, never reach the model and say why', async () => {
    h = await queueDuringTool('my secret is 42', 'ok');
    const harness = h;
    await harness.session.prompt('go');
    expect(JSON.stringify(harness.server.requests[1].body.messages)).not.toContain('my secret');
    expect(harness.events.find((e) => e.type === 'steering_blocked')).toMatchObject({
      text: 'my secret is 42',
      reason: expect.stringContaining('no secrets in prompts'),
      hookName: 'log.js',
    });
    expect(harness.events.some((e) => e.type === 'steering_injected')).toBe(false);
  });

  it('stopped by a UserPromptSubmit hook (continue: false), stop the turn as a prompt would', async () => {
    h = await queueDuringTool('halt now', 'never');
    const harness = h;
    const outcome = await harness.session.prompt('go');
    expect(outcome).toMatchObject({ reason: 'stopped', stopSession: { reason: 'halted by request', hookName: 'log.js' } });
    expect(harness.server.requests).toHaveLength(1);
    expect(harness.events.find((e) => e.type === 'steering_blocked')).toMatchObject({ text: 'halt now', reason: 'halted by request' });
  });

  it('still waiting when the turn is interrupted, become the next prompt: InterruptReceived, then FollowUpQueued', async () => {
    h = await startAgent(files, [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'sleep 5' } }]), text('Doing Y now.')], bypass);
    const harness = h;
    const controller = new AbortController();
    harness.session.onEvent((e) => {
      if (e.type !== 'tool_started') return;
      harness.session.queue('stop that, do Y');
      harness.session.queue('and Z');
      setTimeout(() => controller.abort(), 100);
    });
    const outcome = await harness.session.prompt('do X', controller.signal);
    expect(outcome.reason).toBe('cancelled');
    expect(harness.server.requests).toHaveLength(1);
    const followUp = harness.session.takeFollowUp();
    expect(followUp).toBe('stop that, do Y\n\nand Z');
    expect(harness.session.takeFollowUp()).toBeUndefined();
    expect((await harness.session.prompt(followUp ?? '')).result).toBe('Doing Y now.');
    expect(contents(harness, 1).at(-1)).toBe('user: stop that, do Y\n\nand Z');
    // Observe hooks run in the background: in any order with the next prompt's hooks.
    expect((await logLines(harness, 4)).sort()).toEqual([
      'FollowUpQueued "stop that, do Y\\n\\nand Z"',
      'InterruptReceived "turn 0"',
      'UserPromptSubmit "do X"',
      'UserPromptSubmit "stop that, do Y\\n\\nand Z"',
    ]);
  });
});
