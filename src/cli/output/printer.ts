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
