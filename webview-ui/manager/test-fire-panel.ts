import type { HookView, TestResultView } from '../../src/shared/manager-views';
import { samplePayload, toolNameFromMatcher } from '../../src/shared/sample-payload';
import { button, formatDuration, h, setText } from '../common/dom';

function pretty(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? '');
}

/**
 * Runs one hook with a payload the user can edit: a sample for its event (and the tool its
 * matcher names) to start with. Only that hook runs; the host answers with testResult.
 */
export class TestFirePanel {
  readonly el: HTMLElement;
  private readonly editor: HTMLTextAreaElement;
  private readonly error = h('span', { class: 'test-error', attrs: { 'data-testid': 'test-error' } });
  private readonly result = h('div', { class: 'test-result', attrs: { 'data-testid': 'test-result' } });
  private readonly runButton: HTMLElement;
  private view: HookView;

  constructor(view: HookView, run: (id: string, payload: string) => void) {
    this.view = view;
    this.editor = h('textarea', {
      class: 'test-payload mono',
      attrs: { spellcheck: 'false', rows: '12', 'aria-label': 'Test payload (JSON)', 'data-testid': 'test-payload' },
    });
    this.editor.value = this.sample();
    this.runButton = button(
      'Run',
      () => {
        const payload = this.editor.value;
        const problem = checkPayload(payload);
        setText(this.error, problem ?? '');
        if (problem) return;
        this.runButton.setAttribute('disabled', '');
        this.result.replaceChildren(h('span', { class: 'muted', text: 'Running…' }));
        run(this.view.id, payload);
      },
      { icon: 'play', testId: 'test-run' },
    );
    this.el = h(
      'div',
      { class: 'test-panel', attrs: { 'data-testid': 'test-panel' } },
      h('div', {
        class: 'test-head muted',
        text: `Runs only "${view.name}" with this ${view.event} payload. The agent and other hooks are not involved.`,
      }),
      this.editor,
      h(
        'div',
        { class: 'test-actions' },
        this.runButton,
        button(
          'Reset sample',
          () => {
            this.editor.value = this.sample();
            setText(this.error, '');
          },
          { secondary: true },
        ),
        this.error,
      ),
      this.result,
    );
  }

  update(view: HookView): void {
    this.view = view;
  }

  showResult(result: TestResultView): void {
    this.runButton.removeAttribute('disabled');
    if (result.payload !== undefined) this.editor.value = result.payload;
    const block = (label: string, value: unknown, testId: string) =>
      value === undefined || value === '' || value === null
        ? null
        : h(
            'section',
            { class: 'test-block' },
            h('h4', { text: label }),
            h('pre', { text: pretty(value), attrs: { 'data-testid': testId } }),
          );
    const parts = [
      h(
        'div',
        { class: 'test-summary' },
        h('span', { class: `badge badge-${result.status}`, text: result.status, attrs: { 'data-testid': 'test-status' } }),
        h('span', { text: ` decision: ${result.decision}` }),
        h('span', { class: 'muted', text: ` · ${formatDuration(result.durationMs)}` }),
        result.exitCode !== undefined && result.exitCode !== null
          ? h('span', { class: 'muted', text: ` · exit ${result.exitCode}` })
          : null,
      ),
      block('Reason', result.reason, 'test-reason'),
      block('Error', result.error, 'test-error-text'),
      block('stdout', result.stdout, 'test-stdout'),
      block('stderr', result.stderr, 'test-stderr'),
      block('Effects', result.effects, 'test-effects'),
    ];
    this.result.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null));
  }

  private sample(): string {
    return JSON.stringify(samplePayload(this.view.event, toolNameFromMatcher(this.view.matcher)), null, 2);
  }
}

/** Why the payload cannot be sent, or undefined when it is a JSON object. */
function checkPayload(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? undefined : 'The payload must be a JSON object.';
  } catch (err) {
    return `Not valid JSON: ${(err as SyntaxError).message}`;
  }
}
