import * as vscode from 'vscode';
import { z } from 'zod';
import type { AuditLog } from '../core/audit/audit-log';
import { DEFAULT_HEALTH_LIMITS, HookHealth, type HookHealthAlert } from '../core/hooks/hook-health';
import type { HookHealthView } from '../shared/manager-views';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import { showWarning } from './notifications';

export const SHOW_HOOK_RUNS_ACTION = 'Show Runs';
export const SLOW_HOOK_SETTING = 'hookpilot.hookHealth.slowHookMs';
/** The session id of the Hook Manager's test-fire runs: a person watching the result, not the agent's latency. */
const TEST_FIRE_SESSION = 'test-fire';
const MAX_ERROR_CHARS = 200;
/** A hook's stderr can be long: the row shows its start, the timeline has it whole. */
const MAX_VIEW_ERROR_CHARS = 2_000;

const slowHookMsSchema = z.number().int().min(0).max(86_400_000);

/** Which runs "Show Runs" opens: the timeline of `sessionId`, filtered to hook `hook` (its name). */
export interface HookRunsFilter {
  hook: string;
  sessionId: string;
}

/**
 * Hook health in this window: every hook run the audit log writes is folded into one
 * HookHealth as it happens (the Hook Manager shows its numbers), and a hook that turns
 * unhealthy raises one warning, again only after it recovered (see docs/hooks.md).
 */
export class HookHealthMonitor extends Disposable {
  private readonly health: HookHealth;

  constructor(
    audit: AuditLog,
    private readonly log: HookpilotLog,
    private readonly showRuns: (filter: HookRunsFilter) => void,
  ) {
    super();
    this.health = new HookHealth({ slowHookMs: this.readSlowHookMs() });
    this._register(
      audit.onRecord((record, sessionId) => {
        if (sessionId === TEST_FIRE_SESSION) return;
        const alert = this.health.record(record);
        if (alert) this.notify(alert);
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SLOW_HOOK_SETTING)) this.health.configure({ slowHookMs: this.readSlowHookMs() });
      }),
    );
  }

  /** What the Hook Manager shows of hook `hookId`; undefined before its first run. */
  view(hookId: string): HookHealthView | undefined {
    const s = this.health.get(hookId);
    if (!s) return undefined;
    const { runs, failures, timeouts, sampled, state, recentMs } = s;
    const view: HookHealthView = { runs, failures, timeouts, sampled, state, recentMs };
    if (s.p50Ms !== undefined) view.p50Ms = s.p50Ms;
    if (s.p95Ms !== undefined) view.p95Ms = s.p95Ms;
    const error = s.lastError;
    if (error) view.lastError = { status: error.status, message: clip(error.message, MAX_VIEW_ERROR_CHARS), at: error.at };
    return view;
  }

  private readSlowHookMs(): number {
    const raw = vscode.workspace.getConfiguration('hookpilot').get<unknown>('hookHealth.slowHookMs');
    if (raw === undefined) return DEFAULT_HEALTH_LIMITS.slowHookMs;
    const parsed = slowHookMsSchema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const fallback = DEFAULT_HEALTH_LIMITS.slowHookMs;
    this.log.warn(`${SLOW_HOOK_SETTING}: expected whole milliseconds from 0 to 86400000, got ${JSON.stringify(raw)}; using ${fallback}`);
    return fallback;
  }

  private notify(alert: HookHealthAlert): void {
    const text = describeAlert(alert);
    this.log.warn(text);
    void showWarning(`Hookpilot: ${text}`, SHOW_HOOK_RUNS_ACTION).then((picked) => {
      if (picked === SHOW_HOOK_RUNS_ACTION) this.showRuns({ hook: alert.hookName, sessionId: alert.sessionId });
    });
  }
}

function describeAlert(alert: HookHealthAlert): string {
  const hook = `hook "${alert.hookName}" (${alert.event})`;
  if (alert.kind === 'failing') {
    const message = clip(alert.lastError.message.replace(/\s+/g, ' ').trim(), MAX_ERROR_CHARS);
    return `${hook} failed ${alert.consecutive} times in a row (last: ${alert.lastError.status}: ${message}).`;
  }
  const median = Math.round(alert.medianMs);
  const limit = `${alert.limitMs} ms of ${SLOW_HOOK_SETTING}`;
  return `${hook} is slow: its median run over the last ${alert.runs} runs took ${median} ms, over the ${limit}.`;
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);
