import { z } from 'zod';
import type { HookEventName } from './events';

/**
 * One zod schema per event payload, in Claude Code's snake_case form (docs/hooks.md#events),
 * so that scripts written for Claude Code read the fields they expect.
 */
const common = {
  session_id: z.string(),
  transcript_path: z.string(),
  cwd: z.string(),
  permission_mode: z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']).optional(),
  prompt_id: z.string().optional(),
  agent_id: z.string().optional(),
  agent_type: z.string().optional(),
  /** Set inside a subagent. */
  is_subagent: z.boolean().optional(),
};

const event = <E extends HookEventName>(name: E) => z.literal(name);
const toolInput = z.record(z.string(), z.unknown());

const permissionDecision = z.enum(['allow', 'deny', 'ask']);

/** Claude Code's StopFailure `error` values. */
export const STOP_FAILURE_ERRORS = [
  'rate_limit',
  'overloaded',
  'authentication_failed',
  'oauth_org_not_allowed',
  'billing_error',
  'invalid_request',
  'model_not_found',
  'server_error',
  'max_output_tokens',
  'unknown',
] as const;
export type StopFailureError = (typeof STOP_FAILURE_ERRORS)[number];

/**
 * Claude Code's ConfigChange `source` values that Hookpilot sends (it has no skills): the
 * user's settings and files outside the workspace are `user_settings`, the workspace's files
 * (.vscode/hooks.json, .vscode/settings.json, a .code-workspace file, .claude/settings.json)
 * `project_settings`, `.claude/settings.local.json` `local_settings`, the managed policy file
 * `policy_settings` (docs/hooks.md#configchange).
 */
/** How a person (or a hook for them) answers an MCP server's request for input (the MCP specification's actions). */
export const ELICITATION_ACTIONS = ['accept', 'decline', 'cancel'] as const;
export type ElicitationAction = (typeof ELICITATION_ACTIONS)[number];

export const CONFIG_CHANGE_SOURCES = ['user_settings', 'project_settings', 'local_settings', 'policy_settings'] as const;
export type ConfigChangeSource = (typeof CONFIG_CHANGE_SOURCES)[number];

