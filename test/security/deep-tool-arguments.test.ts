import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ARGUMENT_DEPTH, parseToolArguments } from '../../src/core/agent/llm/tool-arguments';
import { startAgent, type AgentHarness } from '../support/agent-harness';
import { malformedToolCall, text } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Tool-call arguments a few KB long but nested thousands deep parse (JSON.parse reads any
// depth), yet overflow the stack wherever the host serializes them: an AfterLLM guard's stdin
// failed before the guard started, and the call it exists to block ran.

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const bypass = { mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] };
/** An AfterLLM guard: blocks (exit 2) a reply whose tool calls ask for `rm`. */
const AFTER_LLM_GUARD = `const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const calls = input.llm_response.tool_calls || [];
if (calls.some((c) => /\\brm\\b/.test(JSON.stringify(c.arguments)))) { process.stderr.write('no rm'); process.exit(2); }
`;

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('tool arguments nested past what the host serializes', () => {
  it('are refused when parsed: the model is told why, nothing runs, and the AfterLLM hooks still run', async () => {
    const files = {
      'keep.txt': 'precious',
      'hooks/after-ran.js': "JSON.parse(require('fs').readFileSync(0, 'utf8')); require('fs').appendFileSync('after-ran.txt', 'x');",
      '.vscode/hooks.json': hooksJson({ AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/after-ran.js' }] }] }),
    };
    h = await startAgent(files, [malformedToolCall('Bash', `{"command":"rm keep.txt","pad":${nested(10_000)}}`), text('done')], {
      session: { permissions: () => bypass },
    });
    expect((await h.session.prompt('go')).reason).toBe('completed');
    expect(existsSync(h.workspace.file('keep.txt'))).toBe(true);
    expect(existsSync(h.workspace.file('after-ran.txt'))).toBe(true);
    const failures = h.events.flatMap((e) => (e.type === 'notice' ? [e.message] : [])).filter((m) => m.includes('call stack'));
    expect(failures).toEqual([]);
    const told = h.server.requests.at(-1)?.body.messages as Array<{ role: string; content?: unknown }>;
    expect(JSON.stringify(told.filter((m) => m.role === 'tool'))).toContain(
      `the tool arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`,
    );
  });

  it('an AfterLLM guard blocks the same call with arguments of an ordinary depth', async () => {
    h = await startAgent(
      {
        'keep.txt': 'precious',
        'hooks/after.js': AFTER_LLM_GUARD,
        '.vscode/hooks.json': hooksJson({ AfterLLM: [{ hooks: [{ type: 'command', command: 'node hooks/after.js' }] }] }),
      },
      [malformedToolCall('Bash', `{"command":"rm keep.txt","pad":${nested(MAX_ARGUMENT_DEPTH - 1)}}`), text('done')],
      { session: { permissions: () => bypass } },
    );
    expect((await h.session.prompt('go')).reason).toBe('aborted');
    expect(existsSync(h.workspace.file('keep.txt'))).toBe(true);
  });

  it('the limit counts levels of objects and arrays, not their size', () => {
    expect(parseToolArguments(`{"a":${nested(MAX_ARGUMENT_DEPTH - 1)}}`).ok).toBe(true);
    expect(parseToolArguments(`{"a":${nested(MAX_ARGUMENT_DEPTH)}}`)).toEqual({
      ok: false,
      error: `the tool arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`,
    });
    const wide = JSON.stringify({ items: Array.from({ length: 10_000 }, (_, i) => ({ i, tags: [String(i)] })) });
    expect(parseToolArguments(wide).ok).toBe(true);
  });
});
