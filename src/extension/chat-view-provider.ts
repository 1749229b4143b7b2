import * as vscode from 'vscode';
import { receiveChatToHost } from '../shared/chat-protocol';
import type { ChatController } from './chat-controller';
import { Disposable, disposeAll, type IDisposable } from './lifecycle';
import type { HookpilotLog } from './log';
import { webviewHtml, webviewOptions } from './webview-html';
import { errorMessage } from '../core/error-message';

export const CHAT_VIEW_ID = 'hookpilot.chat';

/**
 * The chat webview view in the Hookpilot activity-bar container. It only carries
 * messages: each one from the webview is checked with zod, then handed to the controller.
 * A re-resolved view replaces the previous one's listeners; a late dispose of a
 * superseded view changes nothing.
 */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private viewDisposables: IDisposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly log: HookpilotLog,
  ) {
    super();
    this._register(vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, this));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    disposeAll(this.viewDisposables);
    this.view = view;
    view.webview.options = webviewOptions(this.extensionUri);
    view.webview.html = webviewHtml(view.webview, this.extensionUri, 'chat', 'Hookpilot Chat');
    const disposables: IDisposable[] = [
      this.controller.attach((message) => void view.webview.postMessage(message)),
      view.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)),
    ];
    disposables.push(
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        disposeAll(this.viewDisposables);
      }),
    );
    this.viewDisposables = disposables;
  }

  private receive(raw: unknown): void {
    const received = receiveChatToHost(raw);
    if (!received.ok) {
      this.log.warn(`chat webview: ${received.error}`);
      return;
    }
    this.controller.handle(received.message).catch((error: unknown) => this.log.error(`chat: ${errorMessage(error)}`));
  }

  /** Shows the view and puts the caret in the composer. */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    this.controller.postFocus();
  }

  override dispose(): void {
    disposeAll(this.viewDisposables);
    super.dispose();
  }
}
