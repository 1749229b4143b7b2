import path from 'node:path';
import type * as vscode from 'vscode';
import { codeCachedExtension } from './code-cache/code-cached-extension';

// package.json's "main" (dist/extension.js): a small loader for the real extension in
// dist/extension-main.js, compiled from V8's code cache instead of from source each time.
const extension = codeCachedExtension<vscode.ExtensionContext>(path.join(__dirname, 'extension-main.js'));

export function activate(context: vscode.ExtensionContext): Promise<void> {
  return extension.activate(context);
}

export function deactivate(): Promise<void> {
  return extension.deactivate();
}
