import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { decodeText, MAX_TEXT_FILE_BYTES, openForUpdate, readUpTo, rewrite } from './file-content';
import { hiddenSpans, visibleOccurrences, type TextSpan } from './hidden-text';
import { truncateMiddle } from './output-limits';
import { MAX_READ_OUTPUT_CHARS, numberLines } from './read-tool';
import { structuredPatch, type PatchHunk } from './structured-patch';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';
import { filePathAccessors, workspaceFile } from './workspace-paths';

export const editInputSchema = z.object({
  file_path: z.string().min(1).describe('Absolute path of the file to edit (a relative path resolves against the working directory).'),
  old_string: z.string().describe('The exact text to replace, including whitespace and indentation.'),
  new_string: z.string().describe('The text to put in its place (must differ from old_string).'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_string (default false: it must occur exactly once).'),
});
export type EditInput = z.infer<typeof editInputSchema>;

/** Claude Code's Edit `tool_response`. */
export interface EditResponse {
  filePath: string;
  oldString: string;
  newString: string;
  originalFile: string;
  replaceAll: boolean;
  structuredPatch: PatchHunk[];
  userModified: boolean;
}

/** The changed region is echoed back to the model when it is at most this many lines. */
const MAX_SNIPPET_LINES = 40;

/**
 * The strings to search for and insert. Models usually write `\n`; in a CRLF file that text
 * only matches once its line breaks are written as `\r\n`.
 */
function matchLineEndings(original: string, input: EditInput, hidden: readonly TextSpan[]): { oldString: string; newString: string } {
  const plain = { oldString: input.old_string, newString: input.new_string };
  const occurs = (search: string) => visibleOccurrences(original, search, hidden).length > 0;
  if (!original.includes('\r\n') || input.old_string.includes('\r') || occurs(input.old_string)) return plain;
  const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
  return occurs(crlf(input.old_string)) ? { oldString: crlf(input.old_string), newString: crlf(input.new_string) } : plain;
}

/** `text` with `length` characters at each of `starts` replaced by `insert`, taken literally. */
function replacedAt(text: string, starts: readonly number[], length: number, insert: string): string {
  const parts: string[] = [];
  let from = 0;
  for (const start of starts) {
    parts.push(text.slice(from, start), insert);
    from = start + length;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * Whether every span hidden in the text before an edit is still hidden, moved by the edit, in
 * `after`: text next to a secret can decide whether it is recognised (`sk-` must not follow a
 * letter), so an edit beside it could show it whole.
 */
function staysHidden(hidden: readonly TextSpan[], edit: { starts: readonly number[]; shift: number }, after: TextSpan[]): boolean {
  let editsBefore = 0;
  let candidate = 0;
  for (const span of hidden) {
    while (editsBefore < edit.starts.length && edit.starts[editsBefore] < span.start) editsBefore += 1;
    const start = span.start + editsBefore * edit.shift;
    const end = span.end + editsBefore * edit.shift;
    while (candidate < after.length && after[candidate].end < end) candidate += 1;
    if (candidate === after.length || after[candidate].start > start) return false;
  }
  return true;
}

type Replacement =
  | {
      ok: true;
      updated: string;
      count: number;
      /** The file before and after as the model sees it, when a redactor was given. */
      seen?: { before: string; after: string };
    }
  | { ok: false; error: string };

/**
 * What Edit leaves in a file whose text is `original`, or why it refuses; the approval's diff
 * preview shows the same. With `redact`, what the model may see, Edit acts on the text as the
 * model sees it: an occurrence of old_string that touches a hidden secret is not there, for
 * the count and replace_all too. So no answer says whether a guess at a secret was right, and
 * no secret is changed, or split into pieces the redactor no longer knows.
 */
export function replaceIn(original: string, filePath: string, input: EditInput, redact?: (text: string) => string): Replacement {
  if (input.old_string === '') {
    if (original !== '') {
      return {
        ok: false,
        error: `old_string is empty but ${filePath} already has content. Give the text to replace, or use Write to replace the whole file.`,
      };
    }
    return { ok: true, updated: input.new_string, count: 1 };
  }
  const seenBefore = redact ? redact(original) : original;
  const hidden = hiddenSpans(original, seenBefore);
  const { oldString, newString } = matchLineEndings(original, input, hidden);
  const starts = visibleOccurrences(original, oldString, hidden);
  const count = starts.length;
  if (count === 0) {
    return {
      ok: false,
      error: `old_string not found in ${filePath}. It must match the file exactly, including whitespace and indentation; Read the file to check.`,
    };
  }
  if (count > 1 && !input.replace_all) {
    return {
      ok: false,
      error: `old_string occurs ${count} times in ${filePath}, but must be unique. Add surrounding lines to make it unique, or set replace_all to true to change every occurrence.`,
    };
  }
  const size = Buffer.byteLength(original) + count * (Buffer.byteLength(newString) - Buffer.byteLength(oldString));
  if (size > MAX_TEXT_FILE_BYTES) {
    return { ok: false, error: `The edit would make ${filePath} ${size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes Edit writes.` };
  }
  const updated = replacedAt(original, starts, oldString.length, newString);
  if (redact === undefined) return { ok: true, updated, count };
  const seenAfter = redact(updated);
  const shift = newString.length - oldString.length;
  if (!staysHidden(hidden, { starts, shift }, hiddenSpans(updated, seenAfter))) {
    return {
      ok: false,
      error: `The edit would change the text next to a hidden secret in ${filePath} so that the secret is no longer hidden; it was not made. Leave the text around the [REDACTED] part as it is.`,
    };
  }
  return { ok: true, updated, count, seen: { before: seenBefore, after: seenAfter } };
}

/** The edited region as the model sees the file (`patch`, of that text): numbered as Read numbers the redacted text. */
function summary(filePath: string, seen: { before: string; after: string }, patch: PatchHunk[], count: number): string {
  const headline =
    count > 1
      ? `The file ${filePath} has been updated: ${count} occurrences replaced.`
      : `The file ${filePath} has been updated successfully.`;
  const hunk = patch[0];
  if (hunk === undefined || hunk.newLines === 0 || hunk.newLines > MAX_SNIPPET_LINES) return headline;
  const lines = seen.after.split(/\r?\n/).slice(hunk.newStart - 1, hunk.newStart - 1 + hunk.newLines);
  // Forty lines can still be long ones: capped as Read caps what it shows.
  return `${headline} The edited region now reads:\n${truncateMiddle(numberLines(lines, hunk.newStart), MAX_READ_OUTPUT_CHARS)}`;
}

async function readOriginal(handle: FileHandle, filePath: string): Promise<{ text: string } | { error: string }> {
  const read = await readUpTo(handle, MAX_TEXT_FILE_BYTES);
  if ('size' in read) {
    return { error: `Cannot edit ${filePath}: it is ${read.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes Edit reads.` };
  }
  const decoded = decodeText(read.bytes);
  return 'problem' in decoded ? { error: `Cannot edit ${filePath}: ${decoded.problem}.` } : decoded;
}

export function createEditTool(): Tool<EditInput> {
  return {
    ...builtinToolIdentity('Edit'),
    description:
      'Replaces text in a file: old_string must occur exactly once (include enough surrounding lines to make it unique) ' +
      'unless replace_all is true. Match the file exactly, including indentation; Read the file first. An empty ' +
      'old_string creates a new file with new_string. Paths must be inside the workspace.',
    inputSchema: editInputSchema,
    ...filePathAccessors(),
    async run(input, ctx): Promise<ToolResult> {
      const file = workspaceFile(input.file_path, ctx);
      if (!file.ok) return toolFailure(file.error);
      const filePath = file.path;
      // The executor does not run a call of a cancelled turn; should one get here anyway, it changes nothing.
      if (ctx.signal.aborted) return toolFailure(`Did not edit ${filePath}: the turn was cancelled.`, { interrupted: true });
      if (input.old_string === input.new_string) {
        return toolFailure('old_string and new_string are identical: there is nothing to change.');
      }
      const creating = input.old_string === '';
      try {
        const opened = await openForUpdate(file.physical, input.file_path, creating);
        if (!opened) return toolFailure(`File does not exist: ${filePath}`);
        try {
          const original = opened.created ? { text: '' } : await readOriginal(opened.handle, filePath);
          if ('error' in original) return toolFailure(original.error);
          const replacement = replaceIn(original.text, filePath, input, ctx.redactForModel);
          if (!replacement.ok) return toolFailure(replacement.error);
          await rewrite(opened.handle, replacement.updated);
          const patch = structuredPatch(original.text, replacement.updated);
          const response: EditResponse = {
            filePath,
            oldString: input.old_string,
            newString: input.new_string,
            originalFile: original.text,
            replaceAll: input.replace_all ?? false,
            structuredPatch: patch,
            userModified: false,
          };
          const seen = replacement.seen ?? { before: original.text, after: replacement.updated };
          // A file that hides nothing is seen as it is: its patch is diffed once.
          const seenPatch =
            seen.before === original.text && seen.after === replacement.updated ? patch : structuredPatch(seen.before, seen.after);
          return { ok: true, content: summary(filePath, seen, seenPatch, replacement.count), response };
        } finally {
          await opened.handle.close();
        }
      } catch (error) {
        return toolFailure(`Cannot edit ${filePath}: ${errorMessage(error)}`);
      }
    },
  };
}
