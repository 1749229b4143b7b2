import type { SessionEntry } from '../../src/shared/chat-protocol';
import { h, toolbarButton } from '../common/dom';

export interface ChatHeaderActions {
  newChat(): void;
  resume(sessionId: string): void;
  openHookManager(): void;
}

/** Session picker, New Chat and the Hook Manager button. */
export class ChatHeader {
  readonly el: HTMLElement;
  private readonly picker = document.createElement('vscode-single-select');
  private shown: { list: readonly SessionEntry[]; currentId: string | undefined } = { list: [], currentId: undefined };

  constructor(actions: ChatHeaderActions) {
    this.picker.className = 'session-picker';
    this.picker.dataset.testid = 'session-picker';
    this.picker.title = 'Resume an earlier session';
    this.picker.addEventListener('change', () => {
      const id = this.picker.value;
      if (id && id !== this.shown.currentId) actions.resume(id);
    });
    this.el = h(
      'header',
      { class: 'chat-header' },
      this.picker,
      h('span', { class: 'spacer' }),
      toolbarButton('add', 'New chat', () => actions.newChat(), 'new-chat'),
      toolbarButton('checklist', 'Open Hook Manager', () => actions.openHookManager(), 'open-manager'),
    );
    this.update([], undefined);
  }

  update(list: readonly SessionEntry[], currentId: string | undefined): void {
    if (this.shown.list === list && this.shown.currentId === currentId) return;
    this.shown = { list, currentId };
    const options = list.map((s) => {
      const option = document.createElement('vscode-option');
      option.value = s.id;
      option.textContent = s.title || 'Untitled session';
      option.description = `${new Date(s.startedAt).toLocaleString()}${s.turns !== undefined ? ` · ${s.turns} turns` : ''}`;
      option.selected = s.id === currentId;
      return option;
    });
    if (currentId === undefined || !list.some((s) => s.id === currentId)) {
      const fresh = document.createElement('vscode-option');
      fresh.value = '';
      fresh.textContent = 'New session';
      fresh.selected = true;
      options.unshift(fresh);
    }
    this.picker.replaceChildren(...options);
    this.picker.value = currentId ?? '';
  }
}
