import { EVENT_INFO, HOOK_EVENTS, type HookEventName } from '../../src/shared/event-catalog';
import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { HookView, ProblemView, TestResultView } from '../../src/shared/manager-views';
import { button, h, icon, setText } from '../common/dom';
import { HookRow } from './hook-row';

const SEVERITY_ICONS = { error: 'error', warning: 'warning', info: 'info' } as const;

/** Hooks grouped by event in dispatch-catalogue order, the config problems, and bulk actions. */
export class HooksTab {
  readonly el: HTMLElement;
  private readonly rows = new Map<string, HookRow>();
  private readonly groups = h('div', { class: 'hook-groups' });
  private readonly problems = h('section', { class: 'problems', attrs: { 'data-testid': 'problems' } });
  private readonly summary = h('span', { class: 'muted hooks-summary' });
  private readonly disabledBanner = h(
    'div',
    { class: 'banner' },
    icon('circle-slash'),
    h('span', {
      class: 'banner-text',
      text: 'disableAllHooks is set in your configuration: every configured hook is off. Built-in hooks still run.',
    }),
  );
  private readonly empty = h(
    'div',
    { class: 'hooks-empty' },
    h('p', { text: 'No hooks are configured.' }),
    h('p', {
      class: 'muted',
      text: 'Add hooks in .vscode/hooks.json or in the hookpilot.hooks setting, in the same shape as Claude Code\'s "hooks" object.',
    }),
  );

  constructor(
    private readonly post: (message: ManagerToHost) => void,
    /** Opens the Timeline filtered to a hook's runs (by name). */
    private readonly showRuns: (hookName: string) => void = () => undefined,
  ) {
    const toolbar = h(
      'div',
      { class: 'toolbar' },
      button('Reload', () => post({ type: 'reloadHooks' }), { secondary: true, icon: 'refresh', testId: 'hooks-reload' }),
      button('Open hooks.json', () => post({ type: 'openHooksConfig' }), {
        secondary: true,
        icon: 'go-to-file',
        testId: 'hooks-open-config',
      }),
      button('Enable all', () => post({ type: 'toggleAll', enabled: true }), { secondary: true, testId: 'hooks-enable-all' }),
      button('Disable all', () => post({ type: 'toggleAll', enabled: false }), { secondary: true, testId: 'hooks-disable-all' }),
      h('span', { class: 'spacer' }),
      this.summary,
    );
    this.problems.hidden = true;
    this.disabledBanner.hidden = true;
    this.problems.addEventListener('click', (event) => {
      const id = (event.target as Element | null)?.closest<HTMLElement>('[data-problem-id]')?.dataset.problemId;
      if (id) post({ type: 'openProblem', id });
    });
    this.el = h('div', { class: 'tab-panel hooks-tab' }, toolbar, this.disabledBanner, this.problems, this.groups, this.empty);
  }

  setHooks(hooks: readonly HookView[], disableAllHooks: boolean): void {
    this.disabledBanner.hidden = !disableAllHooks;
    const seen = new Set<string>();
    const byEvent = new Map<HookEventName, HookView[]>();
    for (const view of hooks) {
      seen.add(view.id);
      const list = byEvent.get(view.event) ?? [];
      list.push(view);
      byEvent.set(view.event, list);
    }
    for (const [id] of this.rows) if (!seen.has(id)) this.rows.delete(id);
    // Rows are kept across snapshots, so an open test panel and its edited payload survive.
    const sections: HTMLElement[] = [];
    for (const event of HOOK_EVENTS) {
      const list = byEvent.get(event);
      if (!list) continue;
      const rows = list.map((view) => {
        let row = this.rows.get(view.id);
        if (row) row.update(view);
        else this.rows.set(view.id, (row = new HookRow(view, this.post, this.showRuns)));
        return row.el;
      });
      const info = EVENT_INFO[event];
      sections.push(
        h(
          'section',
          { class: 'hook-group', attrs: { 'data-event': event, 'data-testid': 'hook-group' } },
          h(
            'h3',
            { class: 'hook-group-title' },
            h('span', { text: event }),
            h('span', { class: `badge kind-${info.kind}`, text: info.kind }),
            h('span', { class: 'muted hook-group-desc', text: info.description }),
          ),
          ...rows,
        ),
      );
    }
    this.groups.replaceChildren(...sections);
    this.empty.hidden = hooks.length > 0;
    const active = hooks.filter((v) => v.active).length;
    setText(this.summary, `${hooks.length} hook${hooks.length === 1 ? '' : 's'} · ${active} active`);
  }

  setProblems(problems: readonly ProblemView[]): void {
    this.problems.hidden = problems.length === 0;
    this.problems.replaceChildren(
      h('h3', { class: 'hook-group-title', text: `Problems (${problems.length})` }),
      ...problems.map((p) =>
        h(
          'div',
          { class: `problem problem-${p.severity}`, attrs: { 'data-problem-id': p.id, role: 'button', tabindex: '0' } },
          icon(SEVERITY_ICONS[p.severity]),
          h('span', {
            class: 'problem-place mono',
            text: p.file ? `${p.file}${p.line ? `:${p.line}` : ''}${p.column ? `:${p.column}` : ''}` : p.path || p.sourceKind,
          }),
          h('span', { class: 'problem-message', text: p.message }),
        ),
      ),
    );
  }

  showTestResult(id: string, result: TestResultView): void {
    this.rows.get(id)?.showTestResult(result);
  }
}
