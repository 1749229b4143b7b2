import * as vscode from 'vscode';
import type { EngineHost } from './engine-host';
import type { HookActivity } from './hook-activity';
import { Disposable } from './lifecycle';
import type { PendingApprovals } from './pending-approvals';

export const STATUS_BAR_ID = 'hookpilot.status';

/**
 * The status bar item: how many configured hooks are active, a badge with the blocks
 * since the Hook Manager was last opened, and the approvals waiting. Clicking opens the
 * Hook Manager.
 */
export class HookpilotStatusBar extends Disposable {
  private readonly item = this._register(vscode.window.createStatusBarItem(STATUS_BAR_ID, vscode.StatusBarAlignment.Left, 50));

  constructor(
    private readonly engineHost: EngineHost,
    private readonly activity: HookActivity,
    private readonly pending: PendingApprovals,
    command: string,
  ) {
    super();
    this.item.name = 'Hookpilot';
    this.item.command = command;
    this._register(engineHost.onDidReload(() => this.update()));
    this._register(engineHost.engine.registry.onDidChange(() => this.update()));
    this._register(activity.onDidChangeBlocks(() => this.update()));
    this._register(pending.onDidChange(() => this.update()));
    this.update();
    this.item.show();
  }

  /** The item's text, for tests and the e2e suite. */
  get text(): string {
    return this.item.text;
  }

  update(): void {
    const states = this.engineHost.configuredStates();
    const active = states.filter((s) => s.active).length;
    const untrusted = states.filter((s) => s.inactiveReason === 'untrusted').length;
    const blocks = this.activity.blockCount;
    const waiting = this.pending.size;
    const parts = [`$(shield) ${active} ${active === 1 ? 'hook' : 'hooks'}`];
    if (blocks > 0) parts.push(`$(circle-slash) ${blocks}`);
    if (waiting > 0) parts.push(`$(question) ${waiting}`);
    this.item.text = parts.join('  ');
    const lines = [`Hookpilot: ${active} of ${states.length} configured hooks active.`];
    if (untrusted > 0)
      lines.push(
        `Restricted Mode: ${untrusted} workspace ${untrusted === 1 ? 'hook does' : 'hooks do'} not run until you trust this folder.`,
      );
    if (blocks > 0) lines.push(`${blocks} tool ${blocks === 1 ? 'call or prompt was' : 'calls or prompts were'} blocked by hooks.`);
    if (waiting > 0) lines.push(`${waiting} ${waiting === 1 ? 'approval is' : 'approvals are'} waiting for you.`);
    lines.push('Click to open the Hook Manager.');
    this.item.tooltip = lines.join('\n');
    this.item.backgroundColor = blocks > 0 || waiting > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }
}
