import type { z } from 'zod';
import type { HookSourceKind } from '../types';
import { formatJsonPath, type JsonPath } from './json-path';
import { suggestName } from './suggest-name';

// The loaders name paths through these; json-path.ts is their one definition.
export { formatJsonPath, type JsonPath };

export type ProblemSeverity = 'error' | 'warning' | 'info';

export type ProblemCode =
  | 'syntax'
  | 'invalid-value'
  | 'missing-field'
  | 'unknown-property'
  | 'unknown-event'
  | 'unknown-handler-type'
  | 'invalid-matcher'
  | 'ignored-field'
  | 'conflicting-fields'
  | 'unknown-server'
  | 'server-clash'
  | 'duplicate-hook'
  /** A trusted workspace's value that reaches only the workspace's hooks, not the user's. */
  | 'workspace-only'
  | 'script-missing'
  | 'script-not-executable'
  | 'script-folder-too-large'
  | 'untrusted-policy'
  | 'unreadable';

/** A 1-based range; the end is exclusive (the position just after the node). */
export interface TextRange {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface ConfigProblem {
  severity: ProblemSeverity;
  code: ProblemCode;
  message: string;
  /** JSON path, e.g. `hooks.PreToolUse[0].hooks[1].command`; '' is the document itself. */
  path: string;
  sourceKind: HookSourceKind;
  file?: string;
  /** Positions exist for files; settings values only have the path. */
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  /** The loaded hook this problem is about, if any. */
  hookId?: string;
}

/** Maps a JSON path to text positions; `key` is the property name, `value` the value. */
export interface Locator {
  locate(path: JsonPath, part: 'key' | 'value'): TextRange | undefined;
}

export interface ProblemInput {
  severity: ProblemSeverity;
  code: ProblemCode;
  message: string;
  path: JsonPath;
  /** Which part of the node to point at; default the value. */
  part?: 'key' | 'value';
  hookId?: string;
}

/** Problems of one source, positioned through its locator when it has one. */
export class ProblemList {
  readonly items: ConfigProblem[] = [];

  constructor(
    private readonly source: { kind: HookSourceKind; file?: string },
    private readonly locator?: Locator,
  ) {}

  add(input: ProblemInput): void {
    const range = this.locator?.locate(input.path, input.part ?? 'value');
    const problem: ConfigProblem = {
      severity: input.severity,
      code: input.code,
      message: input.message,
      path: formatJsonPath(input.path),
      sourceKind: this.source.kind,
    };
    if (this.source.file !== undefined) problem.file = this.source.file;
    if (range) Object.assign(problem, range);
    if (input.hookId !== undefined) problem.hookId = input.hookId;
    this.items.push(problem);
  }

  /** A problem with an already computed range (syntax errors have no JSON path). */
  addAt(range: TextRange, severity: ProblemSeverity, code: ProblemCode, message: string): void {
    const problem: ConfigProblem = { severity, code, message, path: '', sourceKind: this.source.kind, ...range };
    if (this.source.file !== undefined) problem.file = this.source.file;
    this.items.push(problem);
  }

  /** Document order when positions are known; otherwise the order of discovery. */
  sorted(): ConfigProblem[] {
    return [...this.items].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  }
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function toJsonPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((s) => (typeof s === 'symbol' ? String(s) : s));
}

/** Names a field relative to the entry; a whole-entry issue is named by the entry's key. */
function label(base: JsonPath, rel: JsonPath): string {
  const named = rel.length > 0 ? rel : base.slice(-1).filter((s) => typeof s === 'string');
  return named.length === 0 ? 'The value' : `"${formatJsonPath(named)}"`;
}

/**
 * Turns zod issues for the value at `base` into problems. Unknown keys are warnings
 * (ignored); everything else is an error.
 */
export function addZodIssues(
  problems: ProblemList,
  issues: readonly z.core.$ZodIssue[],
  base: JsonPath,
  value: unknown,
  knownKeys: readonly string[],
): void {
  for (const issue of issues) {
    const rel = toJsonPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const suggestion = rel.length === 0 ? suggestName(key, knownKeys) : undefined;
        problems.add({
          severity: 'warning',
          code: 'unknown-property',
          message: `Unknown property "${key}" (ignored).${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
          path: [...base, ...rel, key],
          part: 'key',
        });
      }
      continue;
    }
    const actual = valueAt(value, issue.path);
    if (issue.code === 'invalid_type' && actual === undefined && rel.length > 0) {
      problems.add({
        severity: 'error',
        code: 'missing-field',
        message: `Missing required property ${label(base, rel)}.`,
        path: [...base, ...rel.slice(0, -1)],
      });
      continue;
    }
    const message =
      issue.code === 'invalid_type'
        ? `${label(base, rel)} must be ${issue.expected === 'array' || issue.expected === 'object' ? 'an' : 'a'} ${issue.expected}, not ${describeType(actual)}.`
        : `${label(base, rel)}: ${issue.message}.`;
    problems.add({ severity: 'error', code: 'invalid-value', message, path: [...base, ...rel] });
  }
}

function onlyUnknownKeys(issues: readonly z.core.$ZodIssue[]): boolean {
  return issues.every((issue) => issue.code === 'unrecognized_keys');
}

function withoutUnknownKeys(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  const copy: unknown = structuredClone(value);
  for (const issue of issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    const target = valueAt(copy, issue.path);
    if (target === null || typeof target !== 'object') continue;
    for (const key of issue.keys) delete (target as Record<string, unknown>)[key];
  }
  return copy;
}

/**
 * Validates one entry (a handler, a server, ...). Errors are reported and the entry is
 * dropped; unknown keys are reported and ignored.
 */
export function parseEntry<T>(
  schema: z.ZodType<T>,
  value: unknown,
  path: JsonPath,
  problems: ProblemList,
  knownKeys: readonly string[],
): T | undefined {
  const first = schema.safeParse(value);
  if (first.success) return first.data;
  addZodIssues(problems, first.error.issues, path, value, knownKeys);
  if (!onlyUnknownKeys(first.error.issues)) return undefined;
  const second = schema.safeParse(withoutUnknownKeys(value, first.error.issues));
  return second.success ? second.data : undefined;
}

/** A configuration file that is there but cannot be read (a FIFO, a device, too large, no permission): never silently nothing. */
export function unreadableFileProblem(file: string, sourceKind: HookSourceKind, reason: string): ConfigProblem {
  return { severity: 'error', code: 'unreadable', message: `cannot read ${file}: ${reason}`, path: '', sourceKind, file };
}
