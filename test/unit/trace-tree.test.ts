import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../src/core/audit/records';
import { SLOWEST_COUNT, TraceTree, type TraceSpan } from '../../src/shared/trace-tree';

const T0 = Date.UTC(2026, 0, 5, 10, 0, 0);

/** Builds a log the way the writer numbers it: one seq per record, `at` ms after T0. */
class Log {
  readonly records: AuditRecord[] = [];
  private dispatches = 0;

  private push(at: number, record: Record<string, unknown>): void {
    this.records.push({ seq: this.records.length + 1, ts: new Date(T0 + at).toISOString(), session_id: 's1', ...record } as AuditRecord);
  }

  /** An event, its hook runs (each `[name, decision, durationMs]`, ending at `at + duration`), and the dispatch summary. */
  event(
    at: number,
    event: string,
    payload: Record<string, unknown> = {},
    hooks: Array<[string, string, number]> = [],
    decision = 'none',
  ): string {
    const id = `d${++this.dispatches}`;
    this.push(at, { type: 'event', dispatch_id: id, event, payload: { hook_event_name: event, ...payload } });
    for (const [name, hookDecision, ms] of hooks) this.hookRun(at + ms, id, event, name, hookDecision, ms);
    if (hooks.length > 0) {
      const longest = Math.max(...hooks.map((h) => h[2]));
      this.push(at + longest, { type: 'dispatch', dispatch_id: id, event, decision, hooks_run: hooks.length, duration_ms: longest });
    }
    return id;
  }

  hookRun(
    at: number,
    dispatchId: string,
    event: string,
    name: string,
    decision: string,
    ms: number,
    extra: Record<string, unknown> = {},
  ): void {
    const status = decision === 'timeout' || decision === 'error' ? decision : 'success';
    this.push(at, {
      type: 'hook_run',
      dispatch_id: dispatchId,
      event,
      hook_id: name,
      hook_name: name,
      handler: 'command',
      source: 'hooksJson',
      status,
      decision,
      duration_ms: ms,
      ...extra,
    });
  }

  permission(at: number, toolUseId: string, decision: 'allow' | 'deny' | 'ask', source = 'rule'): void {
    this.push(at, { type: 'permission', tool_name: 'Bash', tool_use_id: toolUseId, decision, source });
  }

  note(at: number, message: string): void {
    this.push(at, { type: 'note', level: 'error', message });
  }
}

/** The tree as nested [label, decision] pairs, children after. */
type Shape = [string, string, ...Shape[]] | [string, string];
const shape = (spans: readonly TraceSpan[]): Shape[] =>
  spans.map((s) => (s.children.length > 0 ? [s.label, s.decision, ...shape(s.children)] : [s.label, s.decision]) as Shape);
const find = (tree: TraceTree, label: string): TraceSpan => {
  for (const span of tree.walk()) if (span.label === label) return span;
  throw new Error(`no span "${label}"`);
};

function oneTurn(): Log {
  const log = new Log();
  log.event(0, 'UserPromptSubmit', { prompt: 'run the tests' }, [['audit-context', 'context', 4]]);
  log.event(5, 'TurnStart', { turn_index: 0, prompt: 'run the tests' });
  log.event(
    10,
    'BeforeLLM',
    { step: 1, llm_request: { model: 'gpt-x', messages_delta: { added: [] } } },
    [['budget', 'allow', 3]],
    'allow',
  );
  log.event(400, 'AfterLLM', { step: 1, llm_response: { content: '', tool_calls: [{ id: 'call_1' }], finish_reason: 'tool_calls' } });
  log.event(
    401,
    'PreToolUse',
    { tool_name: 'Bash', tool_use_id: 'call_1', tool_input: { command: 'npm test' } },
    [
      ['guard', 'allow', 20],
      ['lint', 'timeout', 60],
    ],
    'allow',
  );
  log.permission(462, 'call_1', 'allow', 'hook guard');
  log.event(1500, 'PostToolUse', { tool_name: 'Bash', tool_use_id: 'call_1', tool_input: { command: 'npm test' } });
  log.event(1501, 'StepComplete', { step: 1 });
  log.event(1502, 'BeforeLLM', { step: 2, llm_request: { model: 'gpt-x' } });
  log.event(1800, 'AfterLLM', { step: 2, llm_response: { content: 'done', tool_calls: [], finish_reason: 'stop' } });
  log.event(1801, 'Stop', { last_assistant_message: 'done' }, [['stop-check', 'none', 30]]);
  log.event(1840, 'StepComplete', { step: 2 });
  log.event(1841, 'TurnEnd', { turn_index: 0, reason: 'completed' });
  return log;
}

