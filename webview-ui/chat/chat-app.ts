import type { ChatItem } from '../../src/shared/chat-items';
import { receiveHostToChat, type ChatToHost, type HostToChat } from '../../src/shared/chat-protocol';
import { applyChatMessage, initialChatState, type ChatViewState } from '../../src/shared/chat-reducer';
import { approvalChoiceSchema } from '../../src/shared/wire-common';
import { h, icon } from '../common/dom';
import { HostChannel } from '../common/host-channel';
import { VirtualList } from '../common/virtual-list';
import { ChatFooter } from './chat-footer';
import { ChatHeader } from './chat-header';
import { Composer } from './composer';
import { estimateItemHeight, renderChatItem } from './item-views';
import { renderSetupPanel } from './setup-panel';

/** How long to wait for the answer to a resync before asking again. */
const RESYNC_RETRY_MS = 2000;

function readSavedSeq(raw: unknown): number | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const seq = (raw as { lastSeq?: unknown }).lastSeq;
  return typeof seq === 'number' && Number.isInteger(seq) && seq >= 0 ? seq : undefined;
}

/**
 * The chat view: folds host messages into state with the shared reducer, asks for a
 * resync on a seq gap, and renders at most once per animation frame.
 */
export class ChatApp {
  private state: ChatViewState = initialChatState();
  private rendered: ChatViewState | undefined;
  private readonly channel = new HostChannel<ChatToHost, HostToChat>();
  private readonly header: ChatHeader;
  private readonly composer: Composer;
  private readonly footer = new ChatFooter();
  private readonly list: VirtualList<ChatItem>;
  private readonly scroller: HTMLElement;
  private readonly setupHost: HTMLElement;
  private readonly welcome: HTMLElement;
  private resyncAskedAt = Number.NEGATIVE_INFINITY;
  private followOnNextRender = true;
  private frame = 0;

  constructor(root: HTMLElement) {
    const post = (message: ChatToHost) => this.channel.post(message);
    this.header = new ChatHeader({
      newChat: () => post({ type: 'newChat' }),
      resume: (sessionId) => post({ type: 'resume', sessionId }),
      openHookManager: () => post({ type: 'openHookManager' }),
    });
    this.composer = new Composer({
      send: (text) => {
        this.followOnNextRender = true;
        post({ type: 'send', text });
      },
      cancel: () => post({ type: 'cancel' }),
    });
    this.scroller = h('div', { class: 'chat-scroller', attrs: { 'data-testid': 'chat-scroller', role: 'log', 'aria-live': 'polite' } });
    this.setupHost = h('div', { class: 'setup-host' });
    this.welcome = h(
      'div',
      { class: 'chat-welcome' },
      icon('hubot'),
      h('p', { text: 'Ask Hookpilot to change, explain or fix code in this workspace.' }),
      h('p', { class: 'muted', text: 'Every prompt and tool call passes through your hooks. Open the Hook Manager to see them run.' }),
    );
    root.replaceChildren(
      h(
        'div',
        { class: 'chat-app' },
        this.header.el,
        h('div', { class: 'chat-main' }, this.scroller, this.welcome, this.setupHost),
        this.composer.el,
        this.footer.el,
      ),
    );
    this.list = new VirtualList<ChatItem>({
      scroller: this.scroller,
      key: (item) => item.id,
      render: renderChatItem,
      estimateHeight: estimateItemHeight,
    });
    this.scroller.addEventListener('click', (event) => this.onListClick(event));
    this.channel.listen(receiveHostToChat, (message) => this.onMessage(message));
    const lastSeq = this.channel.savedState(readSavedSeq) ?? 0;
    post({ type: 'ready', lastSeq });
    this.render();
  }

  private onMessage(message: HostToChat): void {
    if (message.type === 'focus') {
      this.composer.focus();
      return;
    }
    if (message.type === 'restoreDraft') {
      this.composer.restore(message.text);
      this.channel.post({ type: 'draftRestored', id: message.id });
      return;
    }
    this.state = applyChatMessage(this.state, message);
    if (message.type === 'reset') {
      this.resyncAskedAt = Number.NEGATIVE_INFINITY;
      this.followOnNextRender = true;
    }
    if (this.state.outOfSync) this.askForResync();
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.render());
  }

  private askForResync(): void {
    const now = performance.now();
    if (now - this.resyncAskedAt < RESYNC_RETRY_MS) return;
    this.resyncAskedAt = now;
    this.channel.post({ type: 'resync', lastSeq: this.state.lastSeq });
  }

  /** Buttons inside rows act through data attributes, so rows need no listeners of their own. */
  private onListClick(event: MouseEvent): void {
    const target = (event.target as Element | null)?.closest<HTMLElement>('[data-action]');
    if (!target) return;
    const callId = target.dataset.call;
    if (!callId) return;
    if (target.dataset.action === 'show-diff') {
      event.preventDefault();
      this.channel.post({ type: 'showDiff', id: callId });
    } else if (target.dataset.action === 'answer-approval') {
      const choice = approvalChoiceSchema.safeParse(target.dataset.choice);
      const askId = target.dataset.ask;
      if (!choice.success || !askId) return;
      target
        .closest('.tool-approval')
        ?.querySelectorAll('vscode-button')
        .forEach((b) => b.setAttribute('disabled', ''));
      this.channel.post({ type: 'answerApproval', id: callId, askId, choice: choice.data });
    }
  }

  private render(): void {
    this.frame = 0;
    const state = this.state;
    const previous = this.rendered;
    this.rendered = state;
    const model = state.status?.model;
    const configured = model?.configured ?? true;
    if (previous?.items !== state.items) {
      this.list.setItems(state.items);
      if (this.followOnNextRender) this.list.scrollToEnd();
      this.followOnNextRender = false;
    }
    this.header.update(state.sessions, state.currentSessionId);
    this.footer.update(state.status);
    this.composer.setState(state.status?.busy ?? false, configured);
    if (previous?.status?.model !== model) {
      this.setupHost.replaceChildren();
      if (model && !model.configured) {
        this.setupHost.append(
          renderSetupPanel(model, {
            configureModel: (preset) => this.channel.post({ type: 'configureModel', preset }),
            setApiKey: () => this.channel.post({ type: 'setApiKey' }),
            replayDemo: () => this.channel.post({ type: 'replayDemo' }),
          }),
        );
      }
    }
    // A replay of the demo session runs without a model: its items (they open with its notice)
    // take the setup panel's place until New Chat clears them.
    const first = state.items[0];
    const replay = first?.kind === 'notice' && first.source === 'replay';
    this.setupHost.hidden = configured || replay;
    this.scroller.hidden = !configured && !replay;
    this.welcome.hidden = !configured || state.items.length > 0;
    if (previous?.lastSeq !== state.lastSeq) this.channel.saveState({ lastSeq: state.lastSeq });
  }
}
