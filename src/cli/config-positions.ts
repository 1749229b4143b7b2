import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';
import type { ConfigProblem } from '../core/hooks/config/config-problems';
import type { HookSource } from '../core/hooks/types';

const SETTINGS_KEY = 'hookpilot.hooks';
const SETTINGS_KINDS = new Set(['user', 'workspace', 'folder']);

/** `hooks.PreToolUse[0]["odd key"]` back into its segments. */
export function parseJsonPath(text: string): Array<string | number> {
  const segments: Array<string | number> = [];
  const token = /([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\./gy;
  let match: RegExpExecArray | null;
  while (token.lastIndex < text.length && (match = token.exec(text)) !== null) {
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else if (match[3] !== undefined) segments.push(JSON.parse(match[3]) as string);
  }
  return segments;
}

/**
 * Positions for what the loader could only name by JSON path: values of the
 * `hookpilot.hooks` setting. Each settings file is parsed once.
 */
export class SettingsPositions {
  private readonly trees = new Map<string, { root: Node | undefined; text: string }>();

  locate(file: string, jsonPath: string): { line: number; column: number } | undefined {
    const { root, text } = this.tree(file);
    if (!root) return undefined;
    const segments = [SETTINGS_KEY, ...parseJsonPath(jsonPath)];
    for (let depth = segments.length; depth >= 1; depth--) {
      const node = findNodeAtLocation(root, segments.slice(0, depth));
      if (node) return position(text, node.offset);
    }
    return undefined;
  }

  private tree(file: string): { root: Node | undefined; text: string } {
    let entry = this.trees.get(file);
    if (!entry) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        // A file that vanished has no positions; the problem still prints with its path.
      }
      entry = { root: text ? parseTree(text, [], { allowTrailingComma: true }) : undefined, text };
      this.trees.set(file, entry);
    }
    return entry;
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: offset - lineStart + 1 };
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
