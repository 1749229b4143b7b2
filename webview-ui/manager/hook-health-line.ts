import type { HookHealthView } from '../../src/shared/manager-views';
import { formatDuration, h, setText } from '../common/dom';

const SVG_NS = 'http://www.w3.org/2000/svg';
const CHART_WIDTH = 120;
const CHART_HEIGHT = 18;
/** A run shorter than this still shows as a sliver: "ran, quickly" differs from "did not run". */
const MIN_BAR = 1;
/** Bars keep one width (as many as the host sends at most, 30): a hook with 3 runs shows 3 thin bars, not 3 blocks. */
const SLOTS = 30;
const STATE_TITLES: Record<HookHealthView['state'], string> = {
  healthy: '',
  failing: 'Its last runs failed one after another',
  slow: 'Its recent runs take longer than hookpilot.hookHealth.slowHookMs',
};

/**
 * A hook's health under its row: a bar chart of its recent run durations, p50 and p95, how
 * many runs failed or timed out, its state, and the last error. Hidden until the hook ran.
 */
export class HookHealthLine {
  readonly el: HTMLElement;
  private readonly chart = document.createElementNS(SVG_NS, 'svg');
  private readonly chartTitle = document.createElementNS(SVG_NS, 'title');
  private readonly state = h('span', { class: 'badge', attrs: { 'data-testid': 'hook-health-state' } });
  private readonly numbers = h('span', { class: 'hook-health-numbers', attrs: { 'data-testid': 'hook-health-numbers' } });
  private readonly failures = h('span', { class: 'hook-health-failures', attrs: { 'data-testid': 'hook-health-failures' } });
  private readonly lastError = h('span', { class: 'hook-health-error mono', attrs: { 'data-testid': 'hook-last-error' } });

  /** `showRuns`: the Timeline, filtered to this hook's runs. */
  constructor(showRuns: () => void) {
    this.chart.setAttribute('class', 'hook-sparkline');
    this.chart.setAttribute('width', String(CHART_WIDTH));
    this.chart.setAttribute('height', String(CHART_HEIGHT));
    this.chart.setAttribute('viewBox', `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`);
    this.chart.setAttribute('role', 'img');
    this.chart.dataset.testid = 'hook-sparkline';
    const runs = h('a', {
      class: 'hook-health-runs',
      text: 'Show runs',
      attrs: { href: '#', role: 'button', 'data-testid': 'hook-show-runs' },
      on: {
        click: (event) => {
          event.preventDefault();
          showRuns();
        },
      },
    });
    const parts = [this.chart, this.numbers, this.failures, this.state, runs, this.lastError];
    this.el = h('div', { class: 'hook-health', attrs: { 'data-testid': 'hook-health' } }, ...parts);
    this.el.hidden = true;
  }

  update(health: HookHealthView | undefined): void {
    this.el.hidden = !health;
    if (!health) return;
    this.drawChart(health.recentMs);
    const approx = health.sampled ? '~' : '';
    const percentile = (ms: number | undefined) => (ms === undefined ? '–' : `${approx}${formatDuration(ms)}`);
    const runs = `${health.runs} run${health.runs === 1 ? '' : 's'}`;
    setText(this.numbers, `p50 ${percentile(health.p50Ms)} · p95 ${percentile(health.p95Ms)} · ${runs}`);
    this.numbers.title = health.sampled ? "Percentiles of a uniform sample of this hook's many runs" : 'Percentiles over every run';
    const failed = [health.failures > 0 && `${health.failures} failed`, health.timeouts > 0 && `${health.timeouts} timed out`];
    const failedText = failed.filter(Boolean).join(' · ');
    setText(this.failures, failedText);
    this.failures.hidden = failedText === '';
    setText(this.state, health.state);
    this.state.className = `badge badge-health-${health.state}`;
    this.state.hidden = health.state === 'healthy';
    this.state.title = STATE_TITLES[health.state];
    const error = health.lastError;
    setText(this.lastError, error ? `Last ${error.status}: ${error.message}` : '');
    this.lastError.title = error ? `${new Date(error.at).toLocaleString()}\n${error.message}` : '';
    this.lastError.hidden = !error;
  }

  private drawChart(values: readonly number[]): void {
    const max = Math.max(0, ...values);
    const slot = CHART_WIDTH / Math.max(values.length, SLOTS);
    const bars = values.map((ms, i) => {
      const bar = document.createElementNS(SVG_NS, 'rect');
      const height = max === 0 ? MIN_BAR : Math.max(MIN_BAR, (ms / max) * CHART_HEIGHT);
      // The newest run at the right edge, like a time axis ending now.
      bar.setAttribute('x', (CHART_WIDTH - (values.length - i) * slot).toFixed(2));
      bar.setAttribute('y', (CHART_HEIGHT - height).toFixed(2));
      bar.setAttribute('width', Math.max(1, slot - 1).toFixed(2));
      bar.setAttribute('height', height.toFixed(2));
      bar.setAttribute('class', 'spark-bar');
      bar.dataset.ms = String(ms);
      return bar;
    });
    this.chartTitle.textContent = values.length === 0 ? 'No timed runs yet' : `Last ${values.length} runs, up to ${formatDuration(max)}`;
    this.chart.setAttribute('aria-label', this.chartTitle.textContent);
    this.chart.replaceChildren(this.chartTitle, ...bars);
  }
}
