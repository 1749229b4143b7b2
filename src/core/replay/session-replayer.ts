import type { TurnEndReason } from '../agent/agent-events';
import type { ChatModel } from '../agent/llm/chat-model';
import type { TurnOutcome } from '../agent/turn-loop';
import { SUBAGENT_TOOL_NAMES } from '../agent/tools/tool-catalog';
import type { Recording } from './recording';
import { ReplayChatModel } from './replay-chat-model';

/** The part of an AgentSession a replay drives. */
export interface ReplayableSession {
  readonly id: string;
  start(source: 'startup', signal?: AbortSignal): Promise<void>;
  prompt(text: string, signal: AbortSignal): Promise<TurnOutcome>;
  end(reason: 'completed' | 'cancelled' | 'error'): Promise<void>;
}

export interface ReplayedTurn {
  prompt: string;
  reason: TurnEndReason;
  error?: string;
  /** Recorded replies the run did not ask for: it ended the turn earlier than the recording. */
  unusedReplies: number;
}

export interface ReplayRun {
  sessionId: string;
  turns: ReplayedTurn[];
  cancelled: boolean;
}

/** Tools a replay does not offer: a subagent's replies are not recorded, so it could not be replayed. */
export const NOT_REPLAYED_TOOLS: readonly string[] = SUBAGENT_TOOL_NAMES;

/**
 * Runs each recorded prompt through a real session whose model answers from the recording.
 * The session is the host's (today's hooks, tools and permission settings, in the copy of the
 * workspace); a turn that ends early or asks for more replies than recorded is reported, and
 * the next prompt goes on.
 */
export async function replayRecording(
  recording: Recording,
  workspaceRoot: string,
  createSession: (model: ChatModel) => ReplayableSession,
  signal: AbortSignal,
): Promise<ReplayRun> {
  const model = new ReplayChatModel(recording.turns, { from: recording.workspaceRoot, to: workspaceRoot });
  const session = createSession(model);
  const turns: ReplayedTurn[] = [];
  let failed = false;
  try {
    // Inside: a session whose start failed is ended too (its tools and helpers go).
    await session.start('startup', signal);
    for (const [index, turn] of recording.turns.entries()) {
      if (signal.aborted) break;
      model.beginTurn(index);
      const outcome = await session.prompt(turn.prompt, signal);
      if (outcome.reason === 'error') failed = true;
      turns.push({ prompt: turn.prompt, reason: outcome.reason, error: outcome.error, unusedReplies: model.unusedReplies });
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await session.end(signal.aborted ? 'cancelled' : failed ? 'error' : 'completed');
  }
  return { sessionId: session.id, turns, cancelled: signal.aborted };
}
