import path from 'node:path';
import type { ConfigProblem } from '../core/hooks/config/config-problems';
import { parseJsonPath } from '../core/hooks/config/json-path';
import { parseJsonc, type ParsedJsonc } from '../core/hooks/config/jsonc-document';
import type { HookSource } from '../core/hooks/types';
import { readConfigText } from '../core/read-regular-file';

const SETTINGS_KEY = 'hookpilot.hooks';
const SETTINGS_KINDS = new Set(['user', 'workspace', 'folder']);

/**
 * Positions for what the loader could only name by JSON path: values of the
 * `hookpilot.hooks` setting. Each settings file is parsed once.
 */
export class SettingsPositions {
  private readonly documents = new Map<string, ParsedJsonc>();

  locate(file: string, jsonPath: string): { line: number; column: number } | undefined {
    const { value, locator } = this.document(file);
    const path = parseJsonPath(jsonPath);
    // Without the setting, the locator's nearest enclosing node would be the whole file: no position is better.
    if (!path || value === null || typeof value !== 'object' || Array.isArray(value) || !(SETTINGS_KEY in value)) return undefined;
    const range = locator.locate([SETTINGS_KEY, ...path], 'value');
    return range && { line: range.line, column: range.column };
  }

  private document(file: string): ParsedJsonc {
    let document = this.documents.get(file);
    if (!document) {
      let text = '';
      try {
        text = readConfigText(file);
      } catch {
        // A file that vanished has no positions; the problem still prints with its path.
      }
      document = parseJsonc(text);
      this.documents.set(file, document);
    }
    return document;
  }
}

/** A path for people: relative to where they ran the command when that is shorter. */
export function displayPath(file: string, cwd: string): string {
  const rel = path.relative(cwd, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

export function isSettingsSource(kind: string): boolean {
  return SETTINGS_KINDS.has(kind);
}

/** `file:line:column: severity: message`, with the setting's JSON path for settings files. */
export function formatProblem(problem: ConfigProblem, positions: SettingsPositions, cwd: string): string {
  const settings = isSettingsSource(problem.sourceKind);
  let line = problem.line;
  let column = problem.column;
  if (line === undefined && settings && problem.file && problem.path) {
    const found = positions.locate(problem.file, problem.path);
    line = found?.line;
    column = found?.column;
  }
  const where = problem.file ? displayPath(problem.file, cwd) : problem.sourceKind;
  const at = line !== undefined ? `${where}:${line}:${column ?? 1}` : where;
  const jsonPath = settings && problem.path ? ` (${SETTINGS_KEY}.${problem.path})` : '';
  return `${at}: ${problem.severity}: ${problem.message}${jsonPath}`;
}

/** Where a hook was defined, as `file:line` (settings hooks are located by their path). */
export function formatSource(source: HookSource, positions: SettingsPositions, cwd: string): string {
  if (!source.file) return source.kind;
  let line = source.line;
  if (line === undefined && isSettingsSource(source.kind) && source.path) line = positions.locate(source.file, source.path)?.line;
  return `${displayPath(source.file, cwd)}${line !== undefined ? `:${line}` : ''}`;
}
