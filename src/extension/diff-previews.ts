import path from 'node:path';
import * as vscode from 'vscode';
import { isFileEditTool, type BuiltinToolName } from '../core/agent/tools/tool-catalog';
import { Disposable } from './lifecycle';
import { showWarning } from './notifications';
import { readRegularFile } from '../core/read-regular-file';

export const DIFF_SCHEME = 'hookpilot-diff';
/** Previews kept in memory; older ones are dropped (their tabs then show an empty document). */
const MAX_DOCUMENTS = 64;
/** Larger files are not snapshotted or previewed. */
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** The file edit whose input holds the whole new content; the others replace a string. */
const WRITE_TOOL: BuiltinToolName = 'Write';

// The approval modal offers Show diff for the tools previewed here.

/** The file as it is, if it is a regular file of at most MAX_FILE_BYTES (the model may have made it a FIFO). */
function readSmallFile(file: string): string | undefined {
  try {
    return readRegularFile(file, MAX_FILE_BYTES, { followLinks: true });
  } catch {
    return undefined;
  }
}

function filePathOf(input: Record<string, unknown>, root: string): string | undefined {
  return typeof input.file_path === 'string' && input.file_path !== '' ? path.resolve(root, input.file_path) : undefined;
}

/** What a Write or Edit call would leave in the file; undefined when the edit would not apply. */
export function proposedContent(toolName: string, input: Record<string, unknown>, current: string): string | undefined {
  if (toolName === WRITE_TOOL) return typeof input.content === 'string' ? input.content : undefined;
  const oldString = input.old_string;
  const newString = input.new_string;
  if (typeof oldString !== 'string' || typeof newString !== 'string') return undefined;
  if (oldString === '') return current === '' ? newString : undefined;
  const at = current.indexOf(oldString);
  if (at < 0) return undefined;
  // split/join and slicing insert new_string literally (String.replace would expand `$&`).
  if (input.replace_all === true) return current.split(oldString).join(newString);
  return current.slice(0, at) + newString + current.slice(at + oldString.length);
}

/**
 * Diffs of file edits without touching the files: an in-memory TextDocumentContentProvider
 * whose documents are keyed by id (the content never travels in the URI). Before an edit
 * runs it shows current vs proposed; after, the file as it was vs as it is.
 */
export class DiffPreviews extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly documents = new Map<string, string>();
  private readonly before = new Map<string, { file: string; text: string }>();
  private counter = 0;

  constructor() {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.documents.get(uri.path.split('/')[1] ?? '') ?? '';
  }

  /**
   * Keeps the file's content before tool call `callId` runs; must be called synchronously
   * from tool_started. Its input is the model's own, so a relative path resolves against `root`.
   */
  snapshotBefore(callId: string, toolName: string, input: Record<string, unknown>, root: string): void {
    const file = filePathOf(input, root);
    if (!file || !isFileEditTool(toolName)) return;
    this.before.set(callId, { file, text: readSmallFile(file) ?? '' });
    while (this.before.size > MAX_DOCUMENTS) this.before.delete(this.before.keys().next().value as string);
  }

  /** The file vs what the pending call would write. False when there is nothing to show. */
  async showProposed(toolName: string, input: Record<string, unknown>, root: string): Promise<boolean> {
    const file = filePathOf(input, root);
    if (!file || !isFileEditTool(toolName)) return false;
    const current = readSmallFile(file) ?? '';
    const proposed = proposedContent(toolName, input, current);
    if (proposed === undefined) {
      void showWarning(
        `Hookpilot: the ${toolName} of ${path.basename(file)} does not apply to the file as it is now (the text to replace was not found).`,
      );
      return false;
    }
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.store(file, current),
      this.store(file, proposed),
      `${path.basename(file)}: current ↔ proposed (Hookpilot)`,
      { preview: true },
    );
    return true;
  }

  /** The file before call `callId` vs the file now. False when no snapshot was taken. */
  async showApplied(callId: string): Promise<boolean> {
    const snapshot = this.before.get(callId);
    if (!snapshot) return false;
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.store(snapshot.file, snapshot.text),
      vscode.Uri.file(snapshot.file),
      `${path.basename(snapshot.file)}: before ↔ after (Hookpilot)`,
      { preview: true },
    );
    return true;
  }

  private store(file: string, text: string): vscode.Uri {
    const id = `${Date.now().toString(36)}-${(this.counter++).toString(36)}`;
    this.documents.set(id, text);
    while (this.documents.size > MAX_DOCUMENTS) this.documents.delete(this.documents.keys().next().value as string);
    return vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${id}/${path.basename(file)}` });
  }
}
