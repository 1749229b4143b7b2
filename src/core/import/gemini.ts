import type { CommandHandlerConfig } from '../hooks/config/config-schema';
import { isToolEvent, type HookEventName } from '../hooks/events';
import { ConversionDraft, describeEntry, isPlainObject, isStringArray, lookup, shown, unreadable, type Conversion } from './conversion';
import { aliasVariables, missingVariables, msToSeconds } from './handler-env';
import type { ConfigFileSource } from './import-types';
import { translateToolMatcher, translateValueMatcher, type MatcherResult } from './matcher-translation';
import { parseSourceJson } from './read-source';
import { describeToolNames, GEMINI_TOOL_NAMES } from './tool-names';

interface GeminiEvent {
  event: HookEventName;
  /** Input differences beyond the event name (undefined: the same fields). */
  input?: string;
  /** Output differences (undefined: answered the same way). */
  output?: string;
  async?: boolean;
  change?: string;
}

/** Gemini CLI's events and what they become. */
const GEMINI_EVENTS: Readonly<Record<string, GeminiEvent>> = {
  BeforeTool: {
    event: 'PreToolUse',
    input: `tool names and tool_input are Claude Code's (Bash {command}, Write {file_path, content}, Edit {file_path, old_string, new_string}) instead of Gemini's (${describeToolNames(GEMINI_TOOL_NAMES)}); mcp_context is not sent`,
    output:
      'decision "deny"/"block" with reason work as they are; hookSpecificOutput.tool_input → hookSpecificOutput.updatedInput, and hookSpecificOutput.hookEventName must be "PreToolUse"',
  },
  AfterTool: {
    event: 'PostToolUse',
    input:
      "tool names are Claude Code's and tool_response is Claude Code's (Bash: stdout, stderr, interrupted) instead of {llmContent, returnDisplay, error}",
    output:
      'a deny no longer hides the result: {"decision": "block", "reason": …} adds the reason next to it; hookSpecificOutput.tool_output → hookSpecificOutput.updatedToolOutput (hookEventName "PostToolUse")',
  },
  BeforeAgent: { event: 'UserPromptSubmit', output: 'hookSpecificOutput.hookEventName must be "UserPromptSubmit"' },
  AfterAgent: {
    event: 'Stop',
    input: 'prompt and prompt_response → last_assistant_message (the prompt is not sent)',
    output: 'a deny/block with a reason keeps the agent working with that reason, as a retry did; clearContext is not supported',
  },
  BeforeModel: {
    event: 'BeforeLLM',
    input: "llm_request is Hookpilot's (OpenAI chat format: model, messages, tools) instead of Gemini's",
    output: 'hookSpecificOutput.llm_request → hookSpecificOutput.llmRequest; a synthetic llm_response is not supported',
  },
  AfterModel: {
    event: 'AfterLLM',
    input: "llm_response is Hookpilot's ({content, tool_calls, finish_reason})",
    output: 'hookSpecificOutput.llm_response → hookSpecificOutput.llmResponse',
    change: 'it fires once per complete model response, not once per streamed chunk',
  },
  SessionStart: { event: 'SessionStart' },
  SessionEnd: { event: 'SessionEnd' },
  PreCompress: { event: 'PreCompact', async: true, input: 'trigger, plus message_count and estimated_tokens' },
  Notification: { event: 'Notification', input: 'notification_type "ToolPermission" is "permission_prompt"; details → message' },
};

const GEMINI_ONLY: Readonly<Record<string, string>> = {
  BeforeToolSelection: 'Hookpilot has no event to narrow the tools offered to the model',
};

/** Gemini CLI sets these for its hooks; Hookpilot can set the same through `env`. */
const GEMINI_VARIABLES = { GEMINI_PROJECT_DIR: '${CLAUDE_PROJECT_DIR}', GEMINI_SESSION_ID: '${HOOKPILOT_SESSION_ID}' };
const MISSING_VARIABLES = { GEMINI_CWD: 'read cwd from the input instead' };

const HANDLER_FIELDS = new Set(['type', 'command', 'name', 'description', 'timeout']);
const DEFAULT_TIMEOUT_MS = 60_000;

/** `.gemini/settings.json`: `hooks: { "<Event>": [{ matcher, sequential?, hooks: [{ type, command, name?, description?, timeout (ms) }] }] }`. */
export function convertGeminiSettings(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value)) return [unreadable('(file)', 'the settings file is not a JSON object')];
  const settings = parsed.value;
  if (settings.hooks === undefined) return [];
  if (!isPlainObject(settings.hooks)) return [unreadable('hooks', '"hooks" is not an object keyed by event name')];
  const hooksConfig = isPlainObject(settings.hooksConfig) ? settings.hooksConfig : {};
  const tools = isPlainObject(settings.tools) ? settings.tools : {};
  const allOff = hooksConfig.enabled === false || tools.enableHooks === false;
  const disabledNames = new Set([
    ...(isStringArray(settings.hooks.disabled) ? settings.hooks.disabled : []),
    ...(isStringArray(hooksConfig.disabled) ? hooksConfig.disabled : []),
  ]);
  const out: Conversion[] = [];
  for (const [key, groups] of Object.entries(settings.hooks)) {
    if (key === 'disabled') continue;
    if (!Array.isArray(groups)) {
      out.push(unreadable(key, `"${key}" is not a list of matcher groups`));
      continue;
    }
    groups.forEach((group: unknown, gi) => {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
        out.push(unreadable(key, `${key}[${gi}] is not a matcher group { "matcher", "hooks": [...] }`));
        return;
      }
      const sequential = group.sequential === true && group.hooks.length > 1;
      group.hooks.forEach((handler: unknown, hi) => {
        for (const c of convertHandler(key, group.matcher, handler, { allOff, disabledNames, priority: sequential ? hi : undefined }))
          out.push(c);
      });
    });
  }
  return out;
}

