import { z } from 'zod';
import { EVENT_INFO, isToolEvent, type HookEventName } from '../hooks/events';
import { compileMatcher } from '../hooks/matcher';
import { payloadSchemas } from '../hooks/payloads';
import { lookup, noFindings, type Findings } from './conversion';
import { CLAUDE_TOOL_RENAMES, HOOKPILOT_TOOL_NAMES, isHookpilotTool, type ToolNameMap } from './tool-names';
import { errorMessage } from '../error-message';

export interface MatcherResult extends Findings {
  matcher?: string;
  /** Set when the hook cannot be imported because of its matcher. */
  unsupported?: string;
}

const EVERYTHING = new Set(['', '*', '.*', '.+', '^.*$', '^.+$', '^(.*)$', '^(?:.*)$']);
const LITERAL_ALTERNATION = /^[A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)*$/;

function matchesEverything(pattern: string | undefined): boolean {
  return pattern === undefined || EVERYTHING.has(pattern.trim());
}

function exactTokens(matcher: string): string[] {
  return matcher
    .split(/[|,]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

/** Removes `^...$` and a group around the whole pattern, so `^(bash|shell)$` reads as `bash|shell`. */
function unwrap(pattern: string): { core: string; anchored: boolean } {
  let core = pattern.trim();
  const anchored = core.startsWith('^') && core.endsWith('$') && !core.endsWith('\\$');
  if (anchored) core = core.slice(1, -1);
  const group = /^\((?:\?:)?(.*)\)$/.exec(core);
  if (group && balanced(group[1])) core = group[1];
  return { core, anchored };
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** The values Hookpilot ever sends in the field `event`'s matcher is tested against, when it is a fixed set. */
export function matchValuesOf(event: HookEventName): readonly string[] | undefined {
  const field = EVENT_INFO[event].matchField;
  if (!field) return undefined;
  const schema = payloadSchemas[event] as unknown as z.ZodObject;
  const member = schema.shape[field];
  return member instanceof z.ZodEnum ? (member.options as string[]) : undefined;
}

/** Notes about tool names that no Hookpilot tool has. */
function missingToolNotes(names: readonly string[]): string[] {
  const notes: string[] = [];
  const missing = names.filter((t) => !t.startsWith('mcp__') && !isHookpilotTool(t));
  if (missing.length > 0)
    notes.push(
      `Hookpilot has no ${missing.join(', ')} tool, so that part of the matcher never matches (its tools: ${HOOKPILOT_TOOL_NAMES.join(', ')})`,
    );
  if (names.some((t) => t.startsWith('mcp__'))) notes.push('Hookpilot has no MCP tools yet: the mcp__ names never match');
  return notes;
}

/** Notes (and, when nothing can match, a change) about names Hookpilot never sends. */
export function checkMatchValues(event: HookEventName, matcher: string | undefined): Findings {
  const findings = noFindings();
  if (matcher === undefined || compileMatcher(matcher).kind !== 'exact') return findings;
  const tokens = exactTokens(matcher);
  if (isToolEvent(event)) return { changes: [], notes: missingToolNotes(tokens) };
  const values = matchValuesOf(event);
  if (!values) return findings;
  const field = EVENT_INFO[event].matchField ?? '';
  const unknown = tokens.filter((t) => !values.includes(t));
  if (unknown.length === 0) return findings;
  const message = `Hookpilot never sends ${field} ${unknown.map((t) => `"${t}"`).join(', ')} on ${event} (it sends ${values.join(', ')})`;
  if (unknown.length === tokens.length) findings.changes.push(`${message}: this hook never fires`);
  else findings.notes.push(`${message}: that part of the matcher never matches`);
  return findings;
}

/**
 * Claude Code's matcher, kept as written wherever Hookpilot reads it the same way.
 * Hookpilot's only extra form is `Name*` (a prefix); Claude Code reads that as a regular
 * expression, so it is wrapped to stay one.
 */
export function claudeMatcher(event: HookEventName, raw: string | undefined): MatcherResult {
  if (matchesEverything(raw) || raw === undefined) return noFindings();
  if (!EVENT_INFO[event].matchField) {
    return { changes: [], notes: [`Claude Code ignores a matcher on ${event} (here "${raw}"); it is left out`] };
  }
  const compiled = compileMatcher(raw);
  if (compiled.kind === 'invalid')
    return { ...noFindings(), unsupported: `the matcher "${raw}" is not a valid regular expression (${compiled.error})` };
  let matcher = raw;
  const notes: string[] = [];
  if (compiled.kind === 'prefix') {
    matcher = `(?:${raw})`;
    notes.push(
      `matcher written as "${matcher}": Hookpilot would read "${raw}" as a name prefix, Claude Code reads it as a regular expression`,
    );
  } else if (compiled.kind === 'exact' && isToolEvent(event)) {
    const tokens = exactTokens(raw);
    const renamed = tokens.map((t) => lookup(CLAUDE_TOOL_RENAMES, t) ?? t);
    if (renamed.some((t, i) => t !== tokens[i])) {
      matcher = [...new Set(renamed)].join('|');
      notes.push(`matcher "${raw}" → "${matcher}": Hookpilot's subagent tool is named Task`);
    }
  }
  const values = checkMatchValues(event, matcher);
  return { matcher, changes: values.changes, notes: [...notes, ...values.notes] };
}

export interface ToolMatcherOptions {
  names: ToolNameMap;
  /** Whose tool names these are, for the report. */
  label: string;
  /** The source anchors its regular expression (`^(?:P)$`, as Copilot does). */
  anchored: boolean;
}

/**
 * A tool-name pattern of another agent, for Hookpilot: a plain list of names is mapped
 * name by name to an exact list; any other regular expression is kept (anchored if the
 * source anchored it) and reported, since it was written against other names.
 */
export function translateToolMatcher(pattern: string | undefined, options: ToolMatcherOptions): MatcherResult {
  if (matchesEverything(pattern) || pattern === undefined) return noFindings();
  const findings = noFindings();
  const { core, anchored: explicitlyAnchored } = unwrap(pattern);
  if (LITERAL_ALTERNATION.test(core)) {
    const mapped: string[] = [];
    for (const token of core.split('|')) {
      const known = lookup(options.names, token);
      const name = known ?? token;
      if (known === undefined && !isHookpilotTool(token) && !token.startsWith('mcp__')) {
        findings.changes.push(
          `"${token}" is not a ${options.label} tool name Hookpilot knows; it is kept as is and matches no Hookpilot tool (its tools: ${HOOKPILOT_TOOL_NAMES.join(', ')})`,
        );
      }
      if (!mapped.includes(name)) mapped.push(name);
    }
    const matcher = mapped.join('|');
    if (matcher !== core) findings.notes.push(`matcher "${pattern}" → "${matcher}" (${options.label} tool names mapped to Hookpilot's)`);
    if (!options.anchored && !explicitlyAnchored) {
      findings.notes.push(
        `${options.label} tests "${pattern}" as an unanchored regular expression (names merely containing it matched too); Hookpilot matches the exact names`,
      );
    }
    const translated = core.split('|').flatMap((t) => lookup(options.names, t) ?? []);
    return { matcher, changes: findings.changes, notes: [...findings.notes, ...missingToolNotes([...new Set(translated)])] };
  }
  const matcher = options.anchored && !explicitlyAnchored ? `^(?:${pattern})$` : forceRegex(pattern);
  const refused = unrunnable(pattern, matcher);
  if (refused) return { ...findings, unsupported: refused };
  findings.changes.push(
    `the matcher "${pattern}" is a regular expression over ${options.label}'s tool names; Hookpilot's tools have Claude Code's names (${HOOKPILOT_TOOL_NAMES.join(', ')}), so check that "${matcher}" matches what was meant`,
  );
  return { matcher, ...findings };
}

/**
 * Why `matcher` cannot be carried over, if it cannot: the other agents compile it as a
 * JavaScript regular expression, and Hookpilot runs it on RE2 (no lookaround, no
 * backreferences), so it must be both.
 */
function unrunnable(pattern: string, matcher: string): string | undefined {
  try {
    new RegExp(matcher);
  } catch (err) {
    return `the matcher "${pattern}" is not a JavaScript regular expression (${errorMessage(err)})`;
  }
  const compiled = compileMatcher(matcher);
  return compiled.kind === 'invalid'
    ? `the matcher "${pattern}" is not a regular expression Hookpilot can run (${compiled.error})`
    : undefined;
}

/** Keeps a pattern a regular expression where Hookpilot would read it as names or a prefix. */
function forceRegex(pattern: string): string {
  const kind = compileMatcher(pattern).kind;
  return kind === 'regex' || kind === 'invalid' ? pattern : `(?:${pattern})`;
}

/**
 * A matcher on a non-tool event from another agent, tested as an anchored regular
 * expression there when `anchored`. Plain names are kept; their values are checked.
 */
export function translateValueMatcher(
  event: HookEventName,
  pattern: string | undefined,
  anchored: boolean,
  renames: Readonly<Record<string, string>> = {},
): MatcherResult {
  if (matchesEverything(pattern) || pattern === undefined) return noFindings();
  if (!EVENT_INFO[event].matchField)
    return { changes: [], notes: [`${event} has no matcher in Hookpilot; "${pattern}" is left out (it fires every time)`] };
  const { core } = unwrap(pattern);
  if (LITERAL_ALTERNATION.test(core)) {
    const matcher = [...new Set(core.split('|').map((t) => lookup(renames, t) ?? t))].join('|');
    const notes = matcher === core ? [] : [`matcher "${pattern}" → "${matcher}"`];
    const values = checkMatchValues(event, matcher);
    return { matcher, changes: values.changes, notes: [...notes, ...values.notes] };
  }
  const matcher = anchored ? `^(?:${pattern})$` : forceRegex(pattern);
  const refused = unrunnable(pattern, matcher);
  if (refused) return { ...noFindings(), unsupported: refused };
  const values = matchValuesOf(event);
  const field = EVENT_INFO[event].matchField ?? '';
  return {
    matcher,
    changes: [],
    notes: values ? [`the matcher is tested against ${field}, which Hookpilot sets to one of ${values.join(', ')}`] : [],
  };
}
