import type { ChatItem, ChatItemChanges, ToolItem } from './chat-items';
import type { ChatStatusMessage, HostToChat, SessionEntry } from './chat-protocol';

/** Everything the chat renders, built only from host messages. */
export interface ChatViewState {
  /** Seq of the last stream message applied (reset, append or patch). */
  lastSeq: number;
  items: readonly ChatItem[];
  /** A gap or an unknown patch target was seen: stream messages wait for a reset. */
  outOfSync: boolean;
  status: Omit<ChatStatusMessage, 'type'> | undefined;
  sessions: readonly SessionEntry[];
  currentSessionId: string | undefined;
}

export function initialChatState(lastSeq = 0): ChatViewState {
  return { lastSeq, items: [], outOfSync: false, status: undefined, sessions: [], currentSessionId: undefined };
}

/**
 * The chat's reducer: pure, never mutates `state`. Stream messages apply only in seq
 * order; a duplicate (seq <= lastSeq) is dropped, a gap sets `outOfSync` and the caller
 * asks for a resync. A reset always applies, whatever its seq (the host may restart).
 */
export function applyChatMessage(state: ChatViewState, msg: HostToChat): ChatViewState {
  switch (msg.type) {
    case 'reset':
      return { ...state, lastSeq: msg.seq, items: msg.state.items, outOfSync: false };
    case 'append':
    case 'patch': {
      if (state.outOfSync || msg.seq <= state.lastSeq) return state;
      if (msg.seq !== state.lastSeq + 1) return { ...state, outOfSync: true };
      const items = msg.type === 'append' ? appendItem(state.items, msg.item) : patchItem(state.items, msg.id, msg.changes);
      return items ? { ...state, lastSeq: msg.seq, items } : { ...state, outOfSync: true };
    }
    case 'status': {
      const { type: _type, ...status } = msg;
      return { ...state, status };
    }
    case 'sessions':
      return { ...state, sessions: msg.list, currentSessionId: msg.currentId };
    case 'focus':
    case 'restoreDraft':
      return state;
  }
}

/** Undefined when the id is already taken: the host and the webview disagree. */
function appendItem(items: readonly ChatItem[], item: ChatItem): readonly ChatItem[] | undefined {
  if (indexOfItem(items, item.id) >= 0) return undefined;
  return [...items, item];
}

function patchItem(items: readonly ChatItem[], id: string, changes: ChatItemChanges): readonly ChatItem[] | undefined {
  const index = indexOfItem(items, id);
  if (index < 0) return undefined;
  const updated = applyChanges(items[index], changes);
  if (!updated) return undefined;
  const next = items.slice();
  next[index] = updated;
  return next;
}

/** Patches almost always touch the newest items, so the search runs from the end. */
export function indexOfItem(items: readonly ChatItem[], id: string): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].id === id) return i;
  return -1;
}

/** The item with `changes` applied, or undefined when the kinds differ. Undefined fields mean "unchanged". */
export function applyChanges(item: ChatItem, changes: ChatItemChanges): ChatItem | undefined {
  if (item.kind === 'user' && changes.kind === 'user') {
    return {
      ...item,
      blocked: changes.blocked ?? item.blocked,
      queued: changes.queued ?? item.queued,
      withdrawn: changes.withdrawn ?? item.withdrawn,
    };
  }
  if (item.kind === 'assistant' && changes.kind === 'assistant') {
    const base = changes.text ?? item.text;
    return { ...item, text: changes.appendText ? base + changes.appendText : base, streaming: changes.streaming ?? item.streaming };
  }
  if (item.kind === 'tool' && changes.kind === 'tool') {
    const next: ToolItem = {
      ...item,
      status: changes.status ?? item.status,
      summary: changes.summary ?? item.summary,
      hooks: changes.hooks ?? item.hooks,
      diffAvailable: changes.diffAvailable ?? item.diffAvailable,
    };
    if (changes.outputPreview !== undefined) next.outputPreview = changes.outputPreview;
    if (changes.outputTruncated !== undefined) next.outputTruncated = changes.outputTruncated;
    if (changes.durationMs !== undefined) next.durationMs = changes.durationMs;
    if (changes.approvalOutcome !== undefined) next.approvalOutcome = changes.approvalOutcome;
    if (changes.approval === null) delete next.approval;
    else if (changes.approval !== undefined) next.approval = changes.approval;
    return next;
  }
  return undefined;
}
