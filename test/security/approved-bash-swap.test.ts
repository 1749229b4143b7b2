import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, Approver } from '../../src/core/agent/permissions/permission-settings';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';

// The Bash gate judges a command's paths when the call is decided: a background job of the
// model's that swaps a folder for a link while the person reads the prompt (here `d` for .git,
// whose core.fsmonitor runs a command on the person's next `git status`) must not turn the
// approved write into one of a protected file. The call is judged again once answered.

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const GIT_CONFIG = '[core]\n\trepositoryformatversion = 0\n';
const EVIL = 'printf "[core]\\n\\tfsmonitor = echo planted\\n" > d/config';

describe('check vs run of a Bash redirection target', () => {
  it('a Bash write approved for d/config does not land in .git/config after d is swapped for a link', async () => {
    const asked: ApprovalRequest[] = [];
    let ws = '';
    const approver: Approver = {
      request: async (request) => {
        asked.push(request);
        // The person takes a moment to read "write d/config"; meanwhile the job ran.
        if (request.input.command === EVIL)
          await vi.waitFor(() => expect(lstatSync(`${ws}/d`).isSymbolicLink()).toBe(true), { timeout: 10_000 });
        return { choice: 'allow-once', by: 'user' };
      },
    };
    h = await startAgent(
      // swap.sh: written earlier (an Edit/Write in acceptEdits mode, or a checked-in script).
      { 'd/readme.txt': 'notes', 'swap.sh': 'sleep 1; rm -rf d; ln -s .g""it d\n' },
      [
        toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: '(sh swap.sh) >/dev/null 2>&1 &' } }]),
        toolCalls([{ id: 'b2', name: 'Bash', arguments: { command: EVIL } }]),
        text('done'),
      ],
      { approver },
    );
    ws = h.workspace.dir;
    mkdirSync(`${ws}/.git`, { recursive: true });
    writeFileSync(`${ws}/.git/config`, GIT_CONFIG);
    await h.session.prompt('go');
    const write = asked.find((r) => r.input.command === EVIL);
    // What the person was shown: an ordinary file in d/, no system ask.
    expect(write?.system).toBe(false);
    expect(toolMessageSent(h.server, 'b2')).toContain('what the call touches changed while it waited for approval');
    expect(readFileSync(`${ws}/.git/config`, 'utf8')).toBe(GIT_CONFIG);
  }, 20_000);
});
