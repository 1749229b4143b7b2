import { describe, expect, it } from 'vitest';
import type { HookEventName } from '../../src/core/hooks/events';
import type { HookDefinition } from '../../src/core/hooks/types';
import { makeEngine } from '../support/hook-fixtures';

const hook = (event: HookEventName, spec: HookDefinition['spec'], timeoutMs?: number): HookDefinition => ({
  id: 'h',
  name: 'h',
  event,
  priority: 0,
  enabled: true,
  source: { kind: 'hooksJson' },
  spec,
  timeoutMs,
});
const command = { type: 'command', command: 'npm test' } as const;
const http = { type: 'http', url: 'http://127.0.0.1:9/hook' } as const;

describe("default hook timeouts (Claude Code's)", () => {
  it('give command and http hooks 600 s, and 30 s on UserPromptSubmit', () => {
    const { dispatcher } = makeEngine();
    expect(dispatcher.timeoutFor(hook('Stop', command))).toBe(600_000);
    expect(dispatcher.timeoutFor(hook('PreToolUse', http))).toBe(600_000);
    expect(dispatcher.timeoutFor(hook('SessionEnd', http))).toBe(600_000);
    expect(dispatcher.timeoutFor(hook('UserPromptSubmit', command))).toBe(30_000);
    expect(dispatcher.timeoutFor(hook('UserPromptSubmit', http))).toBe(30_000);
  });

  it("yield to defaults.commandTimeoutMs and to the hook's own timeout", () => {
    const { dispatcher } = makeEngine({ timeouts: { commandMs: 45_000 } });
    expect(dispatcher.timeoutFor(hook('Stop', command))).toBe(45_000);
    expect(dispatcher.timeoutFor(hook('UserPromptSubmit', http))).toBe(45_000);
    expect(dispatcher.timeoutFor(hook('Stop', command, 1_000))).toBe(1_000);
  });

  it("leave rpc and builtin hooks on their kind's defaults", () => {
    const { dispatcher } = makeEngine();
    expect(dispatcher.timeoutFor(hook('PreToolUse', { type: 'rpc', server: 's', mode: 'intercept' }))).toBe(5_000);
    expect(dispatcher.timeoutFor(hook('PostCompact', { type: 'builtin', builtin: 'Metrics' }))).toBe(500);
  });
});
