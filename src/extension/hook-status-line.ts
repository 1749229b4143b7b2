import * as vscode from 'vscode';
import type { HookDispatcher } from '../core/hooks/dispatcher';
import { Disposable } from './lifecycle';

/**
 * The `statusMessage` of the hooks running for one session right now (Claude Code shows it
 * as the spinner's text): the chat's footer shows the newest while its hook runs.
 */
export class HookStatusLine extends Disposable {
  private readonly running: Array<{ hookId: string; message: string }> = [];
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(dispatcher: HookDispatcher, sessionId: () => string | undefined) {
    super();
    this._register(
      dispatcher.onWillRunHook((run) => {
        const message = run.hook.statusMessage?.trim();
        if (!message || run.sessionId !== sessionId()) return;
        this.running.push({ hookId: run.hook.id, message });
        this.changed.fire();
      }),
    );
    this._register(
      dispatcher.onDidRunHook((run) => {
        const index = this.running.findIndex((r) => r.hookId === run.hook.id);
        if (index < 0) return;
        this.running.splice(index, 1);
        this.changed.fire();
      }),
    );
  }

  get current(): string | undefined {
    return this.running.at(-1)?.message;
  }
}
