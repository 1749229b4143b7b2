import type { AgentEvent } from './agent-events';

/**
 * Claude Code shows a hook's `systemMessage` to the user on every event, and its warnings (a
 * failed hook's stderr, exit 2 where it blocks nothing): each becomes a notice. Tool events
 * pass no warnings, which their cards show.
 */
export function showHookMessages(
  emit: (event: AgentEvent) => void,
  systemMessages: readonly string[],
  warnings: readonly string[] = [],
): void {
  for (const message of systemMessages) emit({ type: 'notice', level: 'info', message, source: 'hook' });
  for (const message of warnings) emit({ type: 'notice', level: 'warning', message, source: 'hook' });
}
