import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { HookView, TestResultView } from '../../src/shared/manager-views';
import { button, formatDuration, h, icon, setText } from '../common/dom';
import { HookHealthLine } from './hook-health-line';
import { TestFirePanel } from './test-fire-panel';

const SOURCE_LABELS: Record<HookView['sourceKind'], string> = {
  user: 'user settings',
  workspace: 'workspace settings',
  folder: 'folder settings',
  hooksJson: 'hooks.json',
  builtin: 'built-in',
  session: 'session',
  cli: 'command line',
  claudeUser: '~/.claude/settings.json',
  claudeProject: '.claude/settings.json',
  claudeLocal: '.claude/settings.local.json',
  managed: 'managed',
};

/** One hook: toggle, where it comes from, what it matches and runs, how it last went. Updated in place. */
export class HookRow {
  readonly el: HTMLElement;
  private readonly toggle = document.createElement('vscode-checkbox');
  private readonly name = h('span', { class: 'hook-name' });
  private readonly source = h('span', { class: 'hook-source', attrs: { 'data-testid': 'hook-source' } });
  private readonly matcher = h('span', { class: 'hook-matcher mono' });
  private readonly type = h('span', { class: 'hook-type' });
  private readonly trust = h('span', { class: 'hook-trust' });
  private readonly last = h('span', { class: 'hook-last', attrs: { 'data-testid': 'hook-last' } });
  private readonly errors = h('span', { class: 'hook-errors' });
  private readonly target = h('div', { class: 'hook-target mono' });
  private readonly inactive = h('div', { class: 'hook-inactive', attrs: { 'data-testid': 'hook-inactive' } });
  private readonly changedFiles = h('ul', { class: 'hook-changed-files mono', attrs: { 'data-testid': 'hook-changed-files' } });
  private readonly changedAgain = h('div', {
    class: 'hook-changed-again',
    attrs: { 'data-testid': 'hook-changed-again' },
    text: 'The files changed again while listed here: read them again before you re-approve.',
  });
  /** The fingerprint of the files this row listed first: a later one means they changed while on screen. */
  private firstListed: string | undefined;
  /** The scripts changed since they were approved: the hook fails instead of running until a person re-approves them. */
  private readonly changed = h(
    'div',
    { class: 'hook-changed', attrs: { 'data-testid': 'hook-script-changed' } },
    icon('warning'),
    h(
      'div',
      { class: 'hook-changed-body' },
      h('span', { text: 'Its scripts changed since they were approved: it fails instead of running until you re-approve them.' }),
      this.changedFiles,
      this.changedAgain,
    ),
    button(
      'Re-approve',
      () => {
        // What the row lists, by its fingerprint: the host approves nothing that changed since.
        const listed = this.view.scriptChanged;
        if (listed) this.post({ type: 'approveScripts', id: this.view.id, fingerprint: listed.fingerprint });
      },
      { secondary: true, testId: 'hook-reapprove' },
    ),
  );
  private readonly health = new HookHealthLine(() => this.showRuns(this.view.name));
  private testPanel: TestFirePanel | undefined;
  private readonly testSlot = h('div', { class: 'hook-test-slot' });

  constructor(
    private view: HookView,
    private readonly post: (message: ManagerToHost) => void,
    private readonly showRuns: (hookName: string) => void = () => undefined,
  ) {
    this.toggle.toggle = true;
    this.toggle.dataset.testid = 'hook-toggle';
    this.toggle.addEventListener('change', () => post({ type: 'toggleHook', id: this.view.id, enabled: this.toggle.checked }));
    const actions = h(
      'span',
      { class: 'hook-actions' },
      button('Test', () => this.toggleTestPanel(), { secondary: true, icon: 'beaker', testId: 'hook-test' }),
      button('Go to definition', () => post({ type: 'openDefinition', id: this.view.id }), {
        secondary: true,
        icon: 'go-to-file',
        testId: 'hook-open',
      }),
    );
    this.el = h(
      'div',
      { class: 'hook-row', attrs: { 'data-hook-id': view.id, 'data-testid': 'hook-row' } },
      h(
        'div',
        { class: 'hook-main' },
        this.toggle,
        h('div', { class: 'hook-title' }, this.name, this.target),
        this.source,
        this.matcher,
        this.type,
        this.trust,
        this.last,
        this.errors,
        actions,
      ),
      this.health.el,
      this.inactive,
      this.changed,
      this.testSlot,
    );
    this.update(view);
  }

