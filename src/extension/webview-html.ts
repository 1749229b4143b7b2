import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { renderWebviewHtml } from '../shared/webview-html';

export type WebviewBundle = 'chat' | 'manager';

const CODICONS = ['node_modules', '@vscode', 'codicons', 'dist'];

/** Scripts on, and only the built webview bundles and the codicon font may be loaded. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, ...CODICONS)],
  };
}

/** The page for `bundle` with a fresh nonce: a strict CSP that runs only the nonce'd bundle. */
export function webviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri, bundle: WebviewBundle, title: string): string {
  const asset = (...segments: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  return renderWebviewHtml({
    title,
    cspSource: webview.cspSource,
    nonce: randomBytes(16).toString('base64'),
    scriptUri: asset('dist', 'webview', `${bundle}.js`),
    styleUri: asset('dist', 'webview', `${bundle}.css`),
    codiconUri: asset(...CODICONS, 'codicon.css'),
  });
}
