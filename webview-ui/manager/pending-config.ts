import type { ManagerToHost } from '../../src/shared/manager-protocol';
import type { DiffLineView, PendingConfigView } from '../../src/shared/manager-views';
import { button, h, icon } from '../common/dom';
import { appliedBefore } from '../../src/shared/held-config-wording';

/** The marker a line of the file gets back: the host sends its kind, from the diff's structure, and its text apart. */
const MARKERS: Record<DiffLineView['kind'], string> = { meta: '', hunk: '', same: ' ', del: '-', add: '+' };

function diffLine(line: DiffLineView): HTMLElement {
  return h('span', { class: `diff-line diff-${line.kind}`, text: `${MARKERS[line.kind]}${line.text}\n` });
}

/**
 * Configuration changes no person made, held back from the engine: for each, what changed
 * (the diff from the applied content to the file on disk) and Apply / Discard. Shown above
 * every tab, since the agent keeps working under the applied configuration meanwhile.
 */
export class PendingConfigSection {
  readonly el = h('section', {
    class: 'pending-config',
    attrs: { 'data-testid': 'pending-config', 'aria-label': 'Configuration changes waiting for you' },
  });

  constructor(private readonly post: (message: ManagerToHost) => void) {
    this.el.hidden = true;
  }

  set(changes: readonly PendingConfigView[]): void {
    this.el.hidden = changes.length === 0;
    this.el.replaceChildren(...changes.map((change) => this.render(change)));
  }

  private render(change: PendingConfigView): HTMLElement {
    return h(
      'div',
      { class: 'pending-change', attrs: { 'data-testid': 'pending-change', 'data-change-id': change.id } },
      h(
        'div',
        { class: 'banner', attrs: { role: 'status' } },
        icon('warning'),
        h(
          'span',
          { class: 'banner-text' },
          h('strong', {
            text: change.blockedBy
              ? `ConfigChange hook "${change.blockedBy.hookName}" blocked the change to ${change.label}: ${change.blockedBy.reason}. `
              : `${change.label} changed on disk outside the editor. `,
            attrs: { 'data-testid': 'pending-what' },
          }),
          `Hookpilot keeps ${appliedBefore(change.governs)} until you apply this change.`,
        ),
        button('Apply', () => this.post({ type: 'applyConfigChange', id: change.id }), { testId: 'pending-apply' }),
        button('Discard', () => this.post({ type: 'discardConfigChange', id: change.id }), { secondary: true, testId: 'pending-discard' }),
      ),
      h('pre', { class: 'pending-diff mono', attrs: { 'data-testid': 'pending-diff' } }, ...change.lines.map(diffLine)),
      change.truncated ? h('p', { class: 'muted', text: 'The change is too large to show in full; open the file to see the rest.' }) : null,
    );
  }
}
