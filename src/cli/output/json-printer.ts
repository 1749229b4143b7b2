import type { AgentEvent } from '../../core/agent/agent-events';
import type { Output, OutputRedactor, RunPrinter } from './printer';
import type { RunResult } from './run-result';

/** `--output-format json`: nothing while the agent works, one JSON object at the end, secrets redacted. */
export class JsonPrinter implements RunPrinter {
  constructor(
    private readonly out: Output,
    private readonly err: Output,
    private readonly redactor: OutputRedactor,
  ) {}

  event(event: AgentEvent): void {
    if (event.type === 'notice' && event.level !== 'info')
      this.err.write(`hookpilot: ${event.level}: ${this.redactor.redactText(event.message)}\n`);
  }

  result(result: RunResult): void {
    this.out.write(`${JSON.stringify(this.redactor.redactForSerialization(result), null, 2)}\n`);
  }
}
