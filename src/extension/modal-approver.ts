import * as vscode from 'vscode';
import { offeredChoices } from '../core/agent/permissions/approval-choices';
import { approvalSubject, visibleRule, visibleText } from '../core/agent/permissions/approval-text';
import type { ApprovalAnswer, ApprovalChoice, ApprovalRequest, Approver } from '../core/agent/permissions/permission-settings';
import { isFileEditTool } from '../core/agent/tools/tool-catalog';
import { isReplaySession } from '../core/audit/session-kinds';
import type { DiffPreviews } from './diff-previews';
import type { PendingApprovals } from './pending-approvals';
import { showWarning } from './notifications';

export const APPROVAL_LABELS: Record<ApprovalChoice, string> = {
  'allow-once': 'Allow once',
  'allow-session': 'Allow for this session',
  'allow-always': 'Always allow in this workspace',
  'deny-session': 'Deny for this session',
  deny: 'Deny',
};
export const SHOW_DIFF_LABEL = 'Show Diff';

interface ModalItem extends vscode.MessageItem {
  choice?: ApprovalChoice;
}

function modalItems(request: ApprovalRequest): ModalItem[] {
  // Deny is the close affordance: Escape denies, and no Cancel button is added.
  const items: ModalItem[] = offeredChoices(request).map((choice) => ({
    title: APPROVAL_LABELS[choice],
    choice,
    isCloseAffordance: choice === 'deny',
  }));
  if (isFileEditTool(request.toolName)) items.push({ title: SHOW_DIFF_LABEL });
  return items;
}

/** The model's text escaped, and the command whole: a modal shows it as plain text (approval-text.ts). */
function modalDetail(request: ApprovalRequest): string {
  const lines = [approvalSubject(request), '', `Asked by ${visibleText(request.askedBy)}: ${visibleText(request.reason)}`];
  if (request.system) lines.push('', 'This changes a hook configuration or hook script: only a person can allow it, once.');
  else if (isReplaySession(request.sessionId))
    lines.push(
      '',
      `A replay of a recorded session asks this, in a scratch copy of the workspace. "Allow for this session" adds the rule ${visibleRule(request.suggestedRule)} to the replay only.`,
    );
  else lines.push('', `"Allow for this session" and "Always allow in this workspace" add the rule ${visibleRule(request.suggestedRule)}.`);
  return lines.join('\n');
}

/**
 * The extension's Approver: every request is listed in PendingApprovals (so the chat and
 * the Hook Manager can answer it too) and asked in a modal, one modal at a time. "Show
 * Diff" opens the edit's diff and asks again. Whoever answers first wins; a modal that
 * lost the race is ignored when it finally returns (VS Code cannot close a modal).
 */
export class ModalApprover implements Approver {
  private modals: Promise<void> = Promise.resolve();

  constructor(
    private readonly pending: PendingApprovals,
    private readonly diffs: DiffPreviews,
    /** The workspace root a relative file path resolves against. */
    private readonly root: () => string,
    /** hookpilot.approvalTimeoutSeconds: no answer by then is a deny. */
    private readonly timeoutMs: () => number,
  ) {}

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const answer = this.pending.add(request, signal, this.timeoutMs());
    this.modals = this.modals.then(() => this.ask(request)).catch(() => undefined);
    return answer;
  }

  private async ask(request: ApprovalRequest): Promise<void> {
    while (this.pending.get(request.id)?.request === request) {
      const picked = await showWarning(
        `${isReplaySession(request.sessionId) ? 'Replay: ' : ''}Hookpilot wants to use ${request.toolName}`,
        { modal: true, detail: modalDetail(request) },
        ...modalItems(request),
      );
      if (this.pending.get(request.id)?.request !== request) return;
      if (picked?.title === SHOW_DIFF_LABEL) {
        await this.diffs.showProposed(request.toolName, request.input, this.root());
        continue;
      }
      this.pending.answer(request.id, picked?.choice ?? 'deny', 'user');
      return;
    }
  }
}
