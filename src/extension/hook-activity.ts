import * as vscode from 'vscode';
import type { HookEngine } from '../core/engine/hook-engine';
import type { HookRunEvent } from '../core/hooks/dispatcher';
import { HookRunStats } from '../shared/manager-view-builders';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import { showWarning } from './notifications';

const BLOCKING_DECISIONS = new Set(['deny', 'block']);
const STATS_DEBOUNCE_MS = 100;

export const OPEN_HOOK_MANAGER_ACTION = 'Open Hook Manager';

/**
 * What hooks did in this window: run counts and last results per hook (from the audit
 * log's hook_run records), blocks since the user last looked (the status bar badge), and
 * one notification the first time each hook fails.
 */
export class HookActivity extends Disposable {
  readonly stats = new HookRunStats();
  private blocks = 0;
  private readonly failedOnce = new Set<string>();
  private statsTimer: NodeJS.Timeout | undefined;
  private readonly statsChanged = this._register(new vscode.EventEmitter<void>());
  /** Run counts or last results changed (debounced). */
  readonly onDidChangeStats = this.statsChanged.event;
  private readonly blocksChanged = this._register(new vscode.EventEmitter<number>());
  readonly onDidChangeBlocks = this.blocksChanged.event;

  constructor(
    engine: HookEngine,
    private readonly log: HookpilotLog,
    private readonly openHookManager: () => void,
  ) {
    super();
    this._register(
      engine.audit.onRecord((record) => {
        if (this.stats.record(record)) this.scheduleStats();
      }),
    );
    this._register(engine.dispatcher.onDidRunHook((run) => this.onRun(run)));
  }

  get blockCount(): number {
    return this.blocks;
  }

  /** The user looked at the Hook Manager: the badge goes away. */
  acknowledgeBlocks(): void {
    if (this.blocks === 0) return;
    this.blocks = 0;
    this.blocksChanged.fire(0);
  }

  private onRun(run: HookRunEvent): void {
    const { summary } = run;
    if (BLOCKING_DECISIONS.has(summary.decision)) {
      this.blocks++;
      this.blocksChanged.fire(this.blocks);
      this.log.info(
        `${run.event}: hook "${summary.hookName}" ${summary.decision === 'deny' ? 'denied' : 'blocked'}${summary.reason ? `: ${summary.reason}` : ''}`,
      );
    }
    if (summary.status !== 'error' && summary.status !== 'timeout') return;
    const detail = summary.error ?? summary.status;
    this.log.warn(`${run.event}: hook "${summary.hookName}" failed (${summary.status}): ${detail}`);
    if (this.failedOnce.has(summary.hookId)) return;
    this.failedOnce.add(summary.hookId);
    void showWarning(`Hookpilot: hook "${summary.hookName}" failed on ${run.event}: ${detail}`, OPEN_HOOK_MANAGER_ACTION).then((picked) => {
      if (picked === OPEN_HOOK_MANAGER_ACTION) this.openHookManager();
    });
  }

  private scheduleStats(): void {
    if (this.statsTimer) return;
    this.statsTimer = setTimeout(() => {
      this.statsTimer = undefined;
      this.statsChanged.fire();
    }, STATS_DEBOUNCE_MS);
  }

  override dispose(): void {
    clearTimeout(this.statsTimer);
    super.dispose();
  }
}
