import { MAX_PROMPT_CHARS } from '../../src/shared/chat-protocol';
import { h } from '../common/dom';

export interface ComposerActions {
  send(text: string): void;
  cancel(): void;
}

const MAX_HEIGHT_PX = 200;

/**
 * The prompt box: Enter sends, Shift+Enter adds a line, Escape cancels a running turn. While
 * the agent works, Enter queues the message: the agent reads it after its current step.
 */
export class Composer {
  readonly el: HTMLElement;
  private readonly input: HTMLTextAreaElement;
  private readonly sendButton: HTMLElement;
  private readonly cancelButton: HTMLElement;
  /** Says why Enter did nothing (restored text can make the prompt longer than it may be). */
  private readonly hint: HTMLElement;
  private busy = false;
  private usable = true;

  constructor(private readonly actions: ComposerActions) {
    this.input = h('textarea', {
      class: 'composer-input',
      attrs: {
        rows: '1',
        placeholder: 'Ask Hookpilot…',
        title: 'Enter sends, Shift+Enter adds a line',
        'aria-label': 'Message',
        maxlength: String(MAX_PROMPT_CHARS),
        'data-testid': 'composer-input',
      },
    });
    this.input.addEventListener('keydown', (event) => this.onKey(event));
    this.input.addEventListener('input', () => {
      this.grow();
      this.hint.hidden = true;
    });
    this.sendButton = this.iconButton('send', 'Send (Enter)', 'send', () => this.submit());
    this.cancelButton = this.iconButton('debug-stop', 'Cancel (Escape)', 'cancel', () => this.actions.cancel());
    this.hint = h('div', { class: 'composer-hint', attrs: { role: 'status', 'data-testid': 'composer-hint' } });
    this.hint.hidden = true;
    this.el = h(
      'div',
      { class: 'composer-area' },
      this.hint,
      h('div', { class: 'composer' }, this.input, h('div', { class: 'composer-buttons' }, this.sendButton, this.cancelButton)),
    );
    this.render();
  }

  setState(busy: boolean, usable: boolean): void {
    if (busy === this.busy && usable === this.usable) return;
    this.busy = busy;
    this.usable = usable;
    this.render();
  }

  focus(): void {
    this.input.focus();
  }

  /** Puts text that was never sent back in the box, ahead of whatever is being typed. */
  restore(text: string): void {
    const draft = this.input.value.trim();
    this.input.value = draft ? `${text}\n\n${draft}` : text;
    this.grow();
    this.input.focus();
  }

  private iconButton(iconName: string, label: string, testId: string, onClick: () => void): HTMLElement {
    const el = document.createElement('vscode-button');
    el.setAttribute('icon', iconName);
    el.setAttribute('aria-label', label);
    el.title = label;
    el.dataset.testid = testId;
    el.addEventListener('click', () => {
      if (!el.hasAttribute('disabled')) onClick();
    });
    return el;
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing && !event.altKey && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      this.submit();
    } else if (event.key === 'Escape' && this.busy) {
      event.preventDefault();
      this.actions.cancel();
    }
  }

  private submit(): void {
    const text = this.input.value.trim();
    if (!text || !this.usable) return;
    if (text.length > MAX_PROMPT_CHARS) {
      this.hint.textContent = `Too long to send: ${text.length.toLocaleString('en-US')} characters, at most ${MAX_PROMPT_CHARS.toLocaleString('en-US')}.`;
      this.hint.hidden = false;
      return;
    }
    this.actions.send(text);
    this.input.value = '';
    this.grow();
  }

  private grow(): void {
    this.input.style.height = 'auto';
    this.input.style.height = `${Math.min(this.input.scrollHeight, MAX_HEIGHT_PX)}px`;
  }

  private render(): void {
    this.cancelButton.hidden = !this.busy;
    this.sendButton.title = this.busy ? 'Queue for the agent (Enter): it reads this after its current step' : 'Send (Enter)';
    this.input.placeholder = this.busy ? 'Tell the agent more while it works…' : 'Ask Hookpilot…';
    this.sendButton.toggleAttribute('disabled', !this.usable);
    this.input.disabled = !this.usable;
  }
}
