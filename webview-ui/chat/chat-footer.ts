import type { ChatViewState } from '../../src/shared/chat-reducer';
import { formatCount, h, icon, setText } from '../common/dom';

/** Model name, token usage and a working indicator. */
export class ChatFooter {
  readonly el: HTMLElement;
  private readonly model = h('span', { class: 'footer-model', attrs: { 'data-testid': 'footer-model' } });
  private readonly usage = h('span', { class: 'footer-usage', attrs: { 'data-testid': 'footer-usage' } });
  private readonly workingText = h('span', { attrs: { 'data-testid': 'footer-working' } }, 'Working…');
  private readonly working = h('span', { class: 'footer-working' }, icon('loading', 'codicon-modifier-spin'), ' ', this.workingText);

  constructor() {
    this.el = h('footer', { class: 'chat-footer' }, icon('hubot'), this.model, this.working, h('span', { class: 'spacer' }), this.usage);
  }

  update(status: ChatViewState['status']): void {
    const model = status?.model;
    setText(this.model, !model ? 'Connecting…' : model.configured ? model.name : 'No model');
    this.model.title = model?.configured ? (model.endpoint ?? model.name) : '';
    this.working.hidden = !status?.busy && !status?.activity;
    // A running hook's statusMessage says what the wait is for.
    setText(this.workingText, status?.activity ?? 'Working…');
    const usage = status?.usage;
    setText(this.usage, usage && usage.totalTokens > 0 ? `${formatCount(usage.totalTokens)} tokens` : '');
    this.usage.title = usage ? `${usage.promptTokens.toLocaleString()} in · ${usage.completionTokens.toLocaleString()} out` : '';
  }
}
