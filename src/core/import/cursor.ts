import type { CommandHandlerConfig } from '../hooks/config/config-schema';
import { isToolEvent, type HookEventName } from '../hooks/events';
import { ConversionDraft, describeEntry, isPlainObject, lookup, shown, unreadable, type Conversion } from './conversion';
import type { ConfigFileSource } from './import-types';
import { claudeMatcher } from './matcher-translation';
import { parseSourceJson } from './read-source';

interface CursorEvent {
  event: HookEventName;
  /** Set when Cursor's event is about one tool: the matcher that selects it. */
  matcher?: string;
  /** Cursor's input for this event → Claude Code's fields. */
  input: string;
  /** How the script must answer now. */
  output: string;
  /** Cursor does not wait for it: imported as async so it stays fire-and-forget. */
  async?: boolean;
  change?: string;
}

const PERMISSION_OUTPUT =
  '{"permission": "allow"|"deny"|"ask", "user_message", "agent_message"} → {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": …, "permissionDecisionReason": <agent_message>}, "systemMessage": <user_message>}, or exit 2 with the reason on stderr';
const AFTER_OUTPUT =
  'Cursor ignores the output of this event; here exit 2 or {"decision": "block", "reason": …} feeds the reason back to the agent';
const OBSERVE_OUTPUT = 'it runs in the background (async), as Cursor does not wait for it: its output is ignored';
const GENERIC_OUTPUT =
  "Claude Code's output (hookSpecificOutput, decision/reason, additionalContext); Cursor's permission, user_message and agent_message fields are ignored";

/** Cursor's hook events and what they become. */
const CURSOR_EVENTS: Readonly<Record<string, CursorEvent>> = {
  beforeShellExecution: {
    event: 'PreToolUse',
    matcher: 'Bash',
    input: 'command, cwd → tool_input.command, cwd',
    output: PERMISSION_OUTPUT,
  },
  afterShellExecution: {
    event: 'PostToolUse',
    matcher: 'Bash',
    input: 'command, output, duration → tool_input.command, tool_response (stdout, stderr), duration_ms',
    output: AFTER_OUTPUT,
  },
  beforeMCPExecution: {
    event: 'PreToolUse',
    matcher: 'mcp__.*',
    input: 'tool_name, tool_input (a JSON string), url or command → tool_name (mcp__<server>__<tool>), tool_input (an object)',
    output: PERMISSION_OUTPUT,
    change: 'Hookpilot has no MCP tools yet, so it does not fire until it has them',
  },
  afterMCPExecution: {
    event: 'PostToolUse',
    matcher: 'mcp__.*',
    input: 'tool_name, tool_input, result_json → tool_name (mcp__<server>__<tool>), tool_input, tool_response',
    output: AFTER_OUTPUT,
    change: 'Hookpilot has no MCP tools yet, so it does not fire until it has them',
  },
  beforeReadFile: {
    event: 'PreToolUse',
    matcher: 'Read',
    input: 'file_path, content, attachments → tool_input.file_path (the content is not sent: the file is read after the hook allows it)',
    output: PERMISSION_OUTPUT,
  },
  afterFileEdit: {
    event: 'PostToolUse',
    matcher: 'Write|Edit',
    input: 'file_path, edits[{old_string, new_string}] → tool_input.file_path with old_string/new_string (Edit) or content (Write)',
    output: AFTER_OUTPUT,
  },
  beforeSubmitPrompt: {
    event: 'UserPromptSubmit',
    input: 'prompt, attachments → prompt',
    output:
      '{"continue": false, "user_message": m} → exit 2 with m on stderr, or {"decision": "block", "reason": m}. Careful: {"continue": false} now ends the whole session',
  },
  stop: {
    event: 'Stop',
    input: 'status, loop_count → stop_hook_active, last_assistant_message',
    output: '{"followup_message": m} → {"decision": "block", "reason": m}: the reason becomes the agent\'s next instruction',
  },
  afterAgentResponse: {
    event: 'AfterLLM',
    input: 'text → llm_response.content',
    output: OBSERVE_OUTPUT,
    async: true,
    change: 'AfterLLM fires after every model response, including ones that only call tools',
  },
  afterAgentThought: {
    event: 'AfterLLM',
    input: 'text (the reasoning) → llm_response (Hookpilot sends no separate reasoning text)',
    output: OBSERVE_OUTPUT,
    async: true,
    change: 'it fires once per model response, not once per reasoning block',
  },
  sessionStart: { event: 'SessionStart', input: 'source is "startup" or "resume"', output: GENERIC_OUTPUT },
  sessionEnd: { event: 'SessionEnd', input: 'reason tells why the session ended', output: 'its output is ignored (observe-only)' },
  preToolUse: {
    event: 'PreToolUse',
    input: "tool_name, tool_input (a JSON string) → tool_name (Claude Code's names), tool_input (an object)",
    output: `${PERMISSION_OUTPUT}; updated_input → hookSpecificOutput.updatedInput`,
  },
  postToolUse: {
    event: 'PostToolUse',
    input: 'tool_name, tool_input, tool_output → tool_name, tool_input (an object), tool_response',
    output: GENERIC_OUTPUT,
  },
  postToolUseFailure: {
    event: 'PostToolUseFailure',
    input: 'tool_name, tool_input, error → tool_name, tool_input (an object), error',
    output: GENERIC_OUTPUT,
  },
  subagentStart: { event: 'SubagentStart', input: '→ agent_id, agent_type, prompt', output: GENERIC_OUTPUT },
  subagentStop: { event: 'SubagentStop', input: '→ agent_id, agent_type, last_assistant_message', output: GENERIC_OUTPUT },
  preCompact: { event: 'PreCompact', input: '→ trigger, message_count, estimated_tokens', output: GENERIC_OUTPUT },
};

