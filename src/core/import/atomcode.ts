import type { HookEventName } from '../hooks/events';
import { convertClaudeHooks } from './claude';
import { ConversionDraft, isPlainObject, shown, unreadable, type Conversion } from './conversion';
import { aliasVariables, missingVariables, msToSeconds } from './handler-env';
import type { ConfigFileSource } from './import-types';
import { parseSourceJson } from './read-source';

/**
 * AtomCode's Claude-compatible JSON hooks (`.hooks.json`). The file is read in
 * Claude Code's shape; AtomCode's own older shape, a map of named entries
 * `{ "<name>": { event, matcher?, command, timeout_ms?, disabled? } }`, is read too.
 */

const DEFAULT_TIMEOUT_MS = 10_000;
/** Events AtomCode runs named entries for (PascalCase or snake_case). */
const NAMED_EVENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'Stop',
  'StopFailure',
]);

/** AtomCode sets these for Claude-compatible hooks; a command line that uses them is adapted. */
function inspectCommand(
  command: string,
  event: HookEventName,
  env: Record<string, string> | undefined,
  draft: ConversionDraft,
): Record<string, string> | undefined {
  const aliased = aliasVariables(command, env, { ATOMCODE_HOOK_EVENT: event });
  draft.absorb(aliased);
  draft.absorb(
    missingVariables(command, {
      ATOMCODE_TOOL_NAME: 'read tool_name from the input instead',
      ATOMCODE_HOOK_CONTEXT: 'read the input JSON on stdin instead',
    }),
  );
  return aliased.env;
}

export function convertAtomcodeJson(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value)) return [unreadable('(file)', 'the file is not a JSON object')];
  const hooks = parsed.value.hooks;
  if (hooks === undefined) return [];
  if (!isPlainObject(hooks)) return [unreadable('hooks', '"hooks" is not an object')];
  const named = Object.values(hooks).some((value) => isPlainObject(value) && 'event' in value);
  if (named) return Object.entries(hooks).flatMap(([name, entry]) => convertNamedEntry(name, entry));
  const disabled = parsed.value.disableAllHooks === true;
  const fileNotes = disabled ? ['"disableAllHooks": true in this file: imported with "enabled": false'] : [];
  return convertClaudeHooks(hooks, { fileNotes, disabled, inspectCommand }).map(readingLastLine);
}

/** AtomCode reads the last line of stdout as the JSON answer (a script may log before it): so does the import. */
function readingLastLine(conversion: Conversion): Conversion {
  const target = conversion.target;
  if (target?.handler.type !== 'command') return conversion;
  return { ...conversion, target: { ...target, handler: { ...target.handler, stdoutJson: 'lastLine' } } };
}

/** `pre_tool_use` → `PreToolUse`; PascalCase stays. */
function pascalCase(name: string): string {
  return name.includes('_')
    ? name
        .split('_')
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join('')
    : name;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * AtomCode's named-entry matcher: `|`-separated globs where `*` is any run of characters
 * and everything else is literal. Plain names stay a list; globs become an anchored regex.
 */
export function globMatcher(glob: string): string | undefined {
  const parts = glob.split('|').map((p) => p.trim());
  if (glob.trim() === '' || parts.includes('*')) return undefined;
  if (parts.every((p) => /^[A-Za-z0-9_-]+$/.test(p))) return parts.join('|');
  return `^(?:${parts.map((p) => p.split('*').map(escapeRegex).join('.*')).join('|')})$`;
}

function convertNamedEntry(name: string, entry: unknown): Conversion[] {
  if (!isPlainObject(entry) || typeof entry.event !== 'string')
    return [new ConversionDraft(name, `${name}: ${shown(entry)}`).unsupported('the entry has no "event"')];
  const sourceEvent = entry.event;
  const original = `${name}: ${sourceEvent}${typeof entry.matcher === 'string' ? ` matcher ${shown(entry.matcher)}` : ''}: command ${shown(entry.command)}`;
  const event = pascalCase(sourceEvent);
  if (!NAMED_EVENTS.has(event))
    return [new ConversionDraft(sourceEvent, original).unsupported(`AtomCode ignores the event "${sourceEvent}", so this hook never ran`)];
  const ms = typeof entry.timeout_ms === 'number' && entry.timeout_ms > 0 ? entry.timeout_ms : DEFAULT_TIMEOUT_MS;
  const matcher = typeof entry.matcher === 'string' ? globMatcher(entry.matcher) : undefined;
  const group = {
    ...(matcher === undefined ? {} : { matcher }),
    hooks: [{ type: 'command', command: entry.command, timeout: msToSeconds(ms) }],
  };
  const notes = [
    entry.timeout_ms === undefined
      ? `no timeout_ms: AtomCode's default of ${DEFAULT_TIMEOUT_MS} ms is written out as ${msToSeconds(ms)} s`
      : `timeout_ms ${ms} → ${msToSeconds(ms)} s`,
  ];
  if (typeof entry.matcher === 'string' && matcher !== entry.matcher)
    notes.push(`AtomCode's glob matcher "${entry.matcher}" → ${matcher === undefined ? 'no matcher (every tool)' : `"${matcher}"`}`);
  if (entry.disabled === true) notes.push('"disabled": true, so AtomCode skips it: imported with "enabled": false');
  // Read as the Claude-compatible hook it describes, then labelled with its AtomCode name.
  return convertClaudeHooks({ [event]: [group] }, { fileNotes: notes, disabled: entry.disabled === true, inspectCommand })
    .map((c) => ({
      ...c,
      sourceEvent,
      original,
      target: c.target && { ...c.target, handler: { ...c.target.handler, name } },
    }))
    .map(readingLastLine);
}
