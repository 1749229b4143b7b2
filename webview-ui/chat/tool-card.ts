import type { BuiltinToolName } from '../../src/core/agent/tools/tool-catalog';
import { describeAnnotation, type HookAnnotationView, type ToolItem, type ToolStatus } from '../../src/shared/chat-items';
import { approvalButtons, ruleNote } from '../../src/shared/approval-buttons';
import { formatDuration, h, icon } from '../common/dom';

/** The codicon of each of Hookpilot's tools; other tools (MCP) get `tools`. */
export const TOOL_ICONS: Readonly<Record<BuiltinToolName, string>> = {
  Bash: 'terminal',
  Read: 'file',
  Write: 'new-file',
  Edit: 'edit',
  Glob: 'search',
  Grep: 'search',
  TodoWrite: 'checklist',
  Task: 'organization',
};

const STATUS_TEXT: Record<ToolStatus, string> = {
  running: 'running',
  'awaiting-approval': 'needs approval',
  executed: 'done',
  blocked: 'blocked',
  denied: 'denied',
  failed: 'failed',
  skipped: 'not run',
};

const ANNOTATION_ICONS: Record<HookAnnotationView['kind'], string> = {
  blocked: 'circle-slash',
  denied: 'circle-slash',
  asked: 'question',
  allowed: 'pass',
  context: 'note',
  'rewrote-input': 'replace',
  'rewrote-output': 'replace',
  feedback: 'feedback',
  warning: 'warning',
  error: 'error',
};

export function toolIcon(toolName: string): string {
  return Object.hasOwn(TOOL_ICONS, toolName) ? TOOL_ICONS[toolName as BuiltinToolName] : 'tools';
}

/** A tool call: what it did, its outcome, and every hook that acted on it. */
export function renderToolCard(item: ToolItem, previous: HTMLElement | undefined): HTMLElement {
  const wasOpen = previous?.querySelector('details')?.open ?? false;
  const statusIcon =
    item.status === 'running'
      ? icon('loading', 'codicon-modifier-spin')
      : icon(item.status === 'executed' ? 'check' : item.status === 'awaiting-approval' ? 'shield' : 'circle-slash');
  const head = h(
    'div',
    { class: 'tool-head' },
    icon(toolIcon(item.name), 'tool-icon'),
    h('span', { class: 'tool-name', text: item.name }),
    h('span', { class: 'tool-summary', text: item.summary, title: item.summary }),
    h('span', { class: `badge badge-${item.status}`, attrs: { 'data-testid': 'tool-status' } }, statusIcon, ` ${STATUS_TEXT[item.status]}`),
    item.durationMs !== undefined && h('span', { class: 'tool-duration', text: formatDuration(item.durationMs) }),
  );
  const hooks =
    item.hooks.length > 0 &&
    h(
      'ul',
      { class: 'tool-hooks' },
      ...item.hooks.map((a) =>
        h(
          'li',
          { class: `hook-note hook-${a.kind}`, attrs: { 'data-testid': 'hook-note' } },
          icon(ANNOTATION_ICONS[a.kind]),
          h('span', { text: ` ${describeAnnotation(a)}` }),
        ),
      ),
    );
  const note = item.approval && ruleNote(item.approval.choices, item.approval.rule);
  const approval =
    item.approval &&
    h(
      'div',
      { class: 'tool-approval', attrs: { 'data-testid': 'approval' } },
      h('div', { class: 'approval-subject mono', text: item.approval.subject }),
      // Before it is answered: the change itself, not only the file's name.
      item.approval.proposedDiff && diffLink(item.callId),
      h(
        'div',
        { class: 'approval-reason' },
        h('strong', { text: 'Approval needed. ' }),
        item.approval.reason,
        h('span', { class: 'approval-by', text: ` (asked by ${item.approval.askedBy})` }),
      ),
      note && h('div', { class: 'approval-rule', text: note }),
      h(
        'div',
        { class: 'approval-buttons' },
        ...approvalButtons(item.approval.choices, item.approval.rule).map((b) => {
          const el = document.createElement('vscode-button');
          el.textContent = b.label;
          if (b.title) el.title = b.title;
          if (b.secondary) el.setAttribute('secondary', '');
          el.dataset.action = 'answer-approval';
          el.dataset.call = item.callId;
          el.dataset.ask = item.approval?.askId;
          el.dataset.choice = b.choice;
          return el;
        }),
      ),
    );
  const outcome =
    item.approvalOutcome &&
    h('div', {
      class: `approval-outcome approval-${item.approvalOutcome.decision}`,
      text: `${item.approvalOutcome.decision === 'allow' ? 'Allowed' : 'Denied'} by ${item.approvalOutcome.by}`,
    });
  const output =
    item.outputPreview !== undefined &&
    item.outputPreview !== '' &&
    h(
      'details',
      { class: 'tool-output', attrs: wasOpen ? { open: '' } : {} },
      h('summary', { text: 'Output' }),
      h('pre', { text: item.outputTruncated ? `${item.outputPreview}\n…` : item.outputPreview }),
    );
  const diff = item.diffAvailable && diffLink(item.callId);
  return h('div', { class: `tool-card status-${item.status}` }, head, hooks, approval, outcome, output, diff);
}

/** "Show diff": the host opens a pending edit's proposed change, or an executed one's. */
function diffLink(callId: string): HTMLElement {
  return h(
    'a',
    { class: 'tool-diff', attrs: { href: '#', role: 'button', 'data-action': 'show-diff', 'data-call': callId } },
    icon('diff'),
    ' Show diff',
  );
}