export const payloadSchemas = {
  SessionStart: z.looseObject({
    ...common,
    hook_event_name: event('SessionStart'),
    source: z.enum(['startup', 'resume', 'clear', 'compact']),
    model: z.string().optional(),
    is_resume: z.boolean().optional(),
    turn_index: z.number().int().optional(),
  }),
  InstructionsLoaded: z.looseObject({
    ...common,
    hook_event_name: event('InstructionsLoaded'),
    file_path: z.string(),
    memory_type: z.enum(['User', 'Project', 'Local', 'Managed']),
    load_reason: z.enum(['session_start', 'nested_traversal', 'path_glob_match', 'include', 'compact']),
  }),
  UserPromptSubmit: z.looseObject({ ...common, hook_event_name: event('UserPromptSubmit'), prompt: z.string() }),
  TurnStart: z.looseObject({ ...common, hook_event_name: event('TurnStart'), turn_index: z.number().int(), prompt: z.string() }),
  SystemPrompt: z.looseObject({ ...common, hook_event_name: event('SystemPrompt'), system_prompt: z.string() }),
  BeforeLLM: z.looseObject({
    ...common,
    hook_event_name: event('BeforeLLM'),
    step: z.number().int(),
    llm_request: z.looseObject({ model: z.string(), messages: z.array(z.unknown()), tools: z.array(z.unknown()).optional() }),
  }),
  AfterLLM: z.looseObject({
    ...common,
    hook_event_name: event('AfterLLM'),
    step: z.number().int(),
    llm_response: z.looseObject({ content: z.string(), tool_calls: z.array(z.unknown()), finish_reason: z.string().nullable() }),
  }),
  PreToolUse: z.looseObject({
    ...common,
    hook_event_name: event('PreToolUse'),
    tool_name: z.string(),
    tool_input: toolInput,
    tool_use_id: z.string(),
  }),
  PermissionRequest: z.looseObject({
    ...common,
    hook_event_name: event('PermissionRequest'),
    tool_name: z.string(),
    tool_input: toolInput,
    tool_use_id: z.string().optional(),
    current_decision: permissionDecision.optional(),
    decision_reason: z.string().optional(),
    is_subagent: z.boolean().optional(),
    permission_suggestions: z.array(z.unknown()).optional(),
  }),
  PermissionDenied: z.looseObject({
    ...common,
    hook_event_name: event('PermissionDenied'),
    tool_name: z.string(),
    tool_input: toolInput,
    tool_use_id: z.string().optional(),
    reason: z.string(),
    source: z.enum(['Rule', 'Hook', 'User', 'Timeout', 'Mode', 'Classifier']),
  }),
  ToolSkipped: z.looseObject({
    ...common,
    hook_event_name: event('ToolSkipped'),
    tool_name: z.string(),
    tool_input: z.unknown(),
    tool_use_id: z.string(),
    reason: z.string(),
  }),
  PostToolUse: z.looseObject({
    ...common,
    hook_event_name: event('PostToolUse'),
    tool_name: z.string(),
    tool_input: toolInput,
    tool_response: z.unknown(),
    tool_use_id: z.string(),
    duration_ms: z.number().optional(),
  }),
  PostToolUseFailure: z.looseObject({
    ...common,
    hook_event_name: event('PostToolUseFailure'),
    tool_name: z.string(),
    tool_input: toolInput,
    tool_use_id: z.string(),
    error: z.string(),
    is_interrupt: z.boolean().optional(),
    duration_ms: z.number().optional(),
  }),
  StepComplete: z.looseObject({
    ...common,
    hook_event_name: event('StepComplete'),
    step: z.number().int(),
    max_steps: z.number().int(),
    messages_count: z.number().int(),
    estimated_tokens: z.number().int(),
    token_limit: z.number().int(),
    tool_calls: z.number().int(),
  }),
  PostToolBatch: z.looseObject({
    ...common,
    hook_event_name: event('PostToolBatch'),
    step: z.number().int(),
    tool_calls: z.array(
      z.looseObject({ tool_name: z.string(), tool_input: z.unknown(), tool_use_id: z.string(), tool_response: z.string() }),
    ),
  }),
  StopFailure: z.looseObject({
    ...common,
    hook_event_name: event('StopFailure'),
    error: z.enum(STOP_FAILURE_ERRORS),
    error_details: z.string().optional(),
    last_assistant_message: z.string().optional(),
  }),
  TurnEnd: z.looseObject({
    ...common,
    hook_event_name: event('TurnEnd'),
    turn_index: z.number().int(),
    reason: z.enum(['completed', 'max_steps', 'blocked', 'cancelled', 'error', 'stopped', 'aborted']),
    steps: z.number().int(),
    tool_calls: z.number().int(),
    last_assistant_message: z.string(),
    error: z.string().optional(),
  }),
  Stop: z.looseObject({
    ...common,
    hook_event_name: event('Stop'),
    stop_hook_active: z.boolean(),
    stop_hook_count: z.number().int().optional(),
    last_assistant_message: z.string(),
  }),
  SubagentStart: z.looseObject({
    ...common,
    hook_event_name: event('SubagentStart'),
    agent_id: z.string(),
    agent_type: z.string(),
    prompt: z.string(),
  }),
  SubagentStop: z.looseObject({
    ...common,
    hook_event_name: event('SubagentStop'),
    agent_id: z.string(),
    agent_type: z.string(),
    stop_hook_active: z.boolean(),
    last_assistant_message: z.string(),
    agent_transcript_path: z.string().optional(),
  }),
  SteeringInjected: z.looseObject({
    ...common,
    hook_event_name: event('SteeringInjected'),
    prompt: z.string(),
    turn_index: z.number().int(),
    step: z.number().int(),
  }),
  InterruptReceived: z.looseObject({ ...common, hook_event_name: event('InterruptReceived'), turn_index: z.number().int() }),
  FollowUpQueued: z.looseObject({
    ...common,
    hook_event_name: event('FollowUpQueued'),
    prompt: z.string(),
    turn_index: z.number().int(),
    messages: z.number().int(),
  }),
  PreCompact: z.looseObject({
    ...common,
    hook_event_name: event('PreCompact'),
    trigger: z.enum(['manual', 'auto']),
    custom_instructions: z.string().nullable(),
    message_count: z.number().int(),
    estimated_tokens: z.number().int(),
  }),
  PostCompact: z.looseObject({
    ...common,
    hook_event_name: event('PostCompact'),
    trigger: z.enum(['manual', 'auto']),
    compact_summary: z.string(),
    new_message_count: z.number().int(),
  }),
  Notification: z.looseObject({
    ...common,
    hook_event_name: event('Notification'),
    message: z.string(),
    title: z.string().optional(),
    notification_type: z.string(),
  }),
  Elicitation: z.looseObject({
    ...common,
    hook_event_name: event('Elicitation'),
    mcp_server_name: z.string(),
    message: z.string(),
    mode: z.enum(['form', 'url']),
    url: z.string().optional(),
    elicitation_id: z.string().optional(),
    requested_schema: z.record(z.string(), z.unknown()).optional(),
  }),
  ElicitationResult: z.looseObject({
    ...common,
    hook_event_name: event('ElicitationResult'),
    mcp_server_name: z.string(),
    action: z.enum(ELICITATION_ACTIONS),
    mode: z.enum(['form', 'url']),
    elicitation_id: z.string().optional(),
    content: z.record(z.string(), z.unknown()).optional(),
  }),
  Error: z.looseObject({
    ...common,
    hook_event_name: event('Error'),
    error_type: z.enum(['model', 'tool', 'hook', 'internal']),
    error: z.string(),
    recoverable: z.boolean(),
  }),
  ConfigChange: z.looseObject({
    ...common,
    hook_event_name: event('ConfigChange'),
    source: z.enum(CONFIG_CHANGE_SOURCES),
    file_path: z.string().optional(),
    /** Hookpilot's: exactly what is about to apply (a settings file: its hookpilot.* keys as JSON), null for a deletion. */
    new_content: z.string().nullable().optional(),
  }),
  FileChanged: z.looseObject({
    ...common,
    hook_event_name: event('FileChanged'),
    file_path: z.string(),
    /** Hookpilot's: the name the matcher is tested against (Claude Code tests the path's last part). */
    file_name: z.string(),
    event: z.enum(['change', 'add', 'unlink']),
  }),
  SessionEnd: z.looseObject({
    ...common,
    hook_event_name: event('SessionEnd'),
    reason: z.enum(['clear', 'resume', 'logout', 'prompt_input_exit', 'other', 'error', 'completed', 'cancelled']),
  }),
} satisfies Record<HookEventName, z.ZodType>;

export type PayloadOf<E extends HookEventName> = z.infer<(typeof payloadSchemas)[E]>;

/** The payload without the fields the dispatcher fills in for every event. */
export type EventFields<E extends HookEventName> = Omit<
  PayloadOf<E>,
  'hook_event_name' | 'session_id' | 'transcript_path' | 'cwd' | 'permission_mode'
>;

export function validatePayload(eventName: HookEventName, payload: unknown): { ok: true } | { ok: false; error: string } {
  const result = payloadSchemas[eventName].safeParse(payload);
  return result.success ? { ok: true } : { ok: false, error: z.prettifyError(result.error) };
}
