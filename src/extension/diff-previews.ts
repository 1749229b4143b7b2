import path from 'node:path';
import * as vscode from 'vscode';
import { editInputSchema, replaceIn } from '../core/agent/tools/edit-tool';
import { decodeText, errnoCode, MAX_TEXT_FILE_BYTES } from '../core/agent/tools/file-content';
import { isFileEditTool, type BuiltinToolName } from '../core/agent/tools/tool-catalog';
import { writeInputSchema } from '../core/agent/tools/write-tool';
import { errorMessage } from '../core/error-message';
import { Disposable } from './lifecycle';
import { showWarning } from './notifications';
import { readRegularBytes } from '../core/read-regular-file';

export const DIFF_SCHEME = 'hookpilot-diff';
/** Previews kept in memory; older ones are dropped (their tabs then show an empty document). */
const MAX_DOCUMENTS = 64;
/** Larger files are not snapshotted: every file edit takes a snapshot, whether or not its diff is ever shown. */
const MAX_SNAPSHOT_BYTES = 2 * 1024 * 1024;
/** The file edit whose input holds the whole new content; the others replace a string. */
const WRITE_TOOL: BuiltinToolName = 'Write';

// The approval modal offers Show diff for the tools previewed here.

type FileText = { text: string } | { problem: string };

/**
 * The file's text as the file tools read it, or why there is none to show: a regular file
 * (the model may have made it a FIFO) of at most `maxBytes`, in UTF-8. A missing file is
 * empty: Write, or an Edit with an empty old_string, creates it.
 */
function readText(file: string, maxBytes: number): FileText {
  try {
    return decodeText(readRegularBytes(file, maxBytes, { followLinks: true }));
  } catch (error) {
    return errnoCode(error) === 'ENOENT' ? { text: '' } : { problem: errorMessage(error) };
  }
}

function filePathOf(input: Record<string, unknown>, root: string): string | undefined {
  return typeof input.file_path === 'string' && input.file_path !== '' ? path.resolve(root, input.file_path) : undefined;
}

/**
 * What a Write or Edit call would leave in a file whose text is `current`, computed as the
 * tool computes it, with what the model may see (`redact`); or the tool's reason to refuse,
 * when it would change nothing.
 */
export function proposedContent(
  toolName: string,
  input: Record<string, unknown>,
  current: string,
  redact?: (text: string) => string,
): { ok: true; text: string } | { ok: false; error: string } {
  if (toolName === WRITE_TOOL) {
    const write = writeInputSchema.safeParse(input);
    return write.success ? { ok: true, text: write.data.content } : { ok: false, error: 'its input is not valid' };
  }
  const edit = editInputSchema.safeParse(input);
  if (!edit.success) return { ok: false, error: 'its input is not valid' };
  const replacement = replaceIn(current, path.basename(edit.data.file_path), edit.data, redact);
  return replacement.ok ? { ok: true, text: replacement.updated } : replacement;
}

/**
 * Diffs of file edits without touching the files: an in-memory TextDocumentContentProvider
 * whose documents are keyed by id (the content never travels in the URI). Before an edit
 * runs it shows current vs proposed; after, the file as it was vs as it is.
 */
export class DiffPreviews extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly documents = new Map<string, string>();
  private readonly before = new Map<string, { file: string } & FileText>();
  private counter = 0;

  /** `redactForModel`: an Edit acts on the text as the model sees it, and the preview shows what it would do. */
  constructor(private readonly redactForModel: (text: string) => string) {
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
    this.before.set(callId, { file, ...readText(file, MAX_SNAPSHOT_BYTES) });
    while (this.before.size > MAX_DOCUMENTS) this.before.delete(this.before.keys().next().value as string);
  }

  /** The file vs what the pending call would write. False when there is nothing to show. */
  async showProposed(toolName: string, input: Record<string, unknown>, root: string): Promise<boolean> {
    const file = filePathOf(input, root);
    if (!file || !isFileEditTool(toolName)) return false;
    // Read with the tools' own limit: a smaller one would show a file they do rewrite as missing.
    const current = readText(file, MAX_TEXT_FILE_BYTES);
    if ('problem' in current) {
      void showWarning(`Hookpilot: cannot preview the ${toolName} of ${path.basename(file)}: ${current.problem}.`);
      return false;
    }
    const proposed = proposedContent(toolName, input, current.text, this.redactForModel);
    if (!proposed.ok) {
      void showWarning(
        `Hookpilot: the ${toolName} of ${path.basename(file)} does not apply to the file as it is now, so it would change nothing: ${proposed.error}`,
      );
      return false;
    }
    await vscode.commands.executeCommand(
      'vscode.diff',
      this.store(file, current.text),
      this.store(file, proposed.text),
      `${path.basename(file)}: current ↔ proposed (Hookpilot)`,
      { preview: true },
    );
    return true;
  }

  /** The file before call `callId` vs the file now. False when no snapshot was taken. */
  async showApplied(callId: string): Promise<boolean> {
    const snapshot = this.before.get(callId);
    if (!snapshot) return false;
    if ('problem' in snapshot) {
      void showWarning(
        `Hookpilot: no diff of ${path.basename(snapshot.file)}: its content before the call was not kept: ${snapshot.problem}.`,
      );
      return true;
    }
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
