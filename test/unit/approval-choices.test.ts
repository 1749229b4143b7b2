import { PassThrough } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { TerminalApprover } from '../../src/cli/terminal-approver';
import { offeredChoice, offeredChoices } from '../../src/core/agent/permissions/approval-choices';
import type { ApprovalChoice } from '../../src/core/agent/permissions/permission-settings';
import { REPLAY_SESSION_PREFIX } from '../../src/core/audit/session-kinds';
import { approvalRequest } from '../support/approval-fixtures';

const request = approvalRequest;

const replay = request({ sessionId: `${REPLAY_SESSION_PREFIX}1234` });
const EVERY: ApprovalChoice[] = ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'];

describe('the answers an approval offers', () => {
  it('a live ask offers all five; a system ask allow once at most; a replay ask allow for its session at most', () => {
    expect(offeredChoices(request())).toEqual(EVERY);
    expect(offeredChoices(request({ system: true }))).toEqual(['allow-once', 'deny-session', 'deny']);
    expect(offeredChoices(replay)).toEqual(['allow-once', 'allow-session', 'deny-session', 'deny']);
    expect(offeredChoices({ ...replay, system: true })).toEqual(['allow-once', 'deny-session', 'deny']);
  });

  it('an answer wider than offered is narrowed, never widened; denials stay', () => {
    expect(EVERY.map((choice) => offeredChoice(replay, choice))).toEqual([
      'allow-once',
      'allow-session',
      'allow-session',
      'deny-session',
      'deny',
    ]);
    expect(EVERY.map((choice) => offeredChoice(request({ system: true }), choice))).toEqual([
      'allow-once',
      'allow-once',
      'allow-once',
      'deny-session',
      'deny',
    ]);
    expect(EVERY.map((choice) => offeredChoice(request(), choice))).toEqual(EVERY);
    expect(offeredChoice(request(), 'constructor' as ApprovalChoice)).toBe('deny');
  });

  it('the terminal names a replay and the rule [s]ession adds, does not offer [a]lways for it, and asks again on an "a"', async () => {
    const input = new PassThrough();
    let written = '';
    const approver = new TerminalApprover(input, { write: (text) => (written += text) });
    const answer = approver.request(replay, new AbortController().signal);
    await vi.waitFor(() => expect(written).toContain('Allow?'));
    input.write('a\n');
    await vi.waitFor(() => expect(written.split('Allow?')).toHaveLength(3));
    input.write('s\n');
    expect(await answer).toEqual({ choice: 'allow-session', by: 'user' });
    approver.dispose();
    expect(written).toContain('Hookpilot wants to use Bash (a replay, in a scratch copy of the workspace)');
    expect(written.split('Allow? [y]es once / [s]ession / [d]eny for this session / [n]o: ')).toHaveLength(3);
    expect(written).not.toContain('[a]lways');
    expect(written).toContain('[s]ession adds the rule Bash(npm test) for this session\n');
  });
});

describe('the terminal asks one question at a time', () => {
  const bash = (command: string) => request({ toolName: 'Bash', input: { command }, summary: command });

  it('a line answers only the question shown when it arrives: typed ahead, before any question, or for two calls at once', async () => {
    const input = new PassThrough();
    let written = '';
    const approver = new TerminalApprover(input, { write: (text) => (written += text) });
    // Typed while the model worked: no question was shown, so it answers nothing.
    input.write('y\n');
    const signal = new AbortController().signal;
    const first = approver.request(bash('touch first'), signal);
    const second = approver.request(bash('touch second'), signal);
    await vi.waitFor(() => expect(written).toContain('touch first'));
    expect(written).not.toContain('touch second');
    // One `y` for the shown question and one typed ahead for the next: the second is dropped.
    input.write('y\ny\n');
    expect(await first).toEqual({ choice: 'allow-once', by: 'user' });
    await vi.waitFor(() => expect(written).toContain('touch second'));
    input.write('n\n');
    expect(await second).toMatchObject({ choice: 'deny', by: 'user' });
    approver.dispose();
  });

  it('after the end of input every later question is a no at once, and a cancelled one is a no', async () => {
    const input = new PassThrough();
    const approver = new TerminalApprover(input, { write: () => undefined });
    const cancelled = new AbortController();
    cancelled.abort();
    expect(await approver.request(bash('touch x'), cancelled.signal)).toMatchObject({ choice: 'deny', by: 'cancel' });
    input.end();
    const signal = new AbortController().signal;
    expect(await approver.request(bash('touch a'), signal)).toMatchObject({ choice: 'deny', reason: 'no answer (end of input)' });
    expect(await approver.request(bash('touch b'), signal)).toMatchObject({ choice: 'deny', reason: 'no answer (end of input)' });
  });
});
