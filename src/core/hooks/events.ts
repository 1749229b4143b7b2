/**
 * The event catalogue. Canonical names are Claude Code's wherever Claude Code has the
 * event, so scripts written for it carry over; other hook systems' spellings are aliases (docs/design.md#where-the-design-comes-from).
 */

export const HOOK_EVENTS = [
  'SessionStart',
  'InstructionsLoaded',
  'UserPromptSubmit',
  'TurnStart',
  'SystemPrompt',
  'BeforeLLM',
  'AfterLLM',
  'PreToolUse',
  'PermissionRequest',
  'PermissionDenied',
  'PostToolUse',
  'PostToolUseFailure',
  'ToolSkipped',
  'StepComplete',
  'PostToolBatch',
  'SteeringInjected',
  'Stop',
  'StopFailure',
  'InterruptReceived',
  'TurnEnd',
  'FollowUpQueued',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'Notification',
  'Elicitation',
  'ElicitationResult',
  'Error',
  'ConfigChange',
  'FileChanged',
  'SessionEnd',
] as const;

export type HookEventName = (typeof HOOK_EVENTS)[number];

/**
 * observe: fan-out, never delays the loop. intercept: returns a decision the loop waits
 * for. approve: answers a permission request; the strictest answer wins, timeout denies.
 */
export type EventKind = 'observe' | 'intercept' | 'approve';

export interface EventInfo {
  kind: EventKind;
  /** Payload field the group `matcher` is tested against; undefined = matcher ignored. */
  matchField?: string;
  /** Plain (non-JSON) stdout on exit 0 becomes model context, as in Claude Code. */
  plainStdoutIsContext: boolean;
  /** Exit code 2 blocks the action (Claude Code's per-event table). */
  exit2Blocks: boolean;
  /** Tool events: content patterns and `if` filters apply. */
  toolEvent: boolean;
  /**
   * Claude Code reads fewer matchers as a list of exact names here (letters, digits, `_`, `|`):
   * `my-file` or `a,b` is a pattern, as the names a FileChanged matcher watches are split on `|` only.
   */
  narrowExactSet?: true;
  description: string;
}

export const EVENT_INFO: Record<HookEventName, EventInfo> = {
  SessionStart: {
    kind: 'intercept',
    matchField: 'source',
    plainStdoutIsContext: true,
    exit2Blocks: false,
    toolEvent: false,
    description: 'A session starts or resumes; hooks may add context.',
  },
  InstructionsLoaded: {
    kind: 'observe',
    matchField: 'load_reason',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'Project instructions (AGENTS.md, CLAUDE.md) were loaded into the system prompt.',
  },
  UserPromptSubmit: {
    kind: 'intercept',
    plainStdoutIsContext: true,
    exit2Blocks: true,
    toolEvent: false,
    description: 'The user submitted a prompt; hooks may block it or add context.',
  },
  TurnStart: {
    kind: 'observe',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The agent starts working on a prompt.',
  },
  SystemPrompt: {
    kind: 'intercept',
    plainStdoutIsContext: true,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The system prompt is built; hooks may add extensions to it.',
  },
  BeforeLLM: {
    kind: 'intercept',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'Before each model request; hooks may modify the request or abort the turn.',
  },
  AfterLLM: {
    kind: 'intercept',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'After each model response; hooks may modify the response or abort the turn.',
  },
  PreToolUse: {
    kind: 'intercept',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: true,
    description: 'Before a tool runs; hooks may allow, deny, ask, or rewrite its input.',
  },
  PermissionRequest: {
    kind: 'approve',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: true,
    description: 'A permission prompt is about to be shown; hooks may answer it.',
  },
  PermissionDenied: {
    kind: 'observe',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: true,
    description: 'A tool call was denied (rule, hook, user or timeout); `retry: true` lets the model try again.',
  },
  PostToolUse: {
    kind: 'intercept',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: true,
    description: 'A tool succeeded; hooks may add context, feed back a reason, or rewrite the output.',
  },
  PostToolUseFailure: {
    kind: 'intercept',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: true,
    description: 'A tool failed; hooks may add context.',
  },
  ToolSkipped: {
    kind: 'observe',
    matchField: 'tool_name',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: true,
    description: 'A tool call the model asked for was not run: an earlier call of the same step stopped the turn.',
  },
  StepComplete: {
    kind: 'observe',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'One model step (response plus its tool calls) finished.',
  },
  PostToolBatch: {
    kind: 'intercept',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'All tool calls of one model step finished (parallel or not); hooks may add context or stop the turn.',
  },
  SteeringInjected: {
    kind: 'observe',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'A message the user sent while the agent worked reached the model between two steps.',
  },
  InterruptReceived: {
    kind: 'observe',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The user interrupted the running turn.',
  },
  FollowUpQueued: {
    kind: 'observe',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'Messages the user sent while the agent worked were still waiting when the turn ended: they become the next prompt.',
  },
  Stop: {
    kind: 'intercept',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'The agent is about to finish; hooks may make it continue.',
  },
  StopFailure: {
    kind: 'observe',
    matchField: 'error',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    narrowExactSet: true,
    description: 'The turn ended on a model API error (rate_limit, authentication_failed, server_error, ...).',
  },
  TurnEnd: {
    kind: 'observe',
    matchField: 'reason',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The agent finished working on a prompt: completed, cancelled, failed, out of steps or stopped.',
  },
  SubagentStart: {
    kind: 'intercept',
    matchField: 'agent_type',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'A subagent starts; hooks may add context to it.',
  },
  SubagentStop: {
    kind: 'intercept',
    matchField: 'agent_type',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'A subagent is about to finish; hooks may make it continue.',
  },
  PreCompact: {
    kind: 'intercept',
    matchField: 'trigger',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'Before old turns are compacted; hooks may block it.',
  },
  PostCompact: {
    kind: 'observe',
    matchField: 'trigger',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'After compaction, with the summary.',
  },
  Notification: {
    kind: 'observe',
    matchField: 'notification_type',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The agent notifies the user (permission prompt, idle, ...).',
  },
  Elicitation: {
    kind: 'intercept',
    matchField: 'mcp_server_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'An MCP server asks for input; hooks may answer for the person (accept with content, decline, cancel).',
  },
  ElicitationResult: {
    kind: 'intercept',
    matchField: 'mcp_server_name',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: "The answer to an MCP server's request for input, before it is sent; hooks may change it.",
  },
  Error: {
    kind: 'observe',
    matchField: 'error_type',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'An error occurred (model, tool, hook or internal).',
  },
  ConfigChange: {
    kind: 'intercept',
    matchField: 'source',
    plainStdoutIsContext: false,
    exit2Blocks: true,
    toolEvent: false,
    description: 'A configuration file changed during the session; hooks may block the change (not a policy change).',
  },
  FileChanged: {
    kind: 'observe',
    matchField: 'file_name',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    narrowExactSet: true,
    description:
      'A watched file changed on disk (the names in FileChanged matchers, and watchPaths); hooks may export variables and watch other files.',
  },
  SessionEnd: {
    kind: 'observe',
    matchField: 'reason',
    plainStdoutIsContext: false,
    exit2Blocks: false,
    toolEvent: false,
    description: 'The session ends.',
  },
};

