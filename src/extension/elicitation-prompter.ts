import * as vscode from 'vscode';
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
  type ElicitationValue,
} from '../core/mcp/elicitation-content';
import { showInformation } from './notifications';
import { showInputBox, showQuickPick } from './quick-inputs';

const ANSWER = 'Answer…';
const DECLINE = 'Decline';
const YES = 'Yes';
const NO = 'No';
const SKIP = '(skip)';

function problemOf(field: ElicitationField, text: string): string | undefined {
  if (text === '' && !field.required) return undefined;
  const value = typedFieldValue(field, text);
  if (value === undefined) return `Not ${field.type === 'integer' ? 'an integer' : 'a number'}`;
  // It may name the server's choices.
  const problem = fieldValueProblem(field, value);
  return problem && visibleText(problem);
}

/**
 * Asks the person to fill in an MCP server's form: a modal with the server's message (escaped:
 * it is the server's text) and Answer / Decline; then one quick pick or input box per field
 * (quick-inputs.ts: the server's links and icons stay text), each checked against the form
 * before it is taken. Escape, or the call's cancel, cancels.
 */
export class ElicitationModal implements ElicitationPrompter {
  async ask(request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> {
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const choice = await showInformation(
        `MCP server "${visibleText(request.server)}" asks for input`,
        { modal: true, detail: visibleText(request.message) },
        ANSWER,
        DECLINE,
      );
      if (signal.aborted || choice === undefined) return { action: 'cancel' };
      if (choice === DECLINE) return { action: 'decline' };
      const content: ElicitationContent = {};
      for (const field of elicitationFields(request.requestedSchema)) {
        const value = await this.askField(request, field, cancel.token);
        if (signal.aborted || value === 'cancel') return { action: 'cancel' };
        if (value !== undefined) content[field.name] = value;
      }
      return { action: 'accept', content };
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  /** The field's value; undefined when it was skipped, 'cancel' when the person pressed Escape. */
  private async askField(
    request: ElicitationRequest,
    field: ElicitationField,
    token: vscode.CancellationToken,
  ): Promise<ElicitationValue | undefined | 'cancel'> {
    const title = `${visibleText(request.server)}: ${visibleText(field.title ?? field.name)}${field.required ? '' : ' (optional)'}`;
    const placeHolder = field.description && visibleText(field.description);
    if (field.type === 'boolean' || (field.type === 'string' && field.choices)) {
      const labels = field.type === 'boolean' ? [YES, NO] : (field.choices ?? []).map(visibleText);
      const items = [...labels, ...(field.required ? [] : [SKIP])].map((label) => ({ label }));
      const picked = await showQuickPick(items, { title, placeHolder, ignoreFocusOut: true }, token);
      if (picked === undefined) return 'cancel';
      if (picked.label === SKIP) return undefined;
      if (field.type === 'boolean') return picked.label === YES;
      return field.choices?.[labels.indexOf(picked.label)];
    }
    const hint =
      field.type === 'array' ? `comma-separated${field.choices ? `: ${field.choices.map(visibleText).join(', ')}` : ''}` : field.type;
    const text = await showInputBox(
      {
        title,
        prompt: placeHolder ?? hint,
        placeHolder: hint,
        password: isTypedCredential(field),
        ignoreFocusOut: true,
        validateInput: (typed) => problemOf(field, typed),
      },
      token,
    );
    if (text === undefined) return 'cancel';
    if (text === '' && !field.required) return undefined;
    // The box validates as the person types; a host that does not is checked here.
    return problemOf(field, text) === undefined ? typedFieldValue(field, text) : 'cancel';
  }
}
