import * as vscode from 'vscode';
import { offeredChoice } from '../core/agent/permissions/approval-choices';
import type { ApprovalAnswer, ApprovalChoice, ApprovalRequest } from '../core/agent/permissions/permission-settings';
import { Disposable } from './lifecycle';

export interface PendingApproval {
  request: ApprovalRequest;
  createdAt: Date;
}

interface Entry extends PendingApproval {
  resolve: (answer: ApprovalAnswer) => void;
}

/**
 * The permission prompts waiting for a person. The modal, the chat's inline buttons and
 * the Hook Manager's Approvals tab all answer through here: the first answer wins, later
 * ones are ignored. A request leaves when answered or when its signal aborts (the turn
 * was cancelled, or the approval timed out in the agent).
 */
export class PendingApprovals extends Disposable {
  private readonly entries = new Map<string, Entry>();
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  /**
   * Registers `request`. The promise settles with the first answer; with a deny when
   * nobody answers within `timeoutMs` (marked timedOut, so PermissionDenied says Timeout);
   * or with a deny when `signal` aborts first.
   */
  add(request: ApprovalRequest, signal: AbortSignal, timeoutMs: number): Promise<ApprovalAnswer> {
    return new Promise<ApprovalAnswer>((resolve) => {
      if (signal.aborted) {
        resolve({ choice: 'deny', by: 'cancel', reason: 'the request was withdrawn before anyone could answer' });
        return;
      }
      if (this.entries.has(request.id)) {
        // The model picks call ids (a subagent's, a replay's recording): one id is one ask, or an answer could reach the wrong one.
        resolve({ choice: 'deny', by: 'duplicate', reason: `another approval for tool call ${request.id} is waiting` });
        return;
      }
      const withdraw = (answer: ApprovalAnswer) => {
        if (this.entries.get(request.id)?.request !== request) return;
        this.entries.delete(request.id);
        settle(answer);
        this.changed.fire();
      };
      const onAbort = () => withdraw({ choice: 'deny', by: 'cancel', reason: 'the request was withdrawn' });
      const timer = setTimeout(
        () =>
          withdraw({
            choice: 'deny',
            by: 'timeout',
            reason: `no answer within ${timeoutMs >= 1000 ? `${Math.round(timeoutMs / 1000)} s` : `${timeoutMs} ms`}`,
            timedOut: true,
          }),
        timeoutMs,
      );
      const settle = (answer: ApprovalAnswer) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        resolve(answer);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.entries.set(request.id, { request, createdAt: new Date(), resolve: settle });
      this.changed.fire();
    });
  }

  /**
   * Answers request `id`; false when it is no longer pending (someone else answered first), or,
   * given `askId`, when the request pending under `id` is another ask (ApprovalRequest.askId).
   */
  answer(id: string, choice: ApprovalChoice, by: string, askId?: string): boolean {
    const entry = this.entries.get(id);
    if (!entry || (askId !== undefined && entry.request.askId !== askId)) return false;
    this.entries.delete(id);
    const final = offeredChoice(entry.request, choice);
    const denied = final === 'deny' || final === 'deny-session';
    entry.resolve(
      denied
        ? { choice: final, by, reason: by === 'shutdown' ? 'VS Code is closing' : 'the user denied this call' }
        : { choice: final, by },
    );
    this.changed.fire();
    return true;
  }

  get(id: string): PendingApproval | undefined {
    const entry = this.entries.get(id);
    return entry && { request: entry.request, createdAt: entry.createdAt };
  }

  list(): PendingApproval[] {
    return [...this.entries.values()].map(({ request, createdAt }) => ({ request, createdAt }));
  }

  get size(): number {
    return this.entries.size;
  }

  /** Every pending request is denied (the window is closing). */
  override dispose(): void {
    for (const id of [...this.entries.keys()]) this.answer(id, 'deny', 'shutdown');
    super.dispose();
  }
}
