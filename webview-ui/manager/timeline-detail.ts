import type { AuditRecord } from '../../src/core/audit/records';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import { button, formatDuration, h } from '../common/dom';
import type { TimelineRow } from './timeline-rows';

/** Text of any JSON value, pretty-printed; strings stay as they are. */
function pretty(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

function field(label: string, value: string | number | null | undefined): HTMLElement | null {
  if (value === undefined || value === null || value === '') return null;
  return h(
    'div',
    { class: 'detail-field' },
    h('span', { class: 'detail-label', text: label }),
    h('span', { class: 'detail-value', text: String(value) }),
  );
}

function section(label: string, value: unknown, testId: string): HTMLElement | null {
  if (value === undefined || value === null || value === '') return null;
  return h(
    'section',
    { class: 'detail-section', attrs: { 'data-testid': testId } },
    h('h4', { text: label }),
    h('pre', { class: 'detail-pre', text: pretty(value) }),
  );
}

/**
 * The detail of one record. For a hook run, "Input (stdin)" is what the hook received: the
 * rewritten input when an earlier hook changed it, else the payload of its dispatch's event.
 */
export function renderRecordDetail(
  row: TimelineRow,
  eventPayload: (dispatchId: string) => unknown,
  post?: (message: ManagerToHost) => void,
): HTMLElement[] {
  const r: AuditRecord = row.record;
  return post ? [...recordDetail(row, eventPayload), replayActions(r, post)] : recordDetail(row, eventPayload);
}

/** Run this hook again on this recorded event (the test panel shows it), or replay the whole session against today's hooks. */
function replayActions(r: AuditRecord, post: (message: ManagerToHost) => void): HTMLElement {
  const rerun = r.type === 'hook_run' && r.source !== 'builtin';
  return h(
    'div',
    { class: 'detail-actions' },
    rerun
      ? button('Run this hook on this event', () => post({ type: 'testFireRecord', sessionId: r.session_id, seq: r.seq }), {
          icon: 'play',
          secondary: true,
          testId: 'detail-run-hook',
        })
      : null,
    button("Replay against today's hooks", () => post({ type: 'replaySession', sessionId: r.session_id }), {
      icon: 'debug-rerun',
      secondary: true,
      title:
        "Re-runs this session's recorded model replies through today's hooks in a scratch copy of the workspace; the replay is a session of its own",
      testId: 'detail-replay-session',
    }),
  );
}

function recordDetail(row: TimelineRow, eventPayload: (dispatchId: string) => unknown): HTMLElement[] {
  const r: AuditRecord = row.record;
  const header = h(
    'div',
    { class: 'detail-fields' },
    field('Time', `${r.ts}`),
    field('Seq', r.seq),
    field('Type', r.type),
    field('Event', row.event),
    field('Decision', row.decisionText),
    field('Duration', row.durationMs === undefined ? undefined : formatDuration(row.durationMs)),
  );
  switch (r.type) {
    case 'hook_run':
      return [
        header,
        h(
          'div',
          { class: 'detail-fields' },
          field('Hook', r.hook_name),
          field('Handler', r.handler),
          field('Source', r.source),
          field('Status', r.status),
          field('Exit code', r.exit_code),
          field('Dispatch', r.dispatch_id),
        ),
        section('Reason', r.reason, 'detail-reason'),
        section('Error', r.error, 'detail-error'),
        section('Input (stdin)', r.input ?? eventPayload(r.dispatch_id), 'detail-input'),
        section('stdout', r.stdout, 'detail-stdout'),
        section('stderr', r.stderr, 'detail-stderr'),
        section('Effects', r.effects, 'detail-effects'),
      ].filter((el): el is HTMLElement => el !== null);
    case 'event':
      return [
        header,
        h('div', { class: 'detail-fields' }, field('Dispatch', r.dispatch_id)),
        section('Payload', r.payload, 'detail-input'),
      ].filter((el): el is HTMLElement => el !== null);
    case 'dispatch':
      return [
        header,
        h('div', { class: 'detail-fields' }, field('Hooks run', r.hooks_run), field('Dispatch', r.dispatch_id)),
        section('Reason', r.reason, 'detail-reason'),
      ].filter((el): el is HTMLElement => el !== null);
    case 'permission':
      return [
        header,
        h(
          'div',
          { class: 'detail-fields' },
          field('Tool', r.tool_name),
          field('Tool use', r.tool_use_id),
          field('Decided by', r.source),
          field('Level', r.level),
          field('Answer', r.answer),
          field('Subagent', r.agent_id),
        ),
        section('Reason', r.reason, 'detail-reason'),
      ].filter((el): el is HTMLElement => el !== null);
    case 'note':
      return [header, section('Message', r.message, 'detail-message'), section('Data', r.data, 'detail-data')].filter(
        (el): el is HTMLElement => el !== null,
      );
    default:
      return [header, section('Record', r, 'detail-input')].filter((el): el is HTMLElement => el !== null);
  }
}
