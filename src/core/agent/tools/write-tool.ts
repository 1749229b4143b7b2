import { z } from 'zod';
import { MAX_TEXT_FILE_BYTES, openForUpdate, readUpTo, rewrite } from './file-content';
import { structuredPatch, type PatchHunk } from './structured-patch';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';
import { filePathAccessors, workspaceFile } from './workspace-paths';

export const writeInputSchema = z.object({
  file_path: z.string().min(1).describe('Absolute path of the file to write (a relative path resolves against the working directory).'),
  content: z.string().describe('The complete new content of the file.'),
});
export type WriteInput = z.infer<typeof writeInputSchema>;

/** Claude Code's Write `tool_response`. */
export interface WriteResponse {
  type: 'create' | 'update';
  filePath: string;
  content: string;
  originalFile: string | null;
  structuredPatch: PatchHunk[];
}

export function createWriteTool(): Tool<WriteInput> {
  return {
    ...builtinToolIdentity('Write'),
    description:
      'Writes a file, replacing it if it exists and creating missing parent directories. Prefer Edit for changing ' +
      'part of an existing file. Paths must be inside the workspace.',
    inputSchema: writeInputSchema,
    ...filePathAccessors(),
    async run(input, ctx): Promise<ToolResult> {
      const file = workspaceFile(input.file_path, ctx);
      if (!file.ok) return toolFailure(file.error);
      const filePath = file.path;
      // The executor does not run a call of a cancelled turn; should one get here anyway, it changes nothing.
      if (ctx.signal.aborted) return toolFailure(`Did not write ${filePath}: the turn was cancelled.`, { interrupted: true });
      try {
        const opened = await openForUpdate(file.physical, input.file_path, true);
        if (!opened) throw new Error('it vanished while being opened');
        let originalFile: string | null;
        try {
          // The original is kept whole for the response and the patch.
          const original = opened.created ? undefined : await readUpTo(opened.handle, MAX_TEXT_FILE_BYTES);
          if (original !== undefined && 'size' in original) {
            return toolFailure(
              `Cannot write ${filePath}: it is ${original.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} bytes Write replaces.`,
            );
          }
          originalFile = original === undefined ? null : original.bytes.toString('utf8');
          await rewrite(opened.handle, input.content);
        } finally {
          await opened.handle.close();
        }
        const response: WriteResponse = {
          type: originalFile === null ? 'create' : 'update',
          filePath,
          content: input.content,
          originalFile,
          structuredPatch: originalFile === null ? [] : structuredPatch(originalFile, input.content),
        };
        const content =
          originalFile === null ? `File created successfully at: ${filePath}` : `The file ${filePath} has been updated successfully.`;
        return { ok: true, content, response };
      } catch (error) {
        return toolFailure(`Cannot write ${filePath}: ${errorMessage(error)}`);
      }
    },
  };
}
