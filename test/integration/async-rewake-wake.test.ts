import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// An asyncRewake hook that exits 2 after the turn ended wakes the agent with what it reported
// (Claude Code's asyncRewake), as a turn of its own with no prompt; a hook that does so after
// every turn wakes it 8 times in a row at most.

const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('asyncRewake between turns', () => {
  it('asks the host to wake the agent, and the woken turn brings the hook’s stderr to the model', async () => {
    // A background test run that ends once told to, after the turn is over.
    const tests = `cat > /dev/null; until [ -e release ]; do sleep 0.02; done; echo 'BACKGROUND TESTS FAILED: 3 failing' >&2; exit 2`;
    h = await startAgent(
      {
        '.vscode/hooks.json': hooksJson({
          PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: tests, asyncRewake: true, name: 'bg-tests' }] }],
        }),
      },
      [toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: 'a.txt', content: 'x' } }]), text('done'), text('fixing the tests')],
      { session: bypass },
    );
    expect((await h.session.prompt('write a.txt')).reason).toBe('completed');
    expect(h.session.rewakeWaiting).toBeUndefined();
    writeFileSync(h.workspace.file('release'), '');
    await vi.waitFor(() => expect(h!.events).toContainEqual({ type: 'rewake_requested', hookName: 'bg-tests' }), { timeout: 10_000 });
    expect(h.session.rewakeWaiting).toBe('bg-tests');
    const woken = await h.session.wake();
    expect(woken).toMatchObject({ reason: 'completed', result: 'fixing the tests' });
    expect(h.events).toContainEqual(expect.objectContaining({ type: 'turn_started', prompt: '', wokenBy: 'bg-tests' }));
    expect(JSON.stringify(h.server.requests.at(-1)!.body.messages)).toContain('BACKGROUND TESTS FAILED: 3 failing');
    // Nothing waits any more: a second wake starts no turn.
    expect(await h.session.wake()).toBeUndefined();
    expect(h.server.requests).toHaveLength(3);
  });

  it('wakes the agent 8 times in a row at most: a hook that reports after every turn then waits for the next prompt', async () => {
    const nag = `cat > /dev/null; echo 'still failing' >&2; exit 2`;
    h = await startAgent(
      { '.vscode/hooks.json': hooksJson({ TurnEnd: [{ hooks: [{ type: 'command', command: nag, asyncRewake: true, name: 'nag' }] }] }) },
      () => text('ok'),
      { session: bypass },
    );
    await h.session.prompt('hi');
    for (let woken = 0; woken < 8; woken++) {
      await vi.waitFor(() => expect(h!.session.rewakeWaiting).toBe('nag'), { timeout: 10_000 });
      expect(await h.session.wake()).toMatchObject({ reason: 'completed' });
    }
    // The hook reports after the 8th woken turn too: the session says it rests, and offers no wake.
    await vi.waitFor(
      () =>
        expect(h!.events).toContainEqual(
          expect.objectContaining({ type: 'notice', level: 'warning', message: expect.stringContaining('8 times in a row') }),
        ),
      { timeout: 10_000 },
    );
    expect(h.session.rewakeWaiting).toBeUndefined();
    expect(await h.session.wake()).toBeUndefined();
    expect(h.server.requests).toHaveLength(9);
    // The next prompt hears it, and may be woken again.
    await h.session.prompt('and now?');
    expect(JSON.stringify(h.server.requests.at(-1)!.body.messages)).toContain('still failing');
    await vi.waitFor(() => expect(h!.session.rewakeWaiting).toBe('nag'), { timeout: 10_000 });
    expect(await h.session.wake()).toMatchObject({ reason: 'completed' });
  });
});
