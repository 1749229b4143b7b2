import type { HookAnnotation, ToolOutcome } from './agent-events';

/** How one tool call ended: what the model gets, what the card shows, whether the turn goes on. */
export interface ToolCallOutcome {
  id: string;
  name: string;
  input: Record<string, unknown>;
  outcome: ToolOutcome;
  /** The tool message the model gets. */
  content: string;
  hooks: HookAnnotation[];
  /** A hook said `continue: false`: the session ends after this call. */
  stop?: { reason?: string; hookName: string };
  /** A hook decided `abort` (the turn ends after this call) or `hard_abort` (the session ends too). */
  abort?: { kind: 'turn' | 'hard'; reason?: string; hookName: string };
  durationMs: number;
}

/** Why a call did not run once the user cancelled the turn: its tool message and ToolSkipped's reason. */
export const CANCELLED_BEFORE_RUN = 'the turn was cancelled before this call ran.';
