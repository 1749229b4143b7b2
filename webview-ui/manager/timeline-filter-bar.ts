import type { AuditRecord } from '../../src/core/audit/records';
import { fillSelect } from './select-options';
import { refillSelect } from './select-refill';
import { DECISION_BADGES, NO_FILTER, eventNameOf, type DecisionBadge, type TimelineFilter, type TimelineFocus } from './timeline-rows';

const TEXT_FILTER_DELAY_MS = 150;
const FOCUS_OPTIONS: ReadonlyArray<[TimelineFocus, string]> = [
  ['', 'All runs'],
  ['failures', 'Failures only'],
  ['slowest', 'Slowest hook runs'],
];

/**
 * The timeline's filters, shared by the trace and the table: event, hook, decision, what to
 * show (every run, failures, the slowest) and a text filter typed into (applied after a short
 * pause). The event and hook lists offer the names the session's records use.
 */
export class TimelineFilterBar {
  /** The controls, in toolbar order. */
  readonly controls: HTMLElement[];
  private current: TimelineFilter = { ...NO_FILTER };
  private eventNames = new Set<string>();
  private hooks = new Set<string>();
  private textTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly eventSelect = document.createElement('vscode-single-select');
  private readonly hookSelect = document.createElement('vscode-single-select');
  private readonly decisionSelect = document.createElement('vscode-single-select');
  private readonly focusSelect = document.createElement('vscode-single-select');
  private readonly textField = document.createElement('vscode-textfield');

  /** `onChange` runs when a person changed the filter (not when a reset dropped a name the session does not use). */
  constructor(private readonly onChange: () => void) {
    for (const [select, key, label] of [
      [this.eventSelect, 'event', 'Event'],
      [this.hookSelect, 'hook', 'Hook'],
      [this.decisionSelect, 'decision', 'Decision'],
      [this.focusSelect, 'focus', 'Show'],
    ] as const) {
      select.dataset.testid = `filter-${key}`;
      select.title = key === 'focus' ? 'Show every run, the failed ones, or the slowest hook runs' : `Filter by ${label.toLowerCase()}`;
      select.addEventListener('change', () => this.set({ [key]: select.value }));
    }
    fillSelect(this.decisionSelect, [['', 'All decisions'], ...DECISION_BADGES.map((d): [string, string] => [d, d])], '');
    fillSelect(this.focusSelect, FOCUS_OPTIONS, '');
    this.textField.setAttribute('placeholder', 'Filter text');
    this.textField.dataset.testid = 'filter-text';
    this.textField.addEventListener('input', () => {
      clearTimeout(this.textTimer);
      this.textTimer = setTimeout(() => this.set({ text: this.textField.value.trim() }), TEXT_FILTER_DELAY_MS);
    });
    this.controls = [this.eventSelect, this.hookSelect, this.decisionSelect, this.focusSelect, this.textField];
    this.updateOptions(true);
  }

  get filter(): TimelineFilter {
    return this.current;
  }

  /** A new session: its records will bring their own names. */
  clearNames(): void {
    this.eventNames = new Set();
    this.hooks = new Set();
  }

  /** Takes the event and hook names of `records`; true when one was new (the lists need `updateOptions`). */
  noteNames(records: readonly AuditRecord[]): boolean {
    const known = this.eventNames.size + this.hooks.size;
    for (const record of records) {
      this.eventNames.add(eventNameOf(record));
      if (record.type === 'hook_run') this.hooks.add(record.hook_name);
    }
    return this.eventNames.size + this.hooks.size !== known;
  }

  /** Shows only hook `name`'s runs, even before the session's records name it. */
  showHook(name: string): void {
    this.hooks.add(name);
    this.set({ hook: name });
    this.updateOptions(false);
  }

  /** Refills the event and hook lists; `resetValues` drops a chosen name the session does not use. */
  updateOptions(resetValues: boolean): void {
    const f = this.current;
    if (resetValues)
      this.current = { ...f, event: this.eventNames.has(f.event) ? f.event : '', hook: this.hooks.has(f.hook) ? f.hook : '' };
    refillSelect(
      this.eventSelect,
      [['', 'All events'], ...[...this.eventNames].sort().map((e): [string, string] => [e, e])],
      this.current.event,
    );
    refillSelect(
      this.hookSelect,
      [['', 'All hooks'], ...[...this.hooks].sort().map((name): [string, string] => [name, name])],
      this.current.hook,
    );
  }

  private set(change: Partial<TimelineFilter>): void {
    const next = { ...this.current, ...change } as TimelineFilter;
    if (next.decision && !DECISION_BADGES.includes(next.decision as DecisionBadge)) next.decision = '';
    if (!FOCUS_OPTIONS.some(([focus]) => focus === next.focus)) next.focus = '';
    const same = (Object.keys(next) as Array<keyof TimelineFilter>).every((key) => next[key] === this.current[key]);
    if (same) return;
    this.current = next;
    this.onChange();
  }
}
