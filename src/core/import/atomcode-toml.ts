import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { CommandHandlerConfig, HttpHandlerConfig } from '../hooks/config/config-schema';
import { isToolEvent, type HookEventName } from '../hooks/events';
import { ConversionDraft, isPlainObject, isStringRecord, lookup, shown, unreadable, type Conversion } from './conversion';
import { HOOKPILOT_COMMAND_TIMEOUT_S } from './event-semantics';
import { msToSeconds, referencedVariables, scriptWord } from './handler-env';
import type { ConfigFileSource } from './import-types';
import { errorMessage } from '../error-message';

/**
 * AtomCode's TOML hooks (`.atomcode/hooks/hooks.toml`). Its design names the
 * parts (ScriptHook: script, timeout, script_type; WebhookHook: url, method, headers)
 * but not the file layout, so this reads the layout below (field aliases in brackets):
 *
 *   [[hooks]]                              # a script hook
 *   name = "lint"                          # optional
 *   hook_type = "post_tool_execution"      # [event] pre_tool_execution | post_tool_execution | post_turn | system_prompt
 *   script = "scripts/lint.sh"             # relative to the directory of hooks.toml
 *   script_type = "shell"                  # optional: shell | bash | python | node | executable
 *   timeout = 30                           # seconds [timeout_ms: milliseconds]
 *   enabled = true
 *
 *   [[webhooks]]
 *   url = "https://audit.example.com/atomcode"
 *   method = "POST"
 *   headers = { Authorization = "Bearer ${AUDIT_TOKEN}" }
 *   events = ["pre_tool_execution", "on_session_end"]
 *   timeout = 10                           # seconds [timeout_ms]
 *
 * Event names may be snake_case (`on_session_end`) or PascalCase (`OnSessionEnd`).
 */

const normalize = (name: string) => name.replace(/_/g, '').toLowerCase();

/** The traits AtomCode's ScriptHook implements, and what the script's HookResult answer becomes. */
const SCRIPT_EVENTS: Readonly<Record<string, { event: HookEventName; output: string }>> = {
  pretoolexecution: {
    event: 'PreToolUse',
    output:
      'Denied(reason) → exit 2 with the reason on stderr (or permissionDecision "deny"); Modified(args) → hookSpecificOutput.updatedInput; Warning(msg) → systemMessage',
  },
  posttoolexecution: { event: 'PostToolUse', output: 'Denied(reason) → {"decision": "block", "reason": …}; Warning(msg) → systemMessage' },
  postturn: { event: 'TurnEnd', output: 'its answer is ignored (TurnEnd is observe-only)' },
  systemprompt: { event: 'SystemPrompt', output: 'plain stdout (or hookSpecificOutput.additionalContext) is added to the system prompt' },
};

const WEBHOOK_EVENTS: Readonly<Record<string, HookEventName>> = {
  ...Object.fromEntries(Object.entries(SCRIPT_EVENTS).map(([key, spec]) => [key, spec.event])),
  onsessionstart: 'SessionStart',
  onsessionend: 'SessionEnd',
  ontoolcallstart: 'PreToolUse',
  onturnstart: 'TurnStart',
  onturncomplete: 'TurnEnd',
  onerror: 'Error',
  onmodelresponse: 'AfterLLM',
};

const WEBHOOK_NEVER: Readonly<Record<string, string>> = {
  onuserpromptsubmit: 'AtomCode never sends OnUserPromptSubmit to webhooks, so this binding never ran',
  onmessagereceived: 'AtomCode defines OnMessageReceived but never triggers it, and Hookpilot has no such event',
};

const INTERPRETERS: Readonly<Record<string, string>> = {
  shell: 'sh',
  sh: 'sh',
  bash: 'bash',
  python: 'python3',
  python3: 'python3',
  node: 'node',
  javascript: 'node',
  js: 'node',
};
const BY_EXTENSION: Readonly<Record<string, string>> = {
  '.sh': 'sh',
  '.bash': 'bash',
  '.py': 'python3',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
};

export function convertAtomcodeToml(source: ConfigFileSource): Conversion[] {
  if (source.readError !== undefined) return [unreadable('(file)', `could not read the file: ${source.readError}`)];
  let document: Record<string, unknown>;
  try {
    document = parseToml(source.text);
  } catch (err) {
    return [unreadable('(file)', `not valid TOML (${errorMessage(err).split('\n')[0]}); none of its hooks were imported`)];
  }
  const out: Conversion[] = [];
  for (const [section, value] of Object.entries(document)) {
    if (section !== 'hooks' && section !== 'webhooks') {
      out.push(unreadable(section, `"${section}" is not a section this import reads ([[hooks]] for scripts, [[webhooks]])`));
      continue;
    }
    if (!Array.isArray(value)) {
      out.push(unreadable(section, `"${section}" must be an array of tables ([[${section}]])`));
      continue;
    }
    for (const entry of value) {
      if (section === 'hooks') out.push(convertScript(source, entry));
      else out.push(...convertWebhook(entry));
    }
  }
  return out;
}

function timeoutOf(entry: Record<string, unknown>, draft: ConversionDraft): number | undefined {
  if (typeof entry.timeout_ms === 'number' && entry.timeout_ms > 0) {
    draft.note(`timeout_ms ${entry.timeout_ms} → ${msToSeconds(entry.timeout_ms)} s`);
    return msToSeconds(entry.timeout_ms);
  }
  if (typeof entry.timeout === 'number' && entry.timeout > 0) return entry.timeout;
  draft.note(`no timeout: Hookpilot's default (${HOOKPILOT_COMMAND_TIMEOUT_S} s for scripts) applies`);
  return undefined;
}

