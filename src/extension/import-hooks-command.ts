import path from 'node:path';
import * as vscode from 'vscode';
import { formatImportReport, formatImportWrite, importHooks } from '../core/import/import-hooks';
import { IMPORT_TOOLS, type ImportTool } from '../core/import/import-types';
import type { EngineHost } from './engine-host';
import { showError, showInformation } from './notifications';
import { showQuickPick } from './quick-inputs';

const TOOL_LABELS: Record<ImportTool, string> = {
  claude: 'Claude Code (.claude/settings*.json, ~/.claude/settings.json)',
  copilot: 'VS Code / GitHub Copilot (.github/hooks/*.json)',
  cline: 'Cline (.clinerules/hooks/)',
  cursor: 'Cursor (.cursor/hooks.json)',
  gemini: 'Gemini CLI (.gemini/settings.json)',
  'coding-agent': 'coding-agent (.coding-agent/hooks.json)',
  atomcode: 'AtomCode (.hooks.json, .atomcode/hooks/hooks.toml)',
};

/**
 * "Hookpilot: Import Hooks…": the same import as `hookpilot hooks import`. The report is shown
 * first (a dry run), and nothing is written until the user confirms.
 */
export async function importHooksCommand(engineHost: EngineHost): Promise<void> {
  const cwd = engineHost.projectDir;
  if (!cwd) {
    void showError('Hookpilot: open a folder first; imported hooks go to its .vscode/hooks.json.');
    return;
  }
  const pick = await showQuickPick(
    [
      { label: 'All tools', tool: undefined as ImportTool | undefined },
      ...IMPORT_TOOLS.map((tool) => ({ label: TOOL_LABELS[tool], tool })),
    ],
    { title: 'Hookpilot: Import Hooks', placeHolder: 'Import hooks from which tool?' },
  );
  if (!pick) return;
  const preview = importHooks({ cwd, from: pick.tool, dryRun: true });
  const written = preview.report.added > 0 ? `\n${formatImportWrite(preview.report.target, preview.before, preview.text)}` : '';
  await vscode.window.showTextDocument(
    await vscode.workspace.openTextDocument({ content: formatImportReport(preview.report) + written, language: 'markdown' }),
    { preview: true },
  );
  if (preview.report.added === 0) {
    void showInformation(
      preview.report.entries.length === 0
        ? 'Hookpilot: no hooks of other tools were found (see the report).'
        : 'Hookpilot: nothing new to import (see the report).',
    );
    return;
  }
  const answer = await showInformation(
    `Import ${preview.report.added} hook(s) into .vscode/hooks.json? The report lists what changes meaning and what cannot carry over, and ends with exactly what is written.`,
    { modal: true },
    'Import',
  );
  if (answer !== 'Import') return;
  // The person confirmed this text: written by Hookpilot, it applies at once.
  engineHost.expectHooksJsonWrite(path.join(cwd, '.vscode', 'hooks.json'), preview.text);
  const result = importHooks({ cwd, from: pick.tool, dryRun: false });
  await engineHost.reload();
  if (result.written) await vscode.window.showTextDocument(vscode.Uri.file(result.written), { preview: false });
}
