import * as vscode from 'vscode';
import { inertLinks } from './inert-text';

/**
 * VS Code turns `[label](command:...)` in a notification into a link that runs the command.
 * A file name, a hook's error or reason, a rule: much of what a notification says can hold
 * text the model wrote, so every notification goes through here, which keeps it text
 * (inert-text.ts). A modal dialog shows its message as it is, links and all as text.
 */

type Show = typeof vscode.window.showInformationMessage;

function isModal(options: unknown): boolean {
  return typeof options === 'object' && options !== null && (options as vscode.MessageOptions).modal === true;
}

function shown(show: () => Show): Show {
  return ((message: string, ...rest: [never]) => show()(isModal(rest[0]) ? message : inertLinks(message), ...rest)) as Show;
}

// Looked up at each call, not bound once: the window's methods are VS Code's to replace.
export const showInformation: Show = shown(() => vscode.window.showInformationMessage);
export const showWarning: Show = shown(() => vscode.window.showWarningMessage);
export const showError: Show = shown(() => vscode.window.showErrorMessage);
