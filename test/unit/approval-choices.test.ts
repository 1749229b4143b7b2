import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
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

  it('the terminal names a replay, does not offer [a]lways for it, and asks again on an "a"', async () => {
    const input = new PassThrough();
    let written = '';
    const approver = new TerminalApprover(input, { write: (text) => (written += text) });
    const answer = approver.request(replay, new AbortController().signal);
    input.write('a\n');
    input.write('s\n');
    expect(await answer).toEqual({ choice: 'allow-session', by: 'user' });
    expect(written).toContain('Hookpilot wants to use Bash (a replay, in a scratch copy of the workspace)');
    expect(written.split('Allow? [y]es once / [s]ession / [d]eny for this session / [n]o: ')).toHaveLength(3);
    expect(written).not.toContain('[a]lways');
  });
});
