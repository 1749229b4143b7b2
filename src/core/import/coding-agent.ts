import type { CommandHandlerConfig } from '../hooks/config/config-schema';
import { isToolEvent, type HookEventName } from '../hooks/events';
import { ConversionDraft, describeEntry, isPlainObject, shown, unreadable, type Conversion } from './conversion';
import { exit2Difference } from './event-semantics';
import { msToSeconds } from './handler-env';
import type { ConfigFileSource } from './import-types';
import { translateToolMatcher } from './matcher-translation';
import { parseSourceJson } from './read-source';
import { CODING_AGENT_TOOL_NAMES, describeToolNames } from './tool-names';

/** coding-agent's four events; it ignores any other key. */
const EVENTS: ReadonlySet<string> = new Set(['UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop']);
const ENTRY_FIELDS = new Set(['command', 'match', 'description', 'timeout', 'cwd']);
const DEFAULT_TIMEOUT_MS = 10_000;

/** Input fields of coding-agent's payload → Claude Code's, by event. */
const INPUT_FIELDS: Readonly<Record<string, string>> = {
  UserPromptSubmit: 'event, cwd, prompt → hook_event_name, cwd, prompt',
  PreToolUse: 'event, toolName, toolArgs → hook_event_name, tool_name, tool_input',
  PostToolUse: 'event, toolName, toolArgs, toolResult → hook_event_name, tool_name, tool_input, tool_response',
  PostToolUseFailure: 'event, toolName, toolArgs, toolResult → hook_event_name, tool_name, tool_input, error',
  Stop: 'event, cwd → hook_event_name, cwd (plus stop_hook_active, last_assistant_message)',
};

/** `.coding-agent/hooks.json`: `{ "hooks": { "<Event>": [{ command, match?, description?, timeout? (ms), cwd? }] } }`. */
export function convertCodingAgentHooks(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value) || !isPlainObject(parsed.value.hooks))
    return [unreadable('(file)', 'not a coding-agent hooks file: expected { "hooks": { … } }')];
  const out: Conversion[] = [];
  for (const [key, entries] of Object.entries(parsed.value.hooks)) {
    if (!Array.isArray(entries)) {
      out.push(unreadable(key, `"${key}" is not a list of hooks`));
      continue;
    }
    // coding-agent runs an event's hooks one at a time, in order; priorities keep that order here.
    const ordered = entries.length > 1;
    entries.forEach((entry: unknown, i) => {
      for (const c of convertEntry(key, entry, ordered ? i : undefined)) out.push(c);
    });
  }
  return out;
}

function convertEntry(key: string, entry: unknown, priority: number | undefined): Conversion[] {
  const draft = new ConversionDraft(
    key,
    isPlainObject(entry) ? describeEntry(key, entry.match, `command ${shown(entry.command)}`) : `${key}: ${shown(entry)}`,
  );
  if (!EVENTS.has(key)) return [draft.unsupported(`coding-agent has no ${key} event (it ignores this key, so the hook never ran)`)];
  const event = key as HookEventName;
  if (!isPlainObject(entry)) return [draft.unsupported('the entry is not an object')];
  if (typeof entry.command !== 'string' || entry.command === '') return [draft.unsupported('the entry has no "command"')];
  for (const field of Object.keys(entry)) if (!ENTRY_FIELDS.has(field)) draft.change(`"${field}" is not a field Hookpilot knows: left out`);

  let matcher: string | undefined;
  if (entry.match !== undefined) {
    if (typeof entry.match !== 'string') return [draft.unsupported('"match" is not a string')];
    if (event === 'PreToolUse' || event === 'PostToolUse') {
      const translated = translateToolMatcher(entry.match, { names: CODING_AGENT_TOOL_NAMES, label: 'coding-agent', anchored: false });
      if (translated.unsupported) return [draft.unsupported(translated.unsupported)];
      draft.absorb(translated);
      matcher = translated.matcher;
    } else {
      draft.note(`"match" applies only to PreToolUse and PostToolUse in coding-agent, so "${entry.match}" was ignored there too: left out`);
    }
  }

  const handler: CommandHandlerConfig = { type: 'command', command: entry.command };
  if (typeof entry.description === 'string') handler.description = entry.description;
  if (typeof entry.cwd === 'string' && entry.cwd !== '') handler.cwd = entry.cwd;
  const ms = typeof entry.timeout === 'number' && entry.timeout > 0 ? entry.timeout : DEFAULT_TIMEOUT_MS;
  handler.timeout = msToSeconds(ms);
  draft.note(
    entry.timeout === undefined
      ? `no timeout: coding-agent's default of ${DEFAULT_TIMEOUT_MS} ms is written out as ${handler.timeout} s`
      : `timeout ${ms} ms → ${handler.timeout} s`,
  );
  if (priority !== undefined) {
    handler.priority = priority;
    draft.note(`"priority": ${priority} keeps coding-agent's order: the event's hooks run one after another`);
  }

  // coding-agent's PostToolUse also runs for failed tools, which Hookpilot reports as PostToolUseFailure.
  const targets: HookEventName[] = event === 'PostToolUse' ? ['PostToolUse', 'PostToolUseFailure'] : [event];
  return targets.map((target) => {
    const d = new ConversionDraft(key, draft.original).absorb(draft);
    const h = { ...handler };
    if (target === 'PostToolUseFailure')
      d.note(
        "also bound to PostToolUseFailure: coding-agent's PostToolUse runs after failed tools too, Hookpilot's only after successful ones",
      );
    eventSemantics(target, h, d);
    const tools = isToolEvent(target);
    d.change(
      `the input is Claude Code's instead of coding-agent's: ${INPUT_FIELDS[target]}${tools ? '; scripts that read toolName/toolArgs must read tool_name/tool_input' : ''}`,
    );
    if (tools) d.change(`tool names are Claude Code's: ${describeToolNames(CODING_AGENT_TOOL_NAMES)}`);
    return d.to(target, matcher, h);
  });
}

/** Where coding-agent's decision matrix (exit code, timeout, spawn failure) differs from Claude Code's. */
function eventSemantics(event: HookEventName, handler: CommandHandlerConfig, draft: ConversionDraft): void {
  switch (event) {
    case 'PreToolUse':
      handler.onFailure = 'block';
      draft.change(
        'coding-agent blocks the tool when the hook times out or cannot start, but lets other non-zero exits pass with a warning; "onFailure": "block" keeps the first two and also blocks on any other exit code without valid JSON',
      );
      draft.note('exit 2 blocks and stops the later hooks, as in coding-agent');
      return;
    case 'PostToolUse':
    case 'PostToolUseFailure':
      changeIf(draft, exit2Difference(event, 'only logs a warning in coding-agent'));
      return;
    case 'UserPromptSubmit':
      changeIf(draft, exit2Difference('UserPromptSubmit', 'is ignored in coding-agent (its prompt hooks never block)'));
      return;
    case 'Stop':
      draft.change(
        'coding-agent keeps running when a Stop hook exits 2 with text on stdout (the text becomes the next user message); here exit 2 keeps the agent working with stderr as the reason, or print {"decision": "block", "reason": …}: write the message to stderr instead of stdout',
      );
      return;
  }
}

function changeIf(draft: ConversionDraft, change: string | undefined): void {
  if (change) draft.change(change);
}
