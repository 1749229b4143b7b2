import { basename, dirname, resolve } from 'node:path';
import fg from 'fast-glob';
import picomatch from 'picomatch';
import { z } from 'zod';
import { byNewest, findFiles, resolveSearchRoot } from './file-search';
import { errorMessage } from '../../error-message';
import { toolFailure, type Tool, type ToolContext, type ToolResult } from './tool';
import { builtinToolIdentity } from './tool-catalog';
import { resolveInWorkspace } from './workspace-paths';

export const MAX_GLOB_RESULTS = 100;

export const globInputSchema = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/**/*.{js,jsx}".'),
  path: z.string().optional().describe('Directory to search in (default: the working directory).'),
});
export type GlobInput = z.infer<typeof globInputSchema>;

/** Claude Code's Glob `tool_response`. */
export interface GlobResponse {
  filenames: string[];
  numFiles: number;
  truncated: boolean;
  durationMs: number;
}

/**
 * Splits a pattern into the directory it starts from and the glob below it, so that a
 * pattern like `../x/*.ts` or `/abs/dir/**` is checked against the workspace like a path.
 */
function splitPattern(pattern: string, searchDirectory: string, ctx: ToolContext): { directory: string; glob: string } {
  const scan = picomatch.scan(pattern);
  if (!scan.isGlob) {
    const literal = resolve(searchDirectory, pattern);
    return { directory: resolveInWorkspace(dirname(literal), ctx), glob: fg.escapePath(basename(literal)) };
  }
  return { directory: resolveInWorkspace(resolve(searchDirectory, scan.base), ctx), glob: scan.glob };
}

export function createGlobTool(): Tool<GlobInput> {
  return {
    ...builtinToolIdentity('Glob'),
    description:
      'Finds files by glob pattern (e.g. "**/*.ts", "src/**/*.{js,jsx}") and returns their absolute paths, most ' +
      `recently modified first, at most ${MAX_GLOB_RESULTS}. Skips node_modules and .git. Use Grep to search file contents.`,
    inputSchema: globInputSchema,
    target: (input) => input.path,
    async run(input, ctx): Promise<ToolResult> {
      const started = performance.now();
      try {
        const root = await resolveSearchRoot(input.path, ctx);
        if (root.kind !== 'directory') return toolFailure(`Not a directory: ${root.path}`);
        const { directory, glob } = splitPattern(input.pattern, root.path, ctx);
        const found = (await findFiles(glob, directory, root.path, ctx)).sort(byNewest);
        const filenames = found.slice(0, MAX_GLOB_RESULTS).map((file) => file.path);
        const truncated = found.length > MAX_GLOB_RESULTS;
        const response: GlobResponse = {
          filenames,
          numFiles: filenames.length,
          truncated,
          durationMs: Math.round(performance.now() - started),
        };
        if (filenames.length === 0) return { ok: true, content: 'No files found', response };
        const note = truncated
          ? `\n(Results are truncated to the ${MAX_GLOB_RESULTS} newest of ${found.length} files. Use a more specific path or pattern.)`
          : '';
        return { ok: true, content: filenames.join('\n') + note, response };
      } catch (error) {
        if (ctx.signal.aborted) return toolFailure('Search aborted before it finished', { interrupted: true });
        return toolFailure(errorMessage(error));
      }
    },
  };
}
