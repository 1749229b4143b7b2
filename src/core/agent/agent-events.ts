import type { HookEventName } from '../hooks/events';
import type { ApprovalChoice, LinkedTarget } from './permissions/permission-settings';

/** What happened to one tool call, as the CLI's JSON and the chat's tool cards report it. */
/** Claude Code's SessionStart sources Hookpilot starts a session with (`compact` fires mid-session). */
export type SessionStartSource = 'startup' | 'resume' | 'clear';

export type ToolOutcome = 'executed' | 'blocked' | 'denied' | 'failed' | 'skipped';

/** What a hook did to a tool call, for the chat card ("blocked by guard: ..."). */
export interface HookAnnotation {
  hookName: string;
  event: HookEventName;
  kind: 'blocked' | 'denied' | 'asked' | 'allowed' | 'context' | 'rewrote-input' | 'rewrote-output' | 'feedback' | 'warning' | 'error';
  detail?: string;
}

export type TurnEndReason = 'completed' | 'max_steps' | 'blocked' | 'cancelled' | 'error' | 'stopped' | 'aborted';

/**
 * Everything an agent session tells its host, in order: the chat renders it, the CLI
 * prints it (stream-json), tests assert on it.
 */
export type AgentEvent =
  | { type: 'session_started'; sessionId: string; source: SessionStartSource; model: string }
  /** `wokenBy`: the `asyncRewake` hook a turn with no prompt was started for (AgentSession.wake). */
  | { type: 'turn_started'; turn: number; prompt: string; wokenBy?: string }
  /** An `asyncRewake` hook asks to wake the agent while no turn runs: the host may call AgentSession.wake. */
  | { type: 'rewake_requested'; hookName: string }
  | { type: 'prompt_blocked'; reason: string; hookName?: string }
  /** A message queued while the turn ran reached the model (or a UserPromptSubmit hook blocked it). */
  | { type: 'steering_injected'; text: string }
  | { type: 'steering_blocked'; text: string; reason: string; hookName?: string }
  | { type: 'text_delta'; text: string }
  | { type: 'assistant_message'; content: string; toolCalls: Array<{ id: string; name: string; input: unknown }> }
  | { type: 'tool_started'; id: string; name: string; input: Record<string, unknown> }
  | {
      type: 'tool_finished';
      id: string;
      name: string;
      input: Record<string, unknown>;
      outcome: ToolOutcome;
      output: string;
      hooks: HookAnnotation[];
      durationMs: number;
    }
  | {
      type: 'approval_requested';
      id: string;
      /** ApprovalRequest.askId: what an answer to this very ask names. */
      askId: string;
      toolName: string;
      input: Record<string, unknown>;
      /** Where the file path leads when that is not the path as given (ApprovalRequest). */
      linkedTarget?: LinkedTarget;
      reason: string;
      askedBy: string;
      /** The rule "Allow for session" and "Always allow" add (ApprovalRequest). */
      suggestedRule: string;
      /** The answers offered (approval-choices.ts). */
      choices: readonly ApprovalChoice[];
    }
  | { type: 'approval_resolved'; id: string; decision: 'allow' | 'deny'; by: string }
  | { type: 'hook_started'; hookId: string; hookName: string; event: HookEventName; statusMessage?: string }
  | {
      type: 'hook_response';
      hookId: string;
      hookName: string;
      event: HookEventName;
      status: string;
      decision: string;
      durationMs: number;
      exitCode?: number | null;
      stdout?: string;
      stderr?: string;
      error?: string;
    }
  | { type: 'notice'; level: 'info' | 'warning' | 'error'; message: string; source?: string }
  | { type: 'usage'; promptTokens: number; completionTokens: number; totalTokens: number }
  | { type: 'compacted'; messagesBefore: number; messagesAfter: number; summary: string }
  | { type: 'turn_ended'; reason: TurnEndReason; result: string; error?: string }
  | { type: 'session_ended'; reason: string };

export type AgentEventListener = (event: AgentEvent) => void;