function convertScript(source: ConfigFileSource, entry: unknown): Conversion {
  if (!isPlainObject(entry)) return unreadable('hooks', `a [[hooks]] entry is not a table: ${shown(entry)}`);
  const type = entry.hook_type ?? entry.event;
  const label = typeof entry.name === 'string' ? `${entry.name}: ` : '';
  const draft = new ConversionDraft(String(type), `[[hooks]] ${label}${shown(type)}, script ${shown(entry.script)}`);
  if (typeof type !== 'string') return draft.unsupported('the script hook has no "hook_type"');
  const spec = lookup(SCRIPT_EVENTS, normalize(type));
  if (!spec)
    return draft.unsupported(
      `AtomCode runs script hooks only for pre_tool_execution, post_tool_execution, post_turn and system_prompt, so "${type}" never ran`,
    );
  if (typeof entry.script !== 'string' || entry.script === '') return draft.unsupported('the script hook has no "script"');

  const file = path.isAbsolute(entry.script) ? entry.script : path.resolve(path.dirname(source.file), entry.script);
  const scriptType = typeof entry.script_type === 'string' ? entry.script_type.toLowerCase() : undefined;
  const interpreter = scriptType === undefined ? lookup(BY_EXTENSION, path.extname(file)) : lookup(INTERPRETERS, scriptType);
  if (scriptType !== undefined && scriptType !== 'executable' && !interpreter)
    return draft.unsupported(`unknown script_type ${shown(entry.script_type)}`);
  const event = spec.event;
  const handler: CommandHandlerConfig = {
    type: 'command',
    command: interpreter ? `${interpreter} ${scriptWord(source, file)}` : scriptWord(source, file),
  };
  if (typeof entry.name === 'string' && entry.name !== '') handler.name = entry.name;
  const timeout = timeoutOf(entry, draft);
  if (timeout !== undefined) handler.timeout = timeout;
  handler.env = { ATOMCODE_HOOK_TYPE: type, ATOMCODE_WORKSPACE: '${CLAUDE_PROJECT_DIR}' };
  draft.note(
    'ATOMCODE_HOOK_TYPE and ATOMCODE_WORKSPACE are set through "env", as AtomCode sets them; a failing script is ignored (fail-open) in both',
  );
  if (entry.enabled === false) {
    handler.enabled = false;
    draft.note('"enabled": false kept');
  }
  if (isToolEvent(event)) draft.change('ATOMCODE_TOOL_NAME is not set: read tool_name from the input');
  draft.change(
    `the script gets Claude Code's input on stdin (hook_event_name, tool_name, tool_input, …) instead of AtomCode's context JSON, and answers with Claude Code's output instead of a HookResult: ${spec.output}`,
  );
  return draft.to(event, undefined, handler);
}

function convertWebhook(entry: unknown): Conversion[] {
  if (!isPlainObject(entry)) return [unreadable('webhooks', `a [[webhooks]] entry is not a table: ${shown(entry)}`)];
  const events = Array.isArray(entry.events) ? entry.events : [];
  const label = typeof entry.name === 'string' ? `${entry.name}: ` : '';
  const describe = (event: unknown) =>
    `[[webhooks]] ${label}${shown(event)} → ${typeof entry.method === 'string' ? `${entry.method} ` : ''}${shown(entry.url)}`;
  if (events.length === 0)
    return [new ConversionDraft('(none)', describe('no events')).unsupported('the webhook lists no "events", so it never ran')];
  return events.map((raw: unknown) => {
    const draft = new ConversionDraft(String(raw), describe(raw));
    if (typeof raw !== 'string') return draft.unsupported('the event name is not a string');
    const key = normalize(raw);
    const never = lookup(WEBHOOK_NEVER, key);
    if (never) return draft.unsupported(never);
    const event = lookup(WEBHOOK_EVENTS, key);
    if (!event) return draft.unsupported(`"${raw}" is not an AtomCode hook event Hookpilot knows`);
    const method = typeof entry.method === 'string' ? entry.method.toUpperCase() : 'POST';
    if (method !== 'POST') return draft.unsupported(`it sends ${method} requests; Hookpilot's http hooks always POST the hook input`);
    if (typeof entry.url !== 'string' || entry.url === '') return draft.unsupported('the webhook has no "url"');
    const handler: HttpHandlerConfig = { type: 'http', url: entry.url };
    if (typeof entry.name === 'string' && entry.name !== '') handler.name = entry.name;
    if (isStringRecord(entry.headers)) {
      handler.headers = entry.headers;
      const vars = [...new Set(Object.values(entry.headers).flatMap(referencedVariables))];
      if (vars.length > 0) {
        handler.allowedEnvVars = vars;
        draft.note(`"allowedEnvVars": ${vars.join(', ')}, so the headers keep expanding them`);
      }
    }
    const timeout = timeoutOf(entry, draft);
    if (timeout !== undefined) handler.timeout = timeout;
    if (entry.enabled === false) handler.enabled = false;
    if (key === 'ontoolcallstart')
      draft.change("OnToolCallStart only observes in AtomCode; on PreToolUse the webhook's answer can deny or change the tool call");
    draft.change(
      "the body is Claude Code's hook input (hook_event_name, tool_name, tool_input, …) instead of AtomCode's event JSON, and a 2xx JSON answer is read as Claude Code's hook output",
    );
    return draft.to(event, undefined, handler);
  });
}
