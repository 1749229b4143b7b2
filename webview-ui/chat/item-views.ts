import type { AssistantItem, ChatItem, NoticeItem, PromptBlockedItem, TurnEndItem, UserItem } from '../../src/shared/chat-items';
import { h, icon } from '../common/dom';
import { showMarkdown } from './markdown-view';
import { renderToolCard } from './tool-card';

/** One chat row per item. Rows carry no listeners: the list handles clicks by `data-action`. */
export function renderChatItem(item: ChatItem, previous: HTMLElement | undefined): HTMLElement {
  switch (item.kind) {
    case 'user':
      return row(item, userView(item));
    case 'assistant':
      return assistantRow(item, previous);
    case 'tool':
      return row(item, renderToolCard(item, previous));
    case 'notice':
      return row(item, noticeView(item));
    case 'prompt-blocked':
      return row(item, promptBlockedView(item));
    case 'turn-end':
      return row(item, turnEndView(item));
  }
}

/** A guess of a row's height before it is measured, close enough to keep the scrollbar calm. */
export function estimateItemHeight(item: ChatItem): number {
  switch (item.kind) {
    case 'user':
      return 44 + 18 * Math.floor(item.text.length / 60);
    case 'assistant':
      return 36 + 19 * Math.ceil(item.text.length / 70);
    case 'tool':
      return 64 + 20 * item.hooks.length + (item.approval ? 70 : 0);
    case 'turn-end':
      return 26;
    default:
      return 40;
  }
}

function row(item: ChatItem, content: HTMLElement): HTMLElement {
  return h('div', { class: `chat-row chat-row-${item.kind}`, attrs: { 'data-id': item.id, 'data-kind': item.kind } }, content);
}

function userView(item: UserItem): HTMLElement {
  return h(
    'div',
    { class: `user-message${item.blocked ? ' is-blocked' : ''}${item.queued || item.withdrawn ? ' is-queued' : ''}` },
    h('div', { class: 'user-text', text: item.text }),
    item.blocked && h('div', { class: 'user-blocked-note' }, icon('circle-slash'), ' Not sent: a hook blocked this prompt'),
    item.queued &&
      h(
        'div',
        { class: 'user-queued-note', attrs: { 'data-testid': 'queued-note' } },
        icon('clock'),
        ' Queued: the agent reads it after its current step',
      ),
    item.withdrawn &&
      h(
        'div',
        { class: 'user-queued-note', attrs: { 'data-testid': 'withdrawn-note' } },
        icon('discard'),
        ' Not sent: the turn was stopped; it is back in the message box',
      ),
  );
}

function assistantRow(item: AssistantItem, previous: HTMLElement | undefined): HTMLElement {
  // While streaming, the row is updated in place so the list keeps its element.
  const el =
    previous && previous.dataset.kind === 'assistant'
      ? previous
      : row(item, h('div', { class: 'assistant-message' }, h('div', { class: 'markdown' })));
  const body = el.querySelector<HTMLElement>('.markdown');
  if (body) showMarkdown(body, item.text, item.streaming);
  el.classList.toggle('is-streaming', item.streaming);
  return el;
}

const NOTICE_ICONS = { info: 'info', warning: 'warning', error: 'error' } as const;

function noticeView(item: NoticeItem): HTMLElement {
  return h(
    'div',
    { class: `notice notice-${item.level}` },
    icon(NOTICE_ICONS[item.level]),
    h('span', { class: 'notice-text', text: item.message }),
    item.source && h('span', { class: 'notice-source', text: item.source }),
  );
}

function promptBlockedView(item: PromptBlockedItem): HTMLElement {
  return h(
    'div',
    { class: 'prompt-blocked' },
    h('div', { class: 'prompt-blocked-title' }, icon('shield'), ` Prompt blocked${item.hookName ? ` by ${item.hookName}` : ''}`),
    h('div', { class: 'prompt-blocked-reason', text: item.reason }),
  );
}

const TURN_END_TEXT: Record<TurnEndItem['reason'], string> = {
  completed: 'Done',
  max_steps: 'Stopped: the step limit was reached',
  blocked: 'Blocked by a hook',
  cancelled: 'Cancelled',
  error: 'Stopped by an error',
  stopped: 'Stopped by a hook',
  aborted: 'Aborted by a hook',
};

function turnEndView(item: TurnEndItem): HTMLElement {
  return h(
    'div',
    { class: `turn-end turn-end-${item.reason}` },
    h('span', { class: 'turn-end-label', text: TURN_END_TEXT[item.reason] }),
    item.error && h('span', { class: 'turn-end-error', text: item.error }),
  );
}