  update(view: HookView): void {
    this.view = view;
    // The managed policy's hooks run whatever anyone below it says: no toggle.
    const locked = view.sourceKind === 'managed';
    this.toggle.checked = view.enabled;
    this.toggle.disabled = locked;
    this.toggle.title = locked
      ? "Set by the machine's managed policy: it cannot be turned off here"
      : view.enabled
        ? 'Turn this hook off'
        : 'Turn this hook on';
    this.el.classList.toggle('is-locked', locked);
    this.el.classList.toggle('is-inactive', !view.active);
    setText(this.name, view.name);
    this.name.title = view.description ?? view.name;
    setText(this.target, view.target);
    this.target.title = view.target;
    this.source.replaceChildren(...(locked ? [icon('lock'), ' '] : []), SOURCE_LABELS[view.sourceKind]);
    this.source.title = view.file ? `${view.file}${view.line ? `:${view.line}` : ''}` : SOURCE_LABELS[view.sourceKind];
    setText(this.matcher, view.matcher && view.matcher !== '' ? view.matcher : '*');
    setText(this.type, view.handlerType);
    this.trust.replaceChildren(
      view.trusted
        ? h('span', { class: 'badge badge-trusted', text: 'trusted' })
        : h('span', { class: 'badge badge-untrusted' }, icon('workspace-untrusted'), ' untrusted'),
    );
    this.last.replaceChildren(
      view.lastResult
        ? h(
            'span',
            {},
            h('span', {
              class: `badge badge-${lastBadge(view.lastResult.status, view.lastResult.decision)}`,
              text: view.lastResult.decision,
            }),
            h('span', { class: 'muted', text: ` ${formatDuration(view.lastResult.durationMs)}` }),
          )
        : h('span', { class: 'muted', text: 'not run yet' }),
    );
    this.last.title = view.lastResult ? `${view.runCount} runs · last at ${new Date(view.lastResult.at).toLocaleTimeString()}` : '';
    setText(this.errors, view.errorCount > 0 ? `${view.errorCount} error${view.errorCount === 1 ? '' : 's'}` : '');
    this.errors.classList.toggle('has-errors', view.errorCount > 0);
    setText(this.inactive, view.inactiveReason ?? '');
    this.inactive.hidden = !view.inactiveReason;
    this.showScriptChange(view.scriptChanged);
    this.health.update(view.health);
    this.testPanel?.update(view);
  }

  private showScriptChange(change: HookView['scriptChanged']): void {
    this.changed.hidden = !change;
    this.firstListed = change && (this.firstListed ?? change.fingerprint);
    this.changedAgain.hidden = change?.fingerprint === this.firstListed;
    this.changedFiles.replaceChildren(
      ...(change?.files ?? []).map((file) => h('li', { text: file })),
      ...(change?.more ? [h('li', { class: 'muted', text: `and ${change.more} more` })] : []),
    );
  }

  showTestResult(result: TestResultView): void {
    if (!this.testPanel) this.toggleTestPanel();
    this.testPanel?.showResult(result);
  }

  private toggleTestPanel(): void {
    if (this.testPanel) {
      this.testPanel.el.hidden = !this.testPanel.el.hidden;
      return;
    }
    this.testPanel = new TestFirePanel(this.view, (id, payload) => this.post({ type: 'testFire', id, payload }));
    this.testSlot.append(this.testPanel.el);
  }
}

function lastBadge(status: string, decision: string): string {
  if (status === 'timeout' || status === 'error') return status;
  return ['allow', 'deny', 'ask', 'block'].includes(decision) ? decision : 'none';
}
