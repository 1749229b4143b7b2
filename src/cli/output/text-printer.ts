import type { AgentEvent, HookAnnotation } from '../../core/agent/agent-events';
import { visibleText } from '../../core/agent/permissions/approval-text';
import { clip, summarizeToolCall } from '../../core/agent/tool-summary';
import type { Output, OutputRedactor, RunPrinter } from './printer';

/**
 * `--output-format text`: the assistant's words as they stream, and one line per tool
 * call with what happened to it and which hook blocked it. Notices go to stderr. Tool
 * lines and notices (which quote tool output and hook reasons) are redacted, and kept to one
 * line each: a call's line may print while another call's approval question waits, and a line
 * break in its text would let it draw a question of its own below the real one.
 */
export class TextPrinter implements RunPrinter {
  private atLineStart = true;

  constructor(
    private readonly out: Output,
    private readonly err: Output,
    private readonly redactor: OutputRedactor,
  ) {}

  event(event: AgentEvent): void {
    switch (event.type) {
      case 'text_delta':
        this.write(event.text);
        return;
      case 'tool_finished':
        this.line(
          visibleText(
            this.redactor.redactText(
              `[${event.name}] ${summarizeToolCall(event.name, event.input)} -> ${describeOutcome(event.outcome, event.output, event.hooks)} (${Math.round(event.durationMs)} ms)`,
            ),
          ),
        );
        return;
      case 'notice':
        this.err.write(
          `hookpilot: ${event.level === 'info' ? '' : `${event.level}: `}${visibleText(this.redactor.redactText(event.message))}\n`,
        );
        return;
      case 'compacted':
        this.err.write(`hookpilot: compacted the conversation (${event.messagesBefore} -> ${event.messagesAfter} messages)\n`);
        return;
      case 'turn_ended':
        if (!this.atLineStart) this.write('\n');
        return;
      default:
        return;
    }
  }

  result(): void {
    if (!this.atLineStart) this.write('\n');
  }

  private line(text: string): void {
    if (!this.atLineStart) this.write('\n');
    this.write(`${text}\n`);
  }

  private write(text: string): void {
    if (text === '') return;
    this.out.write(text);
    this.atLineStart = text.endsWith('\n');
  }
}

function describeOutcome(outcome: string, output: string, hooks: readonly HookAnnotation[]): string {
  const firstLine = clip(output.split('\n')[0] ?? '', 160);
  switch (outcome) {
    case 'blocked': {
      const by = hooks.find((h) => h.kind === 'blocked' || h.kind === 'denied');
      return by
        ? `blocked by hook "${by.hookName}" (${by.event})${by.detail ? `: ${clip(by.detail.split('\n')[0], 160)}` : ''}`
        : `blocked: ${firstLine}`;
    }
    case 'denied':
      return `denied: ${firstLine}`;
    case 'failed':
      return `failed: ${firstLine}`;
    case 'skipped':
      return `not run: ${firstLine}`;
    default:
      return 'executed';
  }
}
