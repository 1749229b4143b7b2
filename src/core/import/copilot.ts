import type { CommandHandlerConfig, HttpHandlerConfig } from '../hooks/config/config-schema';
import { COPILOT_EVENT_NAMES, HOOK_EVENTS, isToolEvent, type HookEventName } from '../hooks/events';
import {
  ConversionDraft,
  describeEntry,
  isPlainObject,
  isStringArray,
  isStringRecord,
  lookup,
  shown,
  unreadable,
  type Conversion,
} from './conversion';
import { exit2Difference } from './event-semantics';
import { braceReferences } from './handler-env';
import type { ConfigFileSource } from './import-types';
import { claudeMatcher, translateToolMatcher, translateValueMatcher, type MatcherResult } from './matcher-translation';
import { parseSourceJson } from './read-source';
import { COPILOT_TOOL_NAMES, describeToolNames } from './tool-names';

const COPILOT_ONLY: Readonly<Record<string, string>> = {
  userPromptTransformed: 'Hookpilot has no event after a prompt is transformed (and only SDK hooks may change the prompt there)',
};

/** Copilot's camelCase input fields that Claude Code names differently, by event. */
const INPUT_FIELDS: Readonly<Record<string, string>> = {
  preToolUse: 'toolName → tool_name, toolArgs → tool_input',
  permissionRequest: 'toolName → tool_name, toolArgs → tool_input',
  postToolUse: 'toolName → tool_name, toolArgs → tool_input, toolResult → tool_response',
  postToolUseFailure: 'toolName → tool_name, toolArgs → tool_input',
  sessionStart: 'initialPrompt is not sent',
  errorOccurred: 'errorContext → error_type',
};

/** How a camelCase-event hook must answer now. */
const OUTPUT_CHANGES: Readonly<Record<string, string>> = {
  preToolUse:
    'answer with {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":…,"permissionDecisionReason":…,"updatedInput":…}}: a top-level permissionDecision or modifiedArgs is ignored',
  postToolUse:
    'modifiedResult.textResultForLlm → hookSpecificOutput.updatedToolOutput, additionalContext → hookSpecificOutput.additionalContext (with "hookEventName":"PostToolUse")',
  permissionRequest:
    '{behavior, message, interrupt} → {"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":…,"message":…,"interrupt":…}}}',
  notification: "additionalContext is ignored: Hookpilot's Notification is observe-only",
  userPromptSubmitted: 'modifiedPrompt is ignored (Copilot CLI ignores it too); hookSpecificOutput.additionalContext adds context',
  errorOccurred: "its answer is ignored: Hookpilot's Error event is observe-only",
};

const ENTRY_FIELDS = new Set([
  'type',
  'bash',
  'powershell',
  'command',
  'linux',
  'osx',
  'windows',
  'exec',
  'args',
  'cwd',
  'env',
  'timeoutSec',
  'timeout',
  'matcher',
  'url',
  'headers',
  'allowedEnvVars',
]);