/** GitHub Copilot's camelCase event keys (its file format). */
export const COPILOT_EVENT_NAMES: Readonly<Record<string, HookEventName>> = {
  sessionStart: 'SessionStart',
  sessionEnd: 'SessionEnd',
  userPromptSubmitted: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  postToolUseFailure: 'PostToolUseFailure',
  permissionRequest: 'PermissionRequest',
  agentStop: 'Stop',
  subagentStart: 'SubagentStart',
  subagentStop: 'SubagentStop',
  preCompact: 'PreCompact',
  errorOccurred: 'Error',
  notification: 'Notification',
};

/** One table of alias spellings (other hook systems, Copilot camelCase, PicoClaw snake_case). */
export const EVENT_ALIASES: Readonly<Record<string, HookEventName>> = {
  // AstroResearch
  OnSessionStart: 'SessionStart',
  OnSessionStop: 'Stop',
  OnStepComplete: 'StepComplete',
  OnSubagentStart: 'SubagentStart',
  OnSubagentStop: 'SubagentStop',
  OnPreCompact: 'PreCompact',
  OnPostCompact: 'PostCompact',
  // AtomCode
  OnUserPromptSubmit: 'UserPromptSubmit',
  OnSessionEnd: 'SessionEnd',
  PreToolExecution: 'PreToolUse',
  PostToolExecution: 'PostToolUse',
  OnToolCallStart: 'PreToolUse',
  PostTurn: 'TurnEnd',
  OnTurnComplete: 'TurnEnd',
  OnTurnStart: 'TurnStart',
  OnError: 'Error',
  OnModelResponse: 'AfterLLM',
  // PicoClaw
  before_llm: 'BeforeLLM',
  after_llm: 'AfterLLM',
  before_tool: 'PreToolUse',
  after_tool: 'PostToolUse',
  approve_tool: 'PermissionRequest',
  turn_start: 'TurnStart',
  turn_end: 'TurnEnd',
  llm_request: 'BeforeLLM',
  llm_response: 'AfterLLM',
  tool_exec_start: 'PreToolUse',
  tool_exec_end: 'PostToolUse',
  tool_exec_skipped: 'ToolSkipped',
  steering_injected: 'SteeringInjected',
  follow_up_queued: 'FollowUpQueued',
  interrupt_received: 'InterruptReceived',
  session_summarize: 'PostCompact',
  subturn_spawn: 'SubagentStart',
  subturn_end: 'SubagentStop',
  context_compress: 'PreCompact',
  error: 'Error',
  ...COPILOT_EVENT_NAMES,
};

/**
 * The approval interceptor of PicoClaw-style configs. Hooks registered under this alias see every call that would
 * run (PermissionRequest with `current_decision` "allow" too), not only those a person is asked about.
 */
export const APPROVE_EVERY_CALL = 'approve_tool';

const CANONICAL = new Set<string>(HOOK_EVENTS);

/** The canonical event for a name or alias, or undefined if it is not an event. */
export function resolveEventName(name: string): HookEventName | undefined {
  if (CANONICAL.has(name)) return name as HookEventName;
  return Object.prototype.hasOwnProperty.call(EVENT_ALIASES, name) ? EVENT_ALIASES[name] : undefined;
}

export function isToolEvent(event: HookEventName): boolean {
  return EVENT_INFO[event].toolEvent;
}
