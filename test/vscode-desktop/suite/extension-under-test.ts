import * as vscode from 'vscode';
import { z } from 'zod';
import manifest from '../../../package.json';

/** `publisher.name`, as VS Code identifies the extension. */
export const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`;

// The manifest as VS Code hands it over is untyped: read only what the suite needs.
const contributedCommandsSchema = z.object({
  contributes: z.object({ commands: z.array(z.object({ command: z.string() })).optional() }).optional(),
});
const mainSchema = z.object({ main: z.string() });

export function hookpilotExtension(): vscode.Extension<unknown> {
  const extension = vscode.extensions.getExtension(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not loaded: is --extensionDevelopmentPath the repository root?`);
  return extension;
}

export async function activatedExtension(): Promise<vscode.Extension<unknown>> {
  const extension = hookpilotExtension();
  await extension.activate();
  return extension;
}

/** Command ids from `contributes.commands` of the manifest VS Code loaded. */
export function contributedCommands(extension: vscode.Extension<unknown>): string[] {
  const parsed = contributedCommandsSchema.safeParse(extension.packageJSON);
  if (!parsed.success) throw new Error(`unexpected contributes.commands in ${EXTENSION_ID}'s package.json: ${parsed.error.message}`);
  return (parsed.data.contributes?.commands ?? []).map((entry) => entry.command);
}

/** Polls until `condition` holds; the UI updates asynchronously after a command returns. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The manifest's `main`, relative to the extension's folder. */
export function mainEntry(extension: vscode.Extension<unknown>): string {
  const parsed = mainSchema.safeParse(extension.packageJSON);
  if (!parsed.success) throw new Error(`${EXTENSION_ID}'s package.json has no main: ${parsed.error.message}`);
  return parsed.data.main;
}

export function webviewTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((group) => group.tabs).filter((tab) => tab.input instanceof vscode.TabInputWebview);
}
