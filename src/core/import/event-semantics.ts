import { processHookTimeoutMs } from '../hooks/hook-timeouts';
import { EVENT_INFO, type HookEventName } from '../hooks/events';

/** What exit code 2 does on the events where it blocks (Claude Code's table, docs/hooks.md#command-hooks). */
const EXIT2_EFFECT: Partial<Record<HookEventName, string>> = {
  UserPromptSubmit: 'blocks the prompt',
  BeforeLLM: 'aborts the turn',
  AfterLLM: 'aborts the turn',
  PreToolUse: 'denies the tool call',
  PostToolUse: 'feeds stderr back to the agent as a blocking reason',
  PostToolUseFailure: 'feeds stderr back to the agent',
  Stop: 'keeps the agent working, with stderr as its next instruction',
  SubagentStop: 'keeps the subagent working',
  PreCompact: 'blocks the compaction',
};

/** A change when exit code 2 blocks on `event` in Hookpilot but `elsewhere` describes something milder. */
export function exit2Difference(event: HookEventName, elsewhere: string): string | undefined {
  if (!EVENT_INFO[event].exit2Blocks) return undefined;
  return `exit code 2 ${elsewhere}; in Hookpilot it ${EXIT2_EFFECT[event] ?? 'blocks'}`;
}

export const HOOKPILOT_COMMAND_TIMEOUT_S = processHookTimeoutMs('Stop') / 1000;

/** Hookpilot's default timeout for a hook of this type on this event, in words. */
export function hookpilotDefault(type: 'command' | 'http', event: HookEventName): string {
  return `Hookpilot's default for ${type} hooks on ${event} is ${processHookTimeoutMs(event) / 1000} s unless \`defaults.commandTimeoutMs\` says otherwise`;
}

/**
 * Claude Code's timeout for a command or http hook without one, written out so that a
 * `defaults.commandTimeoutMs` of the workspace does not shorten it. SessionEnd has a shared budget instead.
 */
export function claudeDefaultTimeout(event: HookEventName): number | undefined {
  if (event === 'SessionEnd') return undefined;
  return event === 'UserPromptSubmit' ? 30 : 600;
}
