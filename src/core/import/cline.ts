import type { CommandHandlerConfig } from '../hooks/config/config-schema';
import type { HookEventName } from '../hooks/events';
import { ConversionDraft, lookup, type Conversion } from './conversion';
import { scriptWord } from './handler-env';
import type { ClineScriptSource } from './import-types';
import { CLINE_TOOL_NAMES, describeToolNames } from './tool-names';

interface ClineEvent {
  event: HookEventName;
  matcher?: string;
  /** Cline's input for this event → Claude Code's fields. */
  input: string;
  /** How the script must answer now. */
  output: string;
  /** Cline blocks the action when the hook fails, and Hookpilot can block it too. */
  failureBlocks: boolean;
  change?: string;
}

const CONTEXT_OUTPUT = 'contextModification → plain stdout or hookSpecificOutput.additionalContext';
const OBSERVE_OUTPUT = 'its output is ignored (an observe-only event in Hookpilot)';

/** Cline's hook names (docs/hooks.md#cline) and what they become. */
export const CLINE_EVENTS: Readonly<Record<string, ClineEvent>> = {
  TaskStart: {
    event: 'SessionStart',
    matcher: 'startup',
    input: 'taskStart.taskMetadata is not sent; source is "startup"',
    output: `${CONTEXT_OUTPUT}; {"cancel": true} → {"continue": false}`,
    failureBlocks: false,
  },
  TaskResume: {
    event: 'SessionStart',
    matcher: 'resume',
    input: 'taskResume.previousState is not sent; source is "resume"',
    output: `${CONTEXT_OUTPUT}; {"cancel": true} → {"continue": false}`,
    failureBlocks: false,
  },
  TaskCancel: { event: 'SessionEnd', matcher: 'cancelled', input: 'reason is "cancelled"', output: OBSERVE_OUTPUT, failureBlocks: false },
  TaskComplete: {
    event: 'Stop',
    input: 'taskComplete → last_assistant_message, stop_hook_active',
    output: '"cancel" has no counterpart; {"decision": "block", "reason": …} keeps the agent working instead of finishing',
    failureBlocks: false,
    change:
      'Stop fires each time the agent finishes answering a prompt (and may keep it working), where TaskComplete reported a completed task',
  },
  PreToolUse: {
    event: 'PreToolUse',
    input:
      "preToolUse.toolName → tool_name, preToolUse.parameters → tool_input (Claude Code's fields: command, file_path, content, old_string/new_string)",
    output:
      '{"cancel": true, "errorMessage": m} → exit 2 with m on stderr, or {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": m}}; contextModification → hookSpecificOutput.additionalContext. Until then a {"cancel": true} answer is ignored and the tool runs',
    failureBlocks: true,
  },
  PostToolUse: {
    event: 'PostToolUse',
    input: 'postToolUse.toolName, parameters, result, executionTimeMs → tool_name, tool_input, tool_response, duration_ms',
    output:
      '{"cancel": true} → {"continue": false, "stopReason": …} (ends the session); contextModification → hookSpecificOutput.additionalContext',
    failureBlocks: false,
  },
  UserPromptSubmit: {
    event: 'UserPromptSubmit',
    input: 'userPromptSubmit.prompt → prompt (attachments are not sent)',
    output: `{"cancel": true, "errorMessage": m} → exit 2 with m on stderr, or {"decision": "block", "reason": m}; ${CONTEXT_OUTPUT}. Until then a {"cancel": true} answer is ignored`,
    failureBlocks: true,
  },
  PreCompact: {
    event: 'PreCompact',
    input: 'preCompact.conversationLength, estimatedTokens → message_count, estimated_tokens, trigger',
    output: '{"cancel": true} → exit 2, or {"decision": "block", "reason": …}. Until then a {"cancel": true} answer is ignored',
    failureBlocks: true,
  },
  Notification: {
    event: 'Notification',
    input: 'notification → message, title, notification_type',
    output: OBSERVE_OUTPUT,
    failureBlocks: false,
  },
  PostAssistantTurn: {
    event: 'StepComplete',
    input: 'postAssistantTurn → step, tool_calls, messages_count',
    output: OBSERVE_OUTPUT,
    failureBlocks: false,
    change: 'StepComplete fires after each model step (a response and its tool calls)',
  },
};

const CLINE_TIMEOUT_S = 30;

/** One executable in `.clinerules/hooks/`, named after its event. */
export function convertClineScript(source: ClineScriptSource): Conversion[] {
  const name = `${source.event}${source.extension}`;
  const draft = new ConversionDraft(source.event, `${name} (${source.executable ? 'executable' : 'not executable'})`);
  const spec = lookup(CLINE_EVENTS, source.event);
  if (!spec) return [draft.unsupported(`"${source.event}" is not a Cline hook name`)];
  if (source.extension === '.ps1')
    return [draft.unsupported('a PowerShell hook, which Cline runs on Windows only; Hookpilot runs hooks with sh')];
  if (source.extension !== '')
    return [
      draft.unsupported(`Cline runs only a file named exactly "${source.event}" (no extension) on Linux and macOS, so this one never ran`),
    ];
  const conversions = [convertFor(source, spec, spec.event)];
  if (spec.event === 'PostToolUse') conversions.push(convertFor(source, spec, 'PostToolUseFailure'));
  return conversions;
}

function convertFor(source: ClineScriptSource, spec: ClineEvent, event: HookEventName): Conversion {
  const draft = new ConversionDraft(
    source.event,
    `${source.event}${source.extension} (${source.executable ? 'executable' : 'not executable'})`,
  );
  const handler: CommandHandlerConfig = { type: 'command', command: scriptWord(source, source.file), timeout: CLINE_TIMEOUT_S };
  draft.note(`Cline's fixed ${CLINE_TIMEOUT_S} s timeout is written out`);
  if (event === 'PostToolUseFailure') {
    draft.note(
      "also bound to PostToolUseFailure: Cline's PostToolUse runs after failed tools too (success: false), Hookpilot's only after successful ones; failures carry error instead of tool_response",
    );
  }
  if (spec.change) draft.change(spec.change);
  draft.change(
    `Cline's JSON envelope (clineVersion, hookName, taskId, workspaceRoots, a camelCase object per event) becomes Claude Code's flat snake_case input: hookName → hook_event_name ("${event}"), taskId → session_id, workspaceRoots[0] → cwd; ${spec.input}`,
  );
  if (event === 'PreToolUse' || event === 'PostToolUse' || event === 'PostToolUseFailure') {
    draft.change(`tool names are Claude Code's: ${describeToolNames(CLINE_TOOL_NAMES)}`);
  }
  draft.change(
    `the script must answer in Claude Code's protocol: ${spec.output}; Hookpilot reads stdout as JSON only when it starts with "{" (Cline took the last {…} even with text around it)`,
  );
  if (spec.failureBlocks) {
    handler.onFailure = 'block';
    draft.note('Cline stops the action when the hook fails (crash, timeout, no JSON): "onFailure": "block" keeps that');
  } else {
    draft.change(
      'a failing hook (crash, timeout, no JSON) no longer counts as an error that can stop the task: Hookpilot logs it and continues',
    );
  }
  if (!source.executable) {
    handler.enabled = false;
    draft.note('not executable, so Cline skips it: imported with "enabled": false (make it executable before enabling it)');
  }
  if (source.scope === 'user') draft.note('a global Cline hook: imported, it applies to this workspace only');
  return draft.to(event, spec.matcher, handler);
}