/** Shell syntax `sh` (dash) does not have: such a `bash` entry keeps running in bash. */
const BASH_ONLY = /\[\[|\$\(\(|<\(|>\(|\bfunction\s|\bsource\s|\$'|\{\w*,[^}]*\}|\w=\(|\b(?:declare|shopt|pushd|popd)\b/;

const DEFAULT_TIMEOUT_S = 30;

/** `.github/hooks/*.json`: `{ "version": 1, "hooks": { "<event>": [entry, ...] } }`. */
export function convertCopilotHooks(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value) || !isPlainObject(parsed.value.hooks))
    return [unreadable('(file)', 'not a Copilot hooks file: expected { "version": 1, "hooks": { … } }')];
  const disabled = parsed.value.disableAllHooks === true;
  const out: Conversion[] = [];
  for (const [key, entries] of Object.entries(parsed.value.hooks)) {
    if (!Array.isArray(entries)) {
      out.push(unreadable(key, `"${key}" is not a list of hook entries`));
      continue;
    }
    for (const entry of entries) {
      // VS Code also reads Claude Code's shape here: a matcher group around its handlers.
      if (isPlainObject(entry) && Array.isArray(entry.hooks)) {
        for (const handler of entry.hooks)
          out.push(
            convertEntry(
              key,
              isPlainObject(handler) && entry.matcher !== undefined ? { ...handler, matcher: entry.matcher } : handler,
              disabled,
              entry.matcher !== undefined,
            ),
          );
      } else {
        out.push(convertEntry(key, entry, disabled, false));
      }
    }
  }
  return out;
}

function summary(entry: Record<string, unknown>): string {
  if (typeof entry.exec === 'string') return `exec ${shown([entry.exec, ...(isStringArray(entry.args) ? entry.args : [])].join(' '))}`;
  for (const field of ['bash', 'command', 'linux', 'osx', 'windows', 'powershell', 'url'])
    if (typeof entry[field] === 'string') return `${field} ${shown(entry[field])}`;
  return `${typeof entry.type === 'string' ? entry.type : 'command'} entry`;
}

function convertEntry(key: string, entry: unknown, disabled: boolean, grouped: boolean): Conversion {
  const draft = new ConversionDraft(
    key,
    isPlainObject(entry) ? describeEntry(key, entry.matcher, summary(entry)) : `${key}: ${shown(entry)}`,
  );
  const camelEvent = lookup(COPILOT_EVENT_NAMES, key);
  const camel = camelEvent !== undefined;
  const event = camelEvent ?? ((HOOK_EVENTS as readonly string[]).includes(key) ? (key as HookEventName) : undefined);
  if (!event) return draft.unsupported(lookup(COPILOT_ONLY, key) ?? `"${key}" is not a Copilot event Hookpilot knows`);
  if (!isPlainObject(entry)) return draft.unsupported('the entry is not an object');
  const type = entry.type ?? 'command';
  if (type === 'prompt') return draft.unsupported('prompt entries submit text when a session starts; Hookpilot has no prompt hooks');
  if (type !== 'command' && type !== 'http') return draft.unsupported(`unknown entry type ${shown(type)}`);
  for (const field of Object.keys(entry)) if (!ENTRY_FIELDS.has(field)) draft.change(`"${field}" is not a field Hookpilot knows: left out`);
  if (entry.matcher !== undefined && typeof entry.matcher !== 'string') return draft.unsupported('the matcher is not a string');
  const matcher = convertMatcher(event, entry.matcher, camel);
  if (matcher.unsupported) return draft.unsupported(matcher.unsupported);
  draft.absorb(matcher);
  if (grouped) draft.note('from a Claude Code-style matcher group: VS Code ignores its matcher, Copilot CLI and Hookpilot apply it');
  if (camel) {
    protocolChanges(key, event, draft);
    exitCodeChanges(event, draft);
  } else {
    draft.note(
      "a PascalCase event in a Copilot file already gets Claude Code's input and tool names, and exit code 2 blocks as in VS Code",
    );
  }
  const timeout = typeof entry.timeoutSec === 'number' ? entry.timeoutSec : entry.timeout;
  const seconds = typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_S;
  if (timeout === undefined) draft.note(`no timeoutSec: Copilot's default of ${DEFAULT_TIMEOUT_S} s is written out`);
  else if (seconds !== timeout)
    draft.change(`timeout ${shown(timeout)} is not a positive number of seconds: Copilot's default of ${DEFAULT_TIMEOUT_S} s is used`);
  if (disabled) draft.note('"disableAllHooks": true in this file: imported with "enabled": false');
  if (type === 'http') {
    if (typeof entry.url !== 'string') return draft.unsupported('the http entry has no "url"');
    const http: HttpHandlerConfig = { type: 'http', url: entry.url, timeout: seconds };
    if (isStringRecord(entry.headers)) http.headers = entry.headers;
    if (isStringArray(entry.allowedEnvVars)) http.allowedEnvVars = entry.allowedEnvVars;
    if (disabled) http.enabled = false;
    return draft.to(event, matcher.matcher, http);
  }
  const command = commandOf(entry, draft);
  if (!command) {
    const windowsOnly = typeof entry.powershell === 'string' || typeof entry.windows === 'string';
    return draft.unsupported(
      windowsOnly
        ? 'it has only a Windows (PowerShell) command; Hookpilot runs hooks with sh on Linux and macOS'
        : 'the entry has no bash, command, linux/osx or exec',
    );
  }
  command.timeout = seconds;
  if (typeof entry.cwd === 'string' && entry.cwd !== '') command.cwd = entry.cwd;
  if (isStringRecord(entry.env)) {
    const braced = braceReferences(entry.env);
    draft.absorb(braced);
    command.env = braced.env;
  }
  if (event === 'PreToolUse') {
    command.onFailure = 'block';
    draft.change(
      'Copilot denies the tool when a preToolUse hook crashes (fail-closed) but not when it times out; "onFailure": "block" keeps the crash case and also denies on a timeout',
    );
  }
  if (disabled) command.enabled = false;
  return draft.to(event, matcher.matcher, command);
}

function convertMatcher(event: HookEventName, raw: string | undefined, camel: boolean): MatcherResult {
  if (!camel) return claudeMatcher(event, raw);
  if (isToolEvent(event)) return translateToolMatcher(raw, { names: COPILOT_TOOL_NAMES, label: 'Copilot', anchored: true });
  return translateValueMatcher(event, raw, true);
}

function commandOf(entry: Record<string, unknown>, draft: ConversionDraft): CommandHandlerConfig | undefined {
  if (typeof entry.exec === 'string' && entry.exec !== '') {
    return { type: 'command', command: entry.exec, args: isStringArray(entry.args) ? entry.args : [] };
  }
  // VS Code's own format has a command per OS; the one for this machine's kind of OS is used.
  const own = process.platform === 'darwin' ? entry.osx : entry.linux;
  const script = [entry.bash, entry.command, own].find((s): s is string => typeof s === 'string' && s !== '');
  if (script === undefined) return undefined;
  if (typeof entry.powershell === 'string') draft.note('the "powershell" variant is for Windows: left out');
  if (typeof own === 'string' && script === own)
    draft.note(`the "${process.platform === 'darwin' ? 'osx' : 'linux'}" command is used (VS Code picks the command for the OS)`);
  const others = ['linux', 'osx', 'windows'].filter((os) => typeof entry[os] === 'string' && entry[os] !== script);
  if (others.length > 0) draft.note(`the ${others.join(', ')} variant${others.length > 1 ? 's are' : ' is'} left out`);
  if (typeof entry.bash === 'string' && BASH_ONLY.test(script)) {
    draft.note("written as bash -c …, because the line uses bash-only syntax and Hookpilot's shell form is sh");
    return { type: 'command', command: 'bash', args: ['-c', script] };
  }
  return { type: 'command', command: script };
}

function protocolChanges(key: string, event: HookEventName, draft: ConversionDraft): void {
  const fields = lookup(INPUT_FIELDS, key);
  draft.change(
    `it gets Claude Code's snake_case input instead of Copilot's camelCase: sessionId → session_id, hook_event_name "${event}", no timestamp${fields ? `; ${fields}` : ''}`,
  );
  if (isToolEvent(event))
    draft.change(`tool names in the input are Claude Code's, not Copilot's (${describeToolNames(COPILOT_TOOL_NAMES)})`);
  const output = lookup(OUTPUT_CHANGES, key);
  if (output) draft.change(output);
}

function exitCodeChanges(event: HookEventName, draft: ConversionDraft): void {
  // Exit 2 denies on both, as in Copilot.
  if (event === 'PreToolUse' || event === 'PermissionRequest' || event === 'PostToolUseFailure') return;
  const difference = exit2Difference(event, 'is only a warning in Copilot');
  if (difference) draft.change(difference);
}
