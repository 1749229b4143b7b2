import type { AgentEvent } from '../../core/agent/agent-events';
import type { RunResult } from './run-result';

export const OUTPUT_FORMATS = ['text', 'json', 'stream-json'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Where `hookpilot run` sends what happens: every agent and hook event, then the result. */
export interface RunPrinter {
  event(event: AgentEvent): void;
  result(result: RunResult): void;
}

export interface Output {
  write(text: string): void;
}

/**
 * The engine's secret registry: the output carries tool output, hook reasons and messages and
 * (stream-json) raw hook stdout and stderr, so every string is redacted as in the audit log.
 */
export interface OutputRedactor {
  redactText(text: string): string;
  redactForSerialization(value: unknown): unknown;
}