const CURSOR_ONLY: Readonly<Record<string, string>> = {
  beforeTabFileRead: 'a Tab (inline completion) event; Hookpilot has no inline completions',
  afterTabFileEdit: 'a Tab (inline completion) event; Hookpilot has no inline completions',
  workspaceOpen: 'Hookpilot has no workspace-open event (SessionStart, when a session starts, is the closest)',
};

const ENTRY_FIELDS = new Set(['command', 'timeout', 'matcher', 'failClosed', 'loop_limit', 'type']);

/** `.cursor/hooks.json`: `{ "version": 1, "hooks": { "<event>": [{ "command", ... }] } }`. */
export function convertCursorHooks(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value) || !isPlainObject(parsed.value.hooks))
    return [unreadable('(file)', 'not a Cursor hooks file: expected { "version": 1, "hooks": { … } }')];
  const out: Conversion[] = [];
  for (const [key, entries] of Object.entries(parsed.value.hooks)) {
    if (!Array.isArray(entries)) {
      out.push(unreadable(key, `"${key}" is not a list of hook entries`));
      continue;
    }
    for (const entry of entries) out.push(convertEntry(key, entry));
  }
  return out;
}

function convertEntry(key: string, entry: unknown): Conversion {
  const draft = new ConversionDraft(
    key,
    isPlainObject(entry) ? describeEntry(key, entry.matcher, `command ${shown(entry.command)}`) : `${key}: ${shown(entry)}`,
  );
  const cursorOnly = lookup(CURSOR_ONLY, key);
  if (cursorOnly) return draft.unsupported(cursorOnly);
  const spec = lookup(CURSOR_EVENTS, key);
  if (!spec) return draft.unsupported(`"${key}" is not a Cursor event Hookpilot knows`);
  if (!isPlainObject(entry)) return draft.unsupported('the entry is not an object');
  if (typeof entry.command !== 'string' || entry.command === '') return draft.unsupported('the entry has no "command"');
  for (const field of Object.keys(entry)) if (!ENTRY_FIELDS.has(field)) draft.change(`"${field}" is not a field Hookpilot knows: left out`);
  if (entry.type !== undefined && entry.type !== 'command') return draft.unsupported(`unknown entry type ${shown(entry.type)}`);

  let matcher = spec.matcher;
  if (typeof entry.matcher === 'string' && entry.matcher !== '') {
    if (spec.matcher !== undefined) {
      draft.change(
        `Cursor's matcher "${entry.matcher}" is left out: on ${key} the event itself selects the ${spec.matcher} tool (an "if" rule such as "Bash(git *)" or "Read(**/.env)" can filter by argument)`,
      );
    } else {
      const translated = claudeMatcher(spec.event, entry.matcher);
      if (translated.unsupported) return draft.unsupported(translated.unsupported);
      draft.absorb(translated);
      matcher = translated.matcher;
      if (isToolEvent(spec.event))
        draft.change(
          `the matcher "${entry.matcher}" was written for Cursor's tool names; it is now tested against Claude Code's (Bash, Read, Write, Edit, Glob, Grep, TodoWrite, Task)`,
        );
    }
  }

  const handler: CommandHandlerConfig = { type: 'command', command: entry.command };
  if (typeof entry.timeout === 'number' && entry.timeout > 0) handler.timeout = entry.timeout;
  else draft.note("no timeout: Hookpilot's default applies instead of Cursor's");
  if (entry.failClosed === true) {
    handler.onFailure = 'block';
    draft.note('"failClosed": true → "onFailure": "block" (a crash or timeout blocks the action)');
  }
  if (spec.async) handler.async = true;
  if (entry.loop_limit !== undefined && spec.event === 'Stop') {
    draft.change(
      `"loop_limit": ${shown(entry.loop_limit)} has no per-hook counterpart: Hookpilot caps consecutive Stop blocks for all hooks together`,
    );
  }
  if (spec.change) draft.change(spec.change);
  draft.change(
    `Cursor's input becomes Claude Code's: conversation_id → session_id, workspace_roots → cwd, hook_event_name "${key}" → "${spec.event}"; ${spec.input}`,
  );
  draft.change(`output: ${spec.output}`);
  return draft.to(spec.event, matcher, handler);
}
