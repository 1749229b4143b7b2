import path from 'node:path';
import { resolvedRuleView } from '../permissions/resolved-rule-view';
import type { PermissionSettings } from './permissions/permission-settings';
import { compileRules, ruleSignal, type CompiledRule } from './permissions/rule-signals';
import { errnoCode, isBinaryFile, openForReading } from './tools/file-content';
import { resolveInWorkspace } from './tools/workspace-paths';
import { errorMessage } from '../error-message';

/** The files every agent users compare Hookpilot with reads at the workspace root, in this order. */
export const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'] as const;

/** Beyond this, a file is cut: instructions are prose, not a place for a large document. */
const MAX_INSTRUCTION_BYTES = 64 * 1024;

export interface ProjectInstructions {
  /** Absolute path, as InstructionsLoaded reports it. */
  filePath: string;
  content: string;
  truncated: boolean;
}

/**
 * AGENTS.md, and CLAUDE.md when present, from the workspace root. A file reached through a
 * symlink leading outside the workspace, a hard-linked file, a binary or unreadable one is
 * skipped (the reason is returned): the model must never be handed a file from elsewhere.
 * So is one a Read deny or ask rule covers, as named or where its links lead: the model may
 * have made it a link to a file the rules keep from it.
 */
export async function loadProjectInstructions(
  workspaceRoot: string,
  permissions: PermissionSettings,
  home: string,
): Promise<{ loaded: ProjectInstructions[]; skipped: string[] }> {
  const loaded: ProjectInstructions[] = [];
  const skipped: string[] = [];
  const rules = compileRules(permissions);
  for (const name of INSTRUCTION_FILES) {
    const filePath = path.join(workspaceRoot, name);
    try {
      const physical = resolveInWorkspace(filePath, { workspaceRoot, cwd: workspaceRoot });
      const refusal = readRefusal(rules, filePath, physical, workspaceRoot, home, permissions);
      if (refusal !== undefined) {
        skipped.push(`${name}: ${refusal}`);
        continue;
      }
      const handle = await openForReading(physical, filePath);
      try {
        if (!(await handle.stat()).isFile() || (await isBinaryFile(handle))) {
          skipped.push(`${name}: not a text file`);
          continue;
        }
        const buffer = Buffer.alloc(MAX_INSTRUCTION_BYTES + 1);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        const truncated = bytesRead > MAX_INSTRUCTION_BYTES;
        const content = buffer.subarray(0, Math.min(bytesRead, MAX_INSTRUCTION_BYTES)).toString('utf8').trim();
        if (content !== '') loaded.push({ filePath, content, truncated });
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') continue;
      skipped.push(`${name}: ${errorMessage(error)}`);
    }
  }
  return { loaded, skipped };
}

/** Why the Read rules keep `filePath` from the model (a deny or an ask: no person is there to answer), if they do. */
function readRefusal(
  rules: readonly CompiledRule[],
  filePath: string,
  physical: string,
  workspaceRoot: string,
  home: string,
  permissions: PermissionSettings,
): string | undefined {
  const input = { file_path: filePath };
  const places = { cwd: workspaceRoot, projectRoot: workspaceRoot, home };
  const signal = ruleSignal(
    rules,
    [],
    {
      toolName: 'Read',
      input,
      places,
      physical: resolvedRuleView(input, physical, places),
      scope: { workspaceRoot, cwd: workspaceRoot, additionalDirectories: permissions.additionalDirectories },
      editAllowed: () => false,
    },
    'rule',
  );
  return signal && signal.verdict !== 'allow' ? signal.reason : undefined;
}

/** The system prompt section: each file under its name, as written. */
export function instructionsSection(files: readonly ProjectInstructions[]): string {
  if (files.length === 0) return '';
  const parts = files.map((f) => `## ${path.basename(f.filePath)}\n\n${f.content}${f.truncated ? '\n\n[cut at 64 KB]' : ''}`);
  return `# Project instructions (from the workspace)\n\n${parts.join('\n\n')}`;
}
