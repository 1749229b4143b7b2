import { RE2JS } from 're2js';
import { errorMessage } from '../error-message';

/**
 * Group matchers with Claude Code's rules (docs/hooks.md#matching), plus AstroResearch's `prefix*`
 * and content patterns on tool arguments.
 *
 * Regex matchers run on RE2 (re2js), whose matching time is linear in the input: a
 * backtracking engine lets `(a+)+$` and a long crafted value hold the host's only thread.
 * RE2 has no lookaround or backreferences; a matcher using them is reported at load.
 */

const EXACT_SET = /^[A-Za-z0-9_\- ,|]+$/;
/** Where Claude Code reads fewer matchers as names (EventInfo.narrowExactSet). */
const NARROW_EXACT_SET = /^[A-Za-z0-9_|]+$/;
const PREFIX = /^[A-Za-z0-9_-]+\*$/;

export type CompiledMatcher =
  | { kind: 'all' }
  | { kind: 'exact'; names: ReadonlySet<string> }
  | { kind: 'prefix'; prefix: string }
  | { kind: 'regex'; regex: RE2JS }
  | { kind: 'invalid'; error: string };

const cache = new Map<string, CompiledMatcher>();
const narrowCache = new Map<string, CompiledMatcher>();

const ALL: CompiledMatcher = { kind: 'all' };

export function compileMatcher(matcher: string | undefined, narrowExactSet = false): CompiledMatcher {
  if (matcher === undefined || matcher === '' || matcher === '*') return ALL;
  const compiledMatchers = narrowExactSet ? narrowCache : cache;
  const cached = compiledMatchers.get(matcher);
  if (cached) return cached;
  let compiled: CompiledMatcher;
  if ((narrowExactSet ? NARROW_EXACT_SET : EXACT_SET).test(matcher)) {
    const names = matcher
      .split(/[|,]/)
      .map((t) => t.trim())
      .filter((t) => t !== '');
    compiled = { kind: 'exact', names: new Set(names) };
  } else if (PREFIX.test(matcher)) {
    compiled = { kind: 'prefix', prefix: matcher.slice(0, -1) };
  } else {
    try {
      // Unanchored, as in Claude Code: `Edit.*` also matches `NotebookEdit`.
      compiled = { kind: 'regex', regex: RE2JS.compile(matcher) };
    } catch (err) {
      compiled = { kind: 'invalid', error: describeSyntaxError(matcher, err) };
    }
  }
  compiledMatchers.set(matcher, compiled);
  return compiled;
}

/** RE2's message, plus why a pattern JavaScript would accept is refused. */
function describeSyntaxError(matcher: string, err: unknown): string {
  const message = errorMessage(err).replace(/^error parsing regexp: /, '');
  if (!isJavaScriptRegex(matcher)) return message;
  return `${message}; lookaround and backreferences are not supported, as matching must take linear time`;
}

function isJavaScriptRegex(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

export function matchesValue(matcher: string | undefined, value: string | undefined, narrowExactSet = false): boolean {
  const compiled = compileMatcher(matcher, narrowExactSet);
  switch (compiled.kind) {
    case 'all':
      return true;
    case 'exact':
      return value !== undefined && compiled.names.has(value);
    case 'prefix':
      return value !== undefined && value.startsWith(compiled.prefix);
    case 'regex':
      return value !== undefined && compiled.regex.test(value);
    case 'invalid':
      return false;
  }
}

/**
 * AstroResearch's content patterns: `key:substring` tests one argument (stringified), a bare
 * pattern tests the whole argument JSON. Any pattern matching is enough.
 */
export function matchesContent(patterns: readonly string[] | undefined, args: unknown): boolean {
  if (!patterns || patterns.length === 0) return true;
  const record = args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  let whole: string | undefined;
  return patterns.some((pattern) => {
    const colon = pattern.indexOf(':');
    if (colon > 0) {
      const key = pattern.slice(0, colon);
      if (Object.prototype.hasOwnProperty.call(record, key)) {
        const v = record[key];
        return (typeof v === 'string' ? v : (JSON.stringify(v) ?? '')).includes(pattern.slice(colon + 1));
      }
    }
    whole ??= JSON.stringify(args) ?? '';
    return whole.includes(pattern);
  });
}
