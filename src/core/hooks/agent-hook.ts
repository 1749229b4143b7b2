import type { HookEventName } from './events';
import type { PayloadOf } from './payloads';
import type { FailurePolicy, HookEffects } from './types';

export interface AgentHookContext {
  signal: AbortSignal;
}

type Method<E extends HookEventName> = (payload: PayloadOf<E>, ctx: AgentHookContext) => HookEffects | void | Promise<HookEffects | void>;

/**
 * An in-process hook (AstroResearch's `AgentHook`): it implements only the methods it cares
 * about; the events it subscribes to are those methods unless `events` narrows them.
 */
export interface AgentHook {
  readonly name: string;
  readonly description?: string;
  readonly events?: readonly HookEventName[];
  /** Tool-name matcher (same rules as config matchers) for tool events. */
  readonly matcher?: string;
  readonly contentPatterns?: readonly string[];
  readonly timeoutMs?: number;
  readonly priority?: number;
  readonly onFailure?: FailurePolicy;
  /**
   * AstroResearch's AsyncAgentHook: every method runs fire-and-forget (remote reporting, slow
   * work); what it returns cannot block or rewrite, its context reaches the next model request.
   */
  readonly async?: boolean;

  onSessionStart?: Method<'SessionStart'>;
  onInstructionsLoaded?: Method<'InstructionsLoaded'>;
  onUserPromptSubmit?: Method<'UserPromptSubmit'>;
  onTurnStart?: Method<'TurnStart'>;
  onSystemPrompt?: Method<'SystemPrompt'>;
  beforeLLM?: Method<'BeforeLLM'>;
  afterLLM?: Method<'AfterLLM'>;
  preToolUse?: Method<'PreToolUse'>;
  onPermissionRequest?: Method<'PermissionRequest'>;
  onPermissionDenied?: Method<'PermissionDenied'>;
  postToolUse?: Method<'PostToolUse'>;
  postToolUseFailure?: Method<'PostToolUseFailure'>;
  onToolSkipped?: Method<'ToolSkipped'>;
  onStepComplete?: Method<'StepComplete'>;
  onPostToolBatch?: Method<'PostToolBatch'>;
  onSteeringInjected?: Method<'SteeringInjected'>;
  onStop?: Method<'Stop'>;
  onStopFailure?: Method<'StopFailure'>;
  onInterruptReceived?: Method<'InterruptReceived'>;
  onFollowUpQueued?: Method<'FollowUpQueued'>;
  onTurnEnd?: Method<'TurnEnd'>;
  onSubagentStart?: Method<'SubagentStart'>;
  onSubagentStop?: Method<'SubagentStop'>;
  onPreCompact?: Method<'PreCompact'>;
  onPostCompact?: Method<'PostCompact'>;
  onNotification?: Method<'Notification'>;
  onElicitation?: Method<'Elicitation'>;
  onElicitationResult?: Method<'ElicitationResult'>;
  onError?: Method<'Error'>;
  onConfigChange?: Method<'ConfigChange'>;
  onFileChanged?: Method<'FileChanged'>;
  onSessionEnd?: Method<'SessionEnd'>;
}

export const AGENT_HOOK_METHODS = {
  SessionStart: 'onSessionStart',
  InstructionsLoaded: 'onInstructionsLoaded',
  UserPromptSubmit: 'onUserPromptSubmit',
  TurnStart: 'onTurnStart',
  SystemPrompt: 'onSystemPrompt',
  BeforeLLM: 'beforeLLM',
  AfterLLM: 'afterLLM',
  PreToolUse: 'preToolUse',
  PermissionRequest: 'onPermissionRequest',
  PermissionDenied: 'onPermissionDenied',
  PostToolUse: 'postToolUse',
  PostToolUseFailure: 'postToolUseFailure',
  ToolSkipped: 'onToolSkipped',
  StepComplete: 'onStepComplete',
  PostToolBatch: 'onPostToolBatch',
  SteeringInjected: 'onSteeringInjected',
  Stop: 'onStop',
  StopFailure: 'onStopFailure',
  InterruptReceived: 'onInterruptReceived',
  FollowUpQueued: 'onFollowUpQueued',
  TurnEnd: 'onTurnEnd',
  SubagentStart: 'onSubagentStart',
  SubagentStop: 'onSubagentStop',
  PreCompact: 'onPreCompact',
  PostCompact: 'onPostCompact',
  Notification: 'onNotification',
  Elicitation: 'onElicitation',
  ElicitationResult: 'onElicitationResult',
  Error: 'onError',
  ConfigChange: 'onConfigChange',
  FileChanged: 'onFileChanged',
  SessionEnd: 'onSessionEnd',
} as const satisfies Record<HookEventName, keyof AgentHook>;

export function subscribedEvents(hook: AgentHook): HookEventName[] {
  const implemented = (Object.keys(AGENT_HOOK_METHODS) as HookEventName[]).filter((e) => typeof hook[AGENT_HOOK_METHODS[e]] === 'function');
  return hook.events ? implemented.filter((e) => hook.events?.includes(e)) : implemented;
}

/** Other hook systems' action vocabulary, as effects. */
export const actions = {
  block: (reason: string): HookEffects => ({ decision: 'deny', reason }),
  blockStop: (reason: string): HookEffects => ({ decision: 'block', reason }),
  ask: (reason: string): HookEffects => ({ decision: 'ask', reason }),
  mutateInput: (updatedInput: Record<string, unknown>, additionalContext?: string): HookEffects => ({ updatedInput, additionalContext }),
  mutateOutput: (updatedToolOutput: unknown, additionalContext?: string): HookEffects => ({ updatedToolOutput, additionalContext }),
  override: (behavior: 'allow' | 'deny' | 'ask', message?: string): HookEffects => ({ permission: { behavior, message } }),
  injectContext: (additionalContext: string): HookEffects => ({ additionalContext }),
  /**
   * AstroResearch's Warning: the user sees it, the model gets it as context, and the action goes on;
   * `truncateOutput` (PostToolUse) also shortens the tool output the model sees.
   */
  warning: (message: string, options: { truncateOutput?: boolean } = {}): HookEffects => ({
    warnings: [message],
    additionalContext: `Warning: ${message}`,
    ...(options.truncateOutput ? { truncateOutput: true } : {}),
  }),
  metadata: (key: string, value: unknown): HookEffects => ({ metadata: { [key]: value } }),
  /** AstroResearch's PermissionRequired (PostToolUse): the call that ran needed `permission`; audited and shown, never blocking. */
  permissionRequired: (permission: string, toolName?: string): HookEffects => ({ permissionRequired: { permission, toolName } }),
};