describe('TraceTree', () => {
  it('nests a turn: steps, model requests and tool calls, each event with its hook runs', () => {
    const tree = new TraceTree();
    tree.add(oneTurn().records);
    expect(shape(tree.roots)).toEqual([
      [
        'Turn 1 · run the tests',
        'completed',
        ['UserPromptSubmit', '', ['audit-context', 'context']],
        ['TurnStart', ''],
        [
          'Step 1',
          '',
          ['Model request · gpt-x → 1 tool call', 'tool_calls', ['BeforeLLM', 'allow', ['budget', 'allow']], ['AfterLLM', '']],
          [
            'Bash · npm test',
            'allow',
            ['PreToolUse', 'allow', ['guard', 'allow'], ['lint', 'timeout']],
            ['Permission · Bash', 'allow'],
            ['PostToolUse', ''],
          ],
          ['StepComplete', ''],
        ],
        ['Step 2', '', ['Model request · gpt-x → answer', 'stop', ['BeforeLLM', ''], ['AfterLLM', '']], ['StepComplete', '']],
        ['Stop', '', ['stop-check', 'none']],
        ['TurnEnd', ''],
      ],
    ]);
    // Spans sit on the session's clock: a hook run ends when it was recorded and starts its duration earlier.
    const lint = find(tree, 'lint');
    expect([lint.startMs - T0, lint.endMs - T0, lint.badge, lint.depth]).toEqual([401, 461, 'timeout', 4]);
    const turn = tree.roots[0];
    expect([turn.startMs - T0, turn.endMs - T0, turn.open]).toEqual([0, 1841, false]);
    const tool = find(tree, 'Bash · npm test');
    expect([tool.startMs - T0, tool.endMs - T0, tool.depth]).toEqual([401, 1500, 2]);
    expect([tree.startMs - T0, tree.endMs - T0]).toEqual([0, 1841]);
    // Each span's record is the one the detail pane shows.
    expect(find(tree, 'Model request · gpt-x → 1 tool call').record?.seq).toBe(
      tree.roots[0].children[2].children[0].children[0].record?.seq,
    );
    expect(lint.record).toMatchObject({ type: 'hook_run', hook_name: 'lint' });
  });

  it('builds the same tree from records out of order, in batches, and given twice', () => {
    const records = oneTurn().records;
    const whole = new TraceTree();
    whole.add(records);
    const shuffled = new TraceTree();
    shuffled.add([...records].reverse());
    expect(shape(shuffled.roots)).toEqual(shape(whole.roots));
    const batched = new TraceTree();
    for (let i = 0; i < records.length; i += 3) batched.add(records.slice(i, i + 3));
    batched.add(records);
    expect(shape(batched.roots)).toEqual(shape(whole.roots));
    expect(batched.size).toBe(whole.size);
    expect([batched.startMs, batched.endMs]).toEqual([whole.startMs, whole.endMs]);
  });

  it('puts records whose parents are not in the log at the top level, under a stand-in for a missing event', () => {
    const full = oneTurn().records;
    // The log starts mid-turn: the tool call's PreToolUse event record and everything before it are gone.
    const cut = full.slice(full.findIndex((r) => r.type === 'hook_run' && r.hook_name === 'guard'));
    const tree = new TraceTree();
    tree.add(cut);
    expect(shape(tree.roots)).toEqual([
      ['PreToolUse (event not in the log)', 'allow', ['guard', 'allow'], ['lint', 'timeout']],
      ['Permission · Bash', 'allow'],
      ['Bash · npm test', '', ['PostToolUse', '']],
      ['StepComplete', ''],
      ['Step 2', '', ['Model request · gpt-x → answer', 'stop', ['BeforeLLM', ''], ['AfterLLM', '']], ['StepComplete', '']],
      ['Stop', '', ['stop-check', 'none']],
      ['TurnEnd', ''],
    ]);
    const standIn = tree.roots[0];
    expect([standIn.startMs - T0, standIn.endMs - T0, standIn.record]).toEqual([401, 461, undefined]);
  });

  it('keeps hook runs with no turn (SessionStart, a test fire) at the top level', () => {
    const log = new Log();
    log.event(0, 'SessionStart', { source: 'startup' }, [['load-context', 'context', 12]]);
    log.event(50, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' } }, [['guard', 'deny', 8]], 'deny');
    log.note(70, 'hook slow-lint took 4000 ms');
    const tree = new TraceTree();
    tree.add(log.records);
    expect(shape(tree.roots)).toEqual([
      ['SessionStart', '', ['load-context', 'context']],
      ['PreToolUse', 'deny', ['guard', 'deny']],
      ['hook slow-lint took 4000 ms', 'error'],
    ]);
    expect(tree.roots.map((s) => s.depth)).toEqual([0, 0, 0]);
  });

  it('ends an aborted turn and what was still running in it, and a turn whose end never came', () => {
    const log = new Log();
    log.event(0, 'UserPromptSubmit', { prompt: 'first' });
    log.event(1, 'TurnStart', { turn_index: 0, prompt: 'first' });
    log.event(2, 'BeforeLLM', { step: 1, llm_request: { model: 'm' } });
    log.event(300, 'AfterLLM', { step: 1, llm_response: { tool_calls: [{}], finish_reason: 'tool_calls' } });
    log.event(301, 'PreToolUse', { tool_name: 'Bash', tool_use_id: 'c1', tool_input: { command: 'sleep 100' } });
    log.event(900, 'InterruptReceived', { turn_index: 0 });
    log.event(905, 'TurnEnd', { turn_index: 0, reason: 'cancelled' });
    log.event(2000, 'UserPromptSubmit', { prompt: 'second' });
    log.event(2001, 'TurnStart', { turn_index: 1, prompt: 'second' });
    log.event(2002, 'BeforeLLM', { step: 1, llm_request: { model: 'm' } });
    log.event(3000, 'UserPromptSubmit', { prompt: 'third' }, [['gate', 'block', 5]], 'block');
    log.event(3006, 'TurnEnd', { turn_index: 2, reason: 'blocked' });
    log.event(4000, 'UserPromptSubmit', { prompt: 'fourth' }, [['gate', 'block', 5]], 'block');
    log.event(5000, 'UserPromptSubmit', { prompt: 'fifth' });
    const tree = new TraceTree();
    tree.add(log.records);
    const [first, second, third, fourth] = tree.roots;
    expect([first.label, first.decision, first.open, first.endMs - T0]).toEqual(['Turn 1 · first', 'cancelled', false, 905]);
    const tool = find(tree, 'Bash · sleep 100');
    expect([tool.open, tool.decision, tool.endMs - T0]).toEqual([false, 'cancelled', 301]);
    expect(first.children.map((s) => s.label)).toEqual(['UserPromptSubmit', 'TurnStart', 'Step 1', 'InterruptReceived', 'TurnEnd']);
    // No TurnEnd: the next prompt ends the turn, and says so.
    expect([second.decision, second.open, second.endMs - T0]).toEqual(['unfinished', false, 2002]);
    expect([...tree.walk([second])].filter((s) => s.open)).toEqual([]);
    expect(find(tree, 'Model request · m → 1 tool call').decision).toBe('tool_calls');
    expect(find(tree, 'Model request · m').decision).toBe('unfinished');
    // A blocked prompt's turn: ended by its TurnEnd, or (older logs, which have none) by the next prompt.
    expect([third.decision, third.badge, third.open, third.endMs - T0, third.children.map((s) => s.label)]).toEqual([
      'blocked',
      'block',
      false,
      3006,
      ['UserPromptSubmit', 'TurnEnd'],
    ]);
    expect([fourth.decision, fourth.badge, fourth.open]).toEqual(['blocked', 'block', false]);
  });

  it('leaves the running turn open at the end of a live log, and later batches extend it', () => {
    const records = oneTurn().records;
    const cut = records.findIndex((r) => r.type === 'event' && r.event === 'PostToolUse');
    const tree = new TraceTree();
    tree.add(records.slice(0, cut));
    const turn = tree.roots[0];
    const tool = find(tree, 'Bash · npm test');
    expect([turn.open, tool.open, turn.endMs - T0]).toEqual([true, true, 462]);
    const version = tree.version;
    tree.add(records.slice(cut));
    expect(tree.version).toBe(version + 1);
    expect([turn.open, tool.open, turn.endMs - T0, tool.endMs - T0]).toEqual([false, false, 1841, 1500]);
  });

  it('spans a permission ask until the answer, and marks the call with the final decision', () => {
    const log = new Log();
    log.event(0, 'UserPromptSubmit', { prompt: 'push' });
    log.event(1, 'BeforeLLM', { step: 1, llm_request: {} });
    log.event(2, 'PreToolUse', { tool_name: 'Bash', tool_use_id: 'c9', tool_input: { command: 'git push' } });
    log.permission(3, 'c9', 'ask', 'rule Bash(git push:*)');
    log.event(4, 'PermissionRequest', { tool_name: 'Bash', tool_use_id: 'c9' }, [['approver', 'none', 2]]);
    log.permission(5000, 'c9', 'deny', 'user');
    log.event(5001, 'PermissionDenied', { tool_name: 'Bash', tool_use_id: 'c9', reason: 'user' });
    const tree = new TraceTree();
    tree.add(log.records);
    const ask = find(tree, 'Permission · Bash');
    expect([ask.startMs - T0, ask.endMs - T0, ask.decision, ask.badge, ask.open, ask.record?.seq]).toEqual([
      3,
      5000,
      'deny',
      'deny',
      false,
      8,
    ]);
    const tool = find(tree, 'Bash · git push');
    expect(tool.children.map((s) => s.label)).toEqual(['PreToolUse', 'Permission · Bash', 'PermissionRequest', 'PermissionDenied']);
    expect([tool.decision, tool.badge, tool.open]).toEqual(['denied', 'deny', false]);
  });

  it('nests a subagent under its Task call, with its own steps, beside the main agent', () => {
    const log = new Log();
    log.event(0, 'UserPromptSubmit', { prompt: 'research' });
    log.event(1, 'BeforeLLM', { step: 1, llm_request: {} });
    log.event(2, 'PreToolUse', { tool_name: 'Task', tool_use_id: 't1', tool_input: { description: 'find callers' } });
    log.event(3, 'SubagentStart', { agent_id: 'a1', agent_type: 'explore', prompt: 'find callers' });
    log.event(4, 'BeforeLLM', { agent_id: 'a1', step: 1, llm_request: {} });
    log.event(5, 'PreToolUse', { agent_id: 'a1', tool_name: 'Grep', tool_use_id: 'g1', tool_input: { pattern: 'foo' } }, [
      ['guard', 'allow', 1],
    ]);
    log.event(7, 'PostToolUse', { agent_id: 'a1', tool_name: 'Grep', tool_use_id: 'g1', tool_input: { pattern: 'foo' } });
    log.event(9, 'SubagentStop', { agent_id: 'a1', agent_type: 'explore' });
    log.event(10, 'PostToolUse', { tool_name: 'Task', tool_use_id: 't1', tool_input: { description: 'find callers' } });
    const tree = new TraceTree();
    tree.add(log.records);
    expect(shape(find(tree, 'Task · find callers').children)).toEqual([
      ['PreToolUse', ''],
      [
        'Subagent explore · find callers',
        '',
        ['SubagentStart', ''],
        [
          'Step 1',
          '',
          ['Model request', '', ['BeforeLLM', '']],
          ['Grep · foo', '', ['PreToolUse', '', ['guard', 'allow']], ['PostToolUse', '']],
        ],
        ['SubagentStop', ''],
      ],
      ['PostToolUse', ''],
    ]);
    expect([...tree.walk()].filter((s) => s.open).map((s) => s.label)).toEqual(['Turn 1 · research', 'Step 1', 'Model request']);
  });

  it('nests a subagent only under a call of a tool that runs one, not under any tool whose name starts with Task', () => {
    const log = new Log();
    log.event(0, 'UserPromptSubmit', { prompt: 'research' });
    log.event(1, 'BeforeLLM', { step: 1, llm_request: {} });
    log.event(2, 'PreToolUse', { tool_name: 'TaskList', tool_use_id: 'm1', tool_input: { description: 'list' } });
    log.event(3, 'PreToolUse', { tool_name: 'Agent', tool_use_id: 'm2', tool_input: { description: 'other' } });
    log.event(4, 'SubagentStart', { agent_id: 'a1', agent_type: 'explore' });
    const tree = new TraceTree();
    tree.add(log.records);
    expect(find(tree, 'Subagent explore').parent?.label).toBe('Step 1');
    expect(find(tree, 'TaskList · list').children.map((s) => s.label)).toEqual(['PreToolUse']);
  });

  it('lets an async hook run reported later sit under its event without stretching it, and keeps the slowest runs', () => {
    const log = new Log();
    const id = log.event(0, 'PostToolUse', { tool_name: 'Edit' }, [['fmt', 'none', 10]]);
    for (let i = 0; i < SLOWEST_COUNT + 5; i++) log.event(100 + i, 'Notification', {}, [[`n${i}`, 'none', i + 1]]);
    log.hookRun(60_000, id, 'PostToolUse', 'indexer', 'none', 59_000, { async: true });
    const tree = new TraceTree();
    tree.add(log.records);
    const event = tree.roots[0];
    expect(event.children.map((s) => [s.label, s.async])).toEqual([
      ['fmt', false],
      ['indexer', true],
    ]);
    expect(event.endMs - T0).toBe(10);
    // The slowest 20: the async run, n24 … n10 (25 … 11 ms), fmt and n9 (10 ms), n8 and n7.
    expect(tree.slowThresholdMs).toBe(8);
  });
});
