import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { ApprovalView } from '../../src/shared/manager-views';
import { APPROVAL_BUTTONS, approvalButtons, ruleNote } from '../../src/shared/approval-buttons';
import { h, icon } from '../common/dom';

function ago(iso: string): string {
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  if (!Number.isFinite(seconds)) return '';
  if (seconds < 60) return `${seconds} s ago`;
  return `${Math.round(seconds / 60)} min ago`;
}

/** Permission prompts waiting for a person; the modal answers the same requests, the first answer wins. */
export class ApprovalsTab {
  readonly el: HTMLElement;
  private readonly list = h('div', { class: 'approvals' });
  private readonly empty = h('div', { class: 'approvals-empty muted', text: 'Nothing is waiting for your approval.' });

  constructor(private readonly post: (message: ManagerToHost) => void) {
    this.list.addEventListener('click', (event) => {
      const diff = (event.target as Element | null)?.closest<HTMLElement>('[data-action="show-diff"]');
      const diffOf = diff?.closest<HTMLElement>('[data-approval-id]')?.dataset.approvalId;
      if (diffOf) {
        event.preventDefault();
        this.post({ type: 'showDiff', id: diffOf });
        return;
      }
      const target = (event.target as Element | null)?.closest<HTMLElement>('[data-choice]');
      const card = target?.closest<HTMLElement>('[data-approval-id]');
      if (!target || !card || target.hasAttribute('disabled')) return;
      const choice = APPROVAL_BUTTONS.find((c) => c.choice === target.dataset.choice)?.choice;
      const id = card.dataset.approvalId;
      const key = card.dataset.approvalKey;
      if (!choice || !id || !key) return;
      card.classList.add('is-answered');
      card.querySelectorAll('vscode-button').forEach((b) => b.setAttribute('disabled', ''));
      this.post({ type: 'answerApproval', id, key, choice });
    });
    this.el = h('div', { class: 'tab-panel approvals-tab' }, this.list, this.empty);
  }

  setPending(pending: readonly ApprovalView[]): void {
    this.empty.hidden = pending.length > 0;
    this.list.replaceChildren(...pending.map((a) => this.card(a)));
  }

  private card(a: ApprovalView): HTMLElement {
    const buttons = approvalButtons(a.choices, a.suggestedRule).map((c) => {
      const el = document.createElement('vscode-button');
      el.textContent = c.label;
      if (c.title) el.title = c.title;
      if (c.secondary) el.setAttribute('secondary', '');
      el.dataset.choice = c.choice;
      return el;
    });
    const note = ruleNote(a.choices, a.suggestedRule);
    return h(
      'div',
      { class: 'approval-card', attrs: { 'data-approval-id': a.id, 'data-approval-key': a.key, 'data-testid': 'approval-card' } },
      h(
        'div',
        { class: 'approval-head' },
        icon('shield'),
        a.replay &&
          h('span', {
            class: 'badge approval-replay',
            text: 'Replay',
            title: 'Asked by a replay of a recorded session, in a scratch copy of the workspace',
          }),
        h('strong', { text: ` ${a.toolName}` }),
        h('span', { class: 'spacer' }),
        h('span', { class: 'muted', text: ago(a.createdAt) }),
      ),
      h('div', { class: 'approval-subject mono', text: a.subject }),
      a.proposedDiff &&
        h(
          'a',
          { class: 'approval-diff', attrs: { href: '#', role: 'button', 'data-action': 'show-diff', 'data-testid': 'approval-diff' } },
          icon('diff'),
          ' Show diff',
        ),
      h('div', { class: 'approval-reason', text: a.reason }),
      h('div', {
        class: 'muted approval-meta',
        text: `Asked by ${a.askedBy} · session ${a.sessionId}${a.system ? ' · protected: only a person can allow this, once' : ''}${a.replay ? ' · a replay in a scratch copy: an allow lasts for the replay only' : ''}`,
      }),
      note && h('div', { class: 'approval-rule', text: note }),
      h('div', { class: 'approval-buttons' }, ...buttons),
    );
  }
}
