import { createTwoFilesPatch } from 'diff';
import { TOOL_LABELS, type ImportReport, type ImportReportEntry, type ImportStatus } from './import-types';

const HEADINGS: Readonly<Record<ImportStatus, string>> = {
  exact: 'Converted exactly',
  changed: 'Converted, but the meaning changed',
  unsupported: 'Cannot carry over (not imported)',
};

const REASON_LABEL: Readonly<Record<ImportStatus, string>> = { exact: 'changed', changed: 'changed', unsupported: 'why' };

function target(entry: ImportReportEntry): string {
  if (!entry.targetEvent) return '';
  return `→ ${entry.targetEvent}${entry.matcher !== undefined ? ` [${entry.matcher}]` : ''}`;
}

function formatEntry(entry: ImportReportEntry, withStatus: boolean): string[] {
  const lines = [`  ${entry.file}: ${entry.original}`];
  const to = target(entry);
  if (to || withStatus) lines.push(`    ${to}${withStatus ? `${to ? ' ' : ''}(${entry.status})` : ''}`);
  for (const reason of entry.reasons) lines.push(`    ${REASON_LABEL[entry.status]}: ${reason}`);
  for (const note of entry.notes) lines.push(`    note: ${note}`);
  return lines;
}

/** The report as text: sources, then every hook grouped by status, then what was written. */
export function formatImportReport(report: ImportReport): string {
  const lines: string[] = [];
  if (report.entries.length === 0) {
    lines.push(`No hooks found to import. Looked in: ${report.searched.join(', ')}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push(`Hooks found in ${report.sources.length} file(s):`);
  const width = Math.max(...report.sources.map((s) => s.file.length));
  for (const source of report.sources) lines.push(`  ${source.file.padEnd(width)}  ${TOOL_LABELS[source.tool]} (${source.scope})`);
  for (const status of ['exact', 'changed', 'unsupported'] as const) {
    const entries = report.entries.filter((e) => e.status === status && e.skipped === undefined);
    if (entries.length === 0) continue;
    lines.push('', `${HEADINGS[status]}: ${entries.length}`);
    for (const entry of entries) lines.push(...formatEntry(entry, false));
  }
  const skipped = report.entries.filter((e) => e.skipped !== undefined);
  if (skipped.length > 0) {
    lines.push('', `Already imported, not added again: ${skipped.length}`);
    for (const entry of skipped) lines.push(...formatEntry(entry, true));
  }
  lines.push('');
  if (report.dryRun) lines.push(`Dry run: nothing written; ${report.added} hook(s) would be added to ${report.target}.`);
  else if (report.written) lines.push(`${report.target}: ${report.added} hook(s) added.`);
  else lines.push(`${report.target}: nothing to add.`);
  return `${lines.join('\n')}\n`;
}

/**
 * Exactly what an import writes, as a unified diff of the target file: the report names each
 * hook in brief (a long command shortened, no args, env or headers), and what a person approves
 * must be all that will run.
 */
export function formatImportWrite(target: string, before: string, after: string): string {
  const patch = createTwoFilesPatch(`${target} (now)`, `${target} (after the import)`, before, after, undefined, undefined, { context: 2 });
  return `What the import writes to ${target}, in full:\n\n\`\`\`diff\n${patch}\`\`\`\n`;
}
