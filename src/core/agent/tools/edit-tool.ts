import type { FileHandle } from 'node:fs/promises';
import { z } from 'zod';
import { decodeText, MAX_TEXT_FILE_BYTES, openForUpdate, oversizedFile, rewrite } from './file-content';
import { truncateRedacted } from './output-limits';
import { MAX_READ_OUTPUT_CHARS, numberLines } from './read-tool';
import { structuredPatch, type PatchHunk } from './structured-patch';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolContext, type ToolResult } from './tool';
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

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let at = text.indexOf(search); at !== -1; at = text.indexOf(search, at + search.length)) count += 1;
  return count;
}

/**
 * The strings to search for and insert. Models usually write `\n`; in a CRLF file that text
 * only matches once its line breaks are written as `\r\n`.
 */
function matchLineEndings(original: string, input: EditInput): { oldString: string; newString: string } {
  const plain = { oldString: input.old_string, newString: input.new_string };
  if (!original.includes('\r\n') || input.old_string.includes('\r') || original.includes(input.old_string)) return plain;
  const crlf = (text: string) => text.replace(/\r?\n/g, '\r\n');
  return original.includes(crlf(input.old_string)) ? { oldString: crlf(input.old_string), newString: crlf(input.new_string) } : plain;
}

type Replacement = { ok: true; updated: string; count: number } | { ok: false; error: string };

/** What Edit leaves in a file whose text is `original`, or why it refuses; the approval's diff preview shows the same. */
export function replaceIn(original: string, filePath: string, input: EditInput): Replacement {
  if (input.old_string === '') {
    if (original !== '') {
      return {
        ok: false,
        error: `old_string is empty but ${filePath} already has content. Give the text to replace, or use Write to replace the whole file.`,
      };
    }
    return { ok: true, updated: input.new_string, count: 1 };
  }
  const { oldString, newString } = matchLineEndings(original, input);
  const count = countOccurrences(original, oldString);
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
  // A replacer function and slicing insert new_string literally (a replacement string would expand `$&` and friends).
  if (input.replace_all) return { ok: true, updated: original.replaceAll(oldString, () => newString), count };
  const at = original.indexOf(oldString);
  return { ok: true, updated: original.slice(0, at) + newString + original.slice(at + oldString.length), count };
}

function summary(filePath: string, updated: string, count: number, patch: PatchHunk[], ctx: ToolContext): string {
  const headline =
    count > 1
      ? `The file ${filePath} has been updated: ${count} occurrences replaced.`
      : `The file ${filePath} has been updated successfully.`;
  const hunk = patch[0];
  if (hunk === undefined || hunk.newLines === 0 || hunk.newLines > MAX_SNIPPET_LINES) return headline;
  const lines = updated.split(/\r?\n/).slice(hunk.newStart - 1, hunk.newStart - 1 + hunk.newLines);
  // Forty lines can still be long ones: capped as Read caps what it shows.
  return `${headline} The edited region now reads:\n${truncateRedacted(numberLines(lines, hunk.newStart), ctx.redactForModel, MAX_READ_OUTPUT_CHARS)}`;
}

async function readOriginal(handle: FileHandle, filePath: string): Promise<{ text: string } | { error: string }> {
  const size = await oversizedFile(handle);
  if (size !== undefined) {
    return { error: `Cannot edit ${filePath}: it is ${size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes Edit reads.` };
  }
  const decoded = decodeText(await handle.readFile());
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
          const replacement = replaceIn(original.text, filePath, input);
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
          return { ok: true, content: summary(filePath, replacement.updated, replacement.count, patch, ctx), response };
        } finally {
          await opened.handle.close();
        }
      } catch (error) {
        return toolFailure(`Cannot edit ${filePath}: ${errorMessage(error)}`);
      }
    },
  };
}
