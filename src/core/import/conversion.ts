import type { HookEventName } from '../hooks/events';
import type { ImportedHandler } from './import-types';

/**
 * What a converter makes of one source hook: the Hookpilot hook it becomes (or why it
 * cannot), what changes meaning (`changes`) and what is merely worth knowing (`notes`).
 * The status follows: unsupported, else changed when there are changes, else exact.
 */
export interface Conversion {
  sourceEvent: string;
  original: string;
  target?: { event: HookEventName; matcher?: string; handler: ImportedHandler };
  unsupported?: string;
  changes: string[];
  notes: string[];
}

/** Collects the changes and notes of one conversion while a converter works on it. */
export class ConversionDraft {
  readonly changes: string[] = [];
  readonly notes: string[] = [];

  constructor(
    readonly sourceEvent: string,
    readonly original: string,
  ) {}

  change(message: string): this {
    if (!this.changes.includes(message)) this.changes.push(message);
    return this;
  }

  note(message: string): this {
    if (!this.notes.includes(message)) this.notes.push(message);
    return this;
  }

  /** Adds what another step found (matcher translation, env rules). */
  absorb(findings: { changes: readonly string[]; notes: readonly string[] }): this {
    for (const c of findings.changes) this.change(c);
    for (const n of findings.notes) this.note(n);
    return this;
  }

  to(event: HookEventName, matcher: string | undefined, handler: ImportedHandler): Conversion {
    return {
      sourceEvent: this.sourceEvent,
      original: this.original,
      target: { event, matcher, handler },
      changes: [...this.changes],
      notes: [...this.notes],
    };
  }

  unsupported(reason: string): Conversion {
    return {
      sourceEvent: this.sourceEvent,
      original: this.original,
      unsupported: reason,
      changes: [...this.changes],
      notes: [...this.notes],
    };
  }
}

/** Findings of a step that does not build the hook itself. */
export interface Findings {
  changes: string[];
  notes: string[];
}

export function noFindings(): Findings {
  return { changes: [], notes: [] };
}

const MAX_SHOWN = 90;

/** A value as it appears in the report: in backticks, on one line, shortened. */
export function shown(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  const line = text.replace(/\s*\n\s*/g, ' ');
  return `\`${line.length > MAX_SHOWN ? `${line.slice(0, MAX_SHOWN - 1)}…` : line}\``;
}

/** "PreToolUse matcher "Bash": command "..."": how a source entry is named in the report. */
export function describeEntry(event: string, matcher: unknown, what: string): string {
  const m = typeof matcher === 'string' && matcher !== '' ? ` matcher ${shown(matcher)}` : '';
  return `${event}${m}: ${what}`;
}

/** A whole file (or section) that could not be read as hooks. */
export function unreadable(sourceEvent: string, reason: string): Conversion {
  return { sourceEvent, original: sourceEvent, unsupported: reason, changes: [], notes: [] };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isStringRecord(value: unknown): value is Record<string, string> {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** A table entry for a key read from a user's file (never an Object.prototype member). */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}