interface HandlerContext {
  allOff: boolean;
  disabledNames: ReadonlySet<string>;
  /** Set in a `sequential` group: the hook's place in it. */
  priority?: number;
}

function convertHandler(key: string, rawMatcher: unknown, handler: unknown, ctx: HandlerContext): Conversion[] {
  const what = isPlainObject(handler) ? `command ${shown(handler.command)}` : shown(handler);
  const draft = new ConversionDraft(key, describeEntry(key, rawMatcher, what));
  const geminiOnly = lookup(GEMINI_ONLY, key);
  if (geminiOnly) return [draft.unsupported(geminiOnly)];
  const spec = lookup(GEMINI_EVENTS, key);
  if (!spec) return [draft.unsupported(`"${key}" is not a Gemini CLI event Hookpilot knows`)];
  if (!isPlainObject(handler)) return [draft.unsupported('the hook is not an object')];
  if (handler.type !== 'command') return [draft.unsupported(`hook type ${shown(handler.type)}: Gemini CLI runs command hooks only`)];
  if (typeof handler.command !== 'string' || handler.command === '') return [draft.unsupported('the hook has no "command"')];
  if (rawMatcher !== undefined && typeof rawMatcher !== 'string') return [draft.unsupported('the matcher is not a string')];
  const matcher = convertMatcher(spec.event, rawMatcher);
  if (matcher.unsupported) return [draft.unsupported(matcher.unsupported)];
  draft.absorb(matcher);
  for (const field of Object.keys(handler))
    if (!HANDLER_FIELDS.has(field)) draft.change(`"${field}" is not a field Hookpilot knows: left out`);

  const out: CommandHandlerConfig = { type: 'command', command: handler.command };
  if (typeof handler.name === 'string' && handler.name !== '') out.name = handler.name;
  if (typeof handler.description === 'string') out.description = handler.description;
  const ms = typeof handler.timeout === 'number' && handler.timeout > 0 ? handler.timeout : DEFAULT_TIMEOUT_MS;
  out.timeout = msToSeconds(ms);
  draft.note(
    handler.timeout === undefined
      ? `no timeout: Gemini CLI's default of ${DEFAULT_TIMEOUT_MS} ms is written out as ${out.timeout} s`
      : `timeout ${ms} ms → ${out.timeout} s`,
  );
  if (ctx.priority !== undefined) {
    out.priority = ctx.priority;
    draft.change(
      `"sequential": true → "priority": ${ctx.priority}: the group's hooks run one after another in their order, each seeing the input the previous one changed, and a block stops the later ones; the event's other hooks share these priorities`,
    );
  }
  if (spec.async) {
    out.async = true;
    draft.note('"async": true keeps it advisory: Gemini CLI\'s PreCompress cannot block or delay the compression');
  }
  if (ctx.allOff) {
    out.enabled = false;
    draft.note('hooks are switched off in this settings file: imported with "enabled": false');
  } else if (ctx.disabledNames.has(out.name ?? '') || ctx.disabledNames.has(out.command)) {
    out.enabled = false;
    draft.note('listed as disabled in this settings file: imported with "enabled": false');
  }
  const aliased = aliasVariables(out.command, undefined, GEMINI_VARIABLES);
  draft.absorb(aliased).absorb(missingVariables(out.command, MISSING_VARIABLES));
  if (aliased.env) out.env = aliased.env;

  // AfterTool also runs for failed tools, which Hookpilot reports as PostToolUseFailure.
  const targets: HookEventName[] = spec.event === 'PostToolUse' ? ['PostToolUse', 'PostToolUseFailure'] : [spec.event];
  return targets.map((event) => {
    const target = new ConversionDraft(key, draft.original).absorb(draft);
    if (key !== event) target.change(`hook_event_name is "${event}" instead of "${key}": scripts that check it must check the new name`);
    if (spec.change) target.change(spec.change);
    if (event === 'PostToolUseFailure') {
      target.note(
        "also bound to PostToolUseFailure: Gemini CLI's AfterTool runs after failed tools too (tool_response.error), Hookpilot's PostToolUse only after successful ones",
      );
      target.change("input: tool names are Claude Code's, and the failure comes as error (a message) instead of tool_response.error");
      target.change(
        'output: hookSpecificOutput.additionalContext (hookEventName "PostToolUseFailure") adds context; the result cannot be replaced',
      );
    } else {
      if (spec.input) target.change(`input: ${spec.input}`);
      if (spec.output) target.change(`output: ${spec.output}`);
    }
    return target.to(event, matcher.matcher, { ...out });
  });
}

function convertMatcher(event: HookEventName, raw: string | undefined): MatcherResult {
  if (isToolEvent(event)) return translateToolMatcher(raw, { names: GEMINI_TOOL_NAMES, label: 'Gemini CLI', anchored: false });
  return translateValueMatcher(event, raw, false, { ToolPermission: 'permission_prompt' });
}
