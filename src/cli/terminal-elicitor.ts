import { visibleText } from '../core/agent/permissions/approval-text';
import {
  elicitationFields,
  fieldValueProblem,
  isTypedCredential,
  typedFieldValue,
  type ElicitationAnswer,
  type ElicitationContent,
  type ElicitationField,
  type ElicitationPrompter,
  type ElicitationRequest,
} from '../core/mcp/elicitation-content';
import type { Output } from './output/printer';
import type { TerminalApprover } from './terminal-approver';

/** What a line that cannot be read as a field's value is not. */
const NOT_A: Record<ElicitationField['type'], string> = {
  boolean: 'yes or no',
  number: 'a number',
  integer: 'an integer',
  array: 'a list',
  string: 'text',
};

function fieldPrompt(field: ElicitationField): string {
  const hints = [
    field.type === 'array' ? 'comma-separated' : field.type,
    ...(field.choices ? [`one of ${field.choices.map(visibleText).join(', ')}`] : []),
    field.required ? 'required' : 'Enter to skip',
  ];
  const label = visibleText(field.title ?? field.name);
  const description = field.description ? ` ${visibleText(field.description)}` : '';
  return `  ${label}${description} (${hints.join('; ')}): `;
}

/**
 * Asks the person at the terminal to fill in an MCP server's form: the server's message
 * (escaped, as it is the server's text), then [a]nswer / [d]ecline / [c]ancel, then each field
 * until its value fits, a credential's unseen. End of input, or the call's cancel, is a cancel.
 */
export class TerminalElicitor implements ElicitationPrompter {
  constructor(
    private readonly terminal: TerminalApprover,
    private readonly output: Output,
  ) {}

  ask(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    return this.terminal.converse(signal, async (line) => {
      this.output.write(`\nMCP server "${visibleText(request.server)}" asks for input:\n  ${visibleText(request.message)}\n`);
      for (;;) {
        const choice = (await line('Answer? [a]nswer / [d]ecline / [c]ancel: '))?.trim().toLowerCase();
        if (choice === undefined || choice === 'c' || choice === 'cancel') return { action: 'cancel' };
        if (choice === 'd' || choice === 'decline') return { action: 'decline' };
        if (choice === 'a' || choice === 'answer') break;
      }
      const content: ElicitationContent = {};
      for (const field of elicitationFields(request.requestedSchema)) {
        for (;;) {
          const typed = await line(fieldPrompt(field), isTypedCredential(field));
          if (typed === undefined) return { action: 'cancel' };
          if (typed === '' && !field.required) break;
          const value = typedFieldValue(field, typed);
          const problem = value === undefined ? `is not ${NOT_A[field.type]}` : fieldValueProblem(field, value);
          if (value !== undefined && problem === undefined) {
            content[field.name] = value;
            break;
          }
          this.output.write(`  That ${problem}.\n`);
        }
      }
      return { action: 'accept', content };
    });
  }
}
