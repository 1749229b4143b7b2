import { readConfigText } from '../core/read-regular-file';
import * as vscode from 'vscode';
import type { ConfigProblem, TextRange } from '../core/hooks/config/config-problems';
import { parseJsonPath, type JsonPath } from '../core/hooks/config/json-path';
import { parseJsonc } from '../core/hooks/config/jsonc-document';
import { Disposable } from './lifecycle';

const SETTINGS_KEY = 'hookpilot.hooks';

function toRange(range: TextRange): vscode.Range {
  return new vscode.Range(range.line - 1, range.column - 1, range.endLine - 1, range.endColumn - 1);
}

const SETTINGS_SOURCES: ReadonlySet<ConfigProblem['sourceKind']> = new Set(['user', 'workspace', 'folder']);

const SEVERITY: Record<ConfigProblem['severity'], vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/**
 * Where a problem sits in its file. Loader problems carry exact ranges; script problems
 * carry the handler's path, which points the squiggle at its `command`; settings files
 * are located under "hookpilot.hooks".
 */
export function problemRange(problem: ConfigProblem, text: string): vscode.Range {
  if (problem.line !== undefined && problem.column !== undefined && problem.endLine !== undefined && problem.endColumn !== undefined) {
    return toRange({ line: problem.line, column: problem.column, endLine: problem.endLine, endColumn: problem.endColumn });
  }
  const path = parseJsonPath(problem.path);
  if (path) {
    // Only VS Code's settings files nest hooks under the setting; hooks.json, Claude Code's files and the policy hold them at the top.
    const base: JsonPath = SETTINGS_SOURCES.has(problem.sourceKind) ? [SETTINGS_KEY, ...path] : path;
    const { locator } = parseJsonc(text);
    const scriptProblem = problem.code === 'script-missing' || problem.code === 'script-not-executable';
    const located = (scriptProblem ? locator.locate([...base, 'command'], 'value') : undefined) ?? locator.locate(base, 'value');
    if (located) return toRange(located);
  }
  if (problem.line !== undefined) {
    const line = Math.max(0, problem.line - 1);
    const column = Math.max(0, (problem.column ?? 1) - 1);
    return new vscode.Range(line, column, line, Math.max(column + 1, text.split(/\r?\n/)[line]?.length ?? column + 1));
  }
  return new vscode.Range(0, 0, 0, 0);
}

export function toDiagnostic(problem: ConfigProblem, text: string): vscode.Diagnostic {
  const diagnostic = new vscode.Diagnostic(problemRange(problem, text), problem.message, SEVERITY[problem.severity]);
  diagnostic.source = 'Hookpilot';
  diagnostic.code = problem.code;
  return diagnostic;
}

/**
 * Problems the JSON schema cannot see (bad regex, unknown event, missing or
 * non-executable script) as diagnostics on hooks.json and settings.json, with positions.
 */
export class HooksDiagnostics extends Disposable {
  private readonly collection = this._register(vscode.languages.createDiagnosticCollection('hookpilot'));

  /** `texts` are the files' contents as loaded (hooks.json); others are read from disk. */
  async update(problems: readonly ConfigProblem[], texts: ReadonlyMap<string, string>): Promise<void> {
    const byFile = new Map<string, ConfigProblem[]>();
    for (const problem of problems) {
      if (!problem.file) continue;
      byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), problem]);
    }
    const entries: [vscode.Uri, vscode.Diagnostic[]][] = [];
    for (const [file, list] of byFile) {
      const text = texts.get(file) ?? textOrEmpty(file);
      entries.push([vscode.Uri.file(file), list.map((p) => toDiagnostic(p, text))]);
    }
    this.collection.clear();
    this.collection.set(entries);
  }

  get(uri: vscode.Uri): readonly vscode.Diagnostic[] {
    return this.collection.get(uri) ?? [];
  }
}

/** A file's text for placing its problems; none when it cannot be read (the problem says why). */
function textOrEmpty(file: string): string {
  try {
    return readConfigText(file);
  } catch {
    return '';
  }
}
