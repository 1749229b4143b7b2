import type * as vscode from 'vscode';
import { CompositionRoot } from './composition-root';

let root: CompositionRoot | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  root = await CompositionRoot.create(context);
  context.subscriptions.push(root);
}

export async function deactivate(): Promise<void> {
  const current = root;
  root = undefined;
  await current?.shutdown();
}
