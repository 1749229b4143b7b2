import { closeSync, constants, mkdirSync, openSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HOOKS_JSON } from '../hooks/config/workspace-config-files';
import { lostHttpBounds } from './claude';
import { convertSources } from './convert-sources';
import { discoverHookSources, searchedLocations } from './discover';
import type { ImportReport, ImportTool } from './import-types';
import { planMerge } from './write-hooks-json';
import { readConfigText } from '../read-regular-file';
import { linkAmong } from '../agent/permissions/settings-links';

export { convertSources } from './convert-sources';
export { discoverHookSources, searchedLocations, type DiscoverOptions } from './discover';
export * from './import-types';
export { formatImportReport, formatImportWrite } from './report';
export { buildDocument, hookIdentity, mergeIntoHooksJson, planMerge, type MergePlan } from './write-hooks-json';

export interface ImportHooksOptions {
  /** The workspace: where other tools' files are found and `.vscode/hooks.json` is written. */
  cwd: string;
  from?: ImportTool;
  /** Report and return the text, write nothing. */
  dryRun: boolean;
  /** The home directory for user-level files (default: the user's). */
  home?: string;
}

export interface ImportHooksResult {
  report: ImportReport;
  /** The file written; absent on a dry run, or when there was nothing to add. */
  written?: string;
  /** `.vscode/hooks.json` as it is (or, on a dry run, would be) after the import. */
  text: string;
  /** `.vscode/hooks.json` as it was before the import ('' when there was none). */
  before: string;
}

function readIfPresent(file: string): string | undefined {
  try {
    return readConfigText(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Finds the hooks of other tools in `cwd`, converts them, and merges them into
 * `.vscode/hooks.json` (unless `dryRun`). Throws when the existing hooks.json cannot be
 * edited safely (a syntax error); nothing is written then.
 */
export function importHooks(options: ImportHooksOptions): ImportHooksResult {
  const projectDir = path.resolve(options.cwd);
  const found = discoverHookSources(projectDir, { home: options.home, from: options.from });
  const result = convertSources(found);
  const bounds = lostHttpBounds(found);
  for (const hook of result.hooks) {
    if (bounds === undefined || hook.handler.type !== 'http') continue;
    hook.entry.reasons.push(bounds);
    if (hook.entry.status === 'exact') hook.entry.status = 'changed';
  }
  const targetFile = path.join(projectDir, HOOKS_JSON);
  // A repository's `.vscode/hooks.json -> ~/.claude/settings.json` would take the imported hooks
  // (its own included) into a file every session of the user reads.
  const link = linkAmong([path.dirname(targetFile), targetFile]);
  if (link) throw new Error(`${path.relative(projectDir, link)} is a symbolic link: not importing through it`);
  const existing = readIfPresent(targetFile);
  const plan = result.hooks.length > 0 ? planMerge(existing, result) : { text: existing ?? '', added: [], alreadyPresent: [] };
  for (const hook of plan.alreadyPresent) {
    hook.entry.skipped = 'already-present';
    hook.entry.notes.push(`already in ${HOOKS_JSON.split(path.sep).join('/')}: not added again`);
  }
  const write = !options.dryRun && plan.added.length > 0;
  if (write) {
    mkdirSync(path.dirname(targetFile), { recursive: true });
    // Not through a link put there since the check above.
    const fd = openSync(targetFile, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
    try {
      writeFileSync(fd, plan.text);
    } finally {
      closeSync(fd);
    }
  }
  const report: ImportReport = {
    projectDir,
    target: HOOKS_JSON.split(path.sep).join('/'),
    dryRun: options.dryRun,
    searched: searchedLocations(options.from),
    sources: found
      .filter((s) => result.entries.some((e) => e.file === s.displayPath))
      .map((s) => ({ tool: s.tool, file: s.displayPath, scope: s.scope })),
    entries: result.entries,
    added: plan.added.length,
    written: write,
  };
  return { report, written: write ? targetFile : undefined, text: plan.text, before: existing ?? '' };
}
