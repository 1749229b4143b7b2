import type { AgentEvent } from '../../core/agent/agent-events';
import type { Output, OutputRedactor, RunPrinter } from './printer';
import type { RunResult } from './run-result';
import { streamJsonLine, type StreamContext } from './stream-json-events';

/** `--output-format stream-json`: one JSON object per line as things happen, the result last, secrets redacted. */
export class StreamJsonPrinter implements RunPrinter {
  constructor(
    private readonly out: Output,
    private readonly context: StreamContext,
    private readonly redactor: OutputRedactor,
  ) {}

  event(event: AgentEvent): void {
    this.out.write(`${JSON.stringify(this.redactor.redactForSerialization(streamJsonLine(event, this.context)))}\n`);
  }

  result(result: RunResult): void {
    this.out.write(`${JSON.stringify(this.redactor.redactForSerialization(result))}\n`);
  }
}
