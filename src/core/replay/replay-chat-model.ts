import type { ChatModel, CompleteOptions, ModelRequest, ModelResponse, ToolCallRequest } from '../agent/llm/chat-model';
import { ModelError } from '../agent/llm/model-error';
import { parseToolArguments } from '../agent/llm/tool-arguments';
import type { RecordedCall, RecordedTurn } from './recording';

/** The model asked for more replies in a turn than the recording has. */
export class ReplayExhaustedError extends ModelError {
  constructor(
    readonly turn: number,
    recorded: number,
  ) {
    super(
      'malformed',
      `replay: turn ${turn + 1} asked the model for reply ${recorded + 1}, and the recording has only ${recorded}: ` +
        'the run went further than the recorded one',
    );
  }
}

/**
 * A ChatModel that answers from a recording instead of calling a model: each turn's replies in
 * order, whatever the request says, so that a run whose tools now end differently goes on
 * as recorded and its later decisions can still be compared. Paths naming the recorded
 * workspace are mapped to the one the replay runs in.
 */
export class ReplayChatModel implements ChatModel {
  private turn = -1;
  private next = 0;
  private readonly mapPath: (text: string, json?: boolean) => string;

  constructor(
    private readonly turns: readonly RecordedTurn[],
    paths: { from?: string; to: string },
  ) {
    this.mapPath = pathMapper(paths.from, paths.to);
  }

  /** Serves the replies of turn `index` (0-based) from the next request on. */
  beginTurn(index: number): void {
    if (index < 0 || index >= this.turns.length) {
      throw new RangeError(`replay: no recorded turn ${index + 1} (the recording has ${this.turns.length})`);
    }
    this.turn = index;
    this.next = 0;
  }

  /** Replies of the current turn the run did not ask for (it ended earlier than recorded). */
  get unusedReplies(): number {
    return this.turn < 0 ? 0 : this.turns[this.turn].responses.length - this.next;
  }

  async complete(_request: ModelRequest, options: CompleteOptions): Promise<ModelResponse> {
    if (options.signal.aborted) throw new ModelError('cancelled', 'the request was cancelled');
    if (this.turn < 0) throw new ModelError('bad_request', 'replay: the model was asked before a recorded turn began');
    const responses = this.turns[this.turn].responses;
    const recorded = responses[this.next];
    if (!recorded) throw new ReplayExhaustedError(this.turn, responses.length);
    this.next++;
    const content = this.mapPath(recorded.content);
    if (content !== '') options.onTextDelta?.(content);
    return { content, toolCalls: recorded.toolCalls.map((call) => this.mapCall(call)), finishReason: recorded.finishReason };
  }

  private mapCall(call: RecordedCall): ToolCallRequest {
    const argumentsText = this.mapPath(call.argumentsText, true);
    const parsed = parseToolArguments(argumentsText);
    const base = { id: call.id, name: call.name, argumentsText };
    return parsed.ok ? { ...base, arguments: parsed.value } : { ...base, argumentsError: parsed.error };
  }
}

/**
 * Replaces the recorded workspace root where it starts a path (followed by a separator, a
 * quote, white space or the end). A root that is not a real absolute folder path maps nothing.
 */
function pathMapper(from: string | undefined, to: string): (text: string, json?: boolean) => string {
  const root = from?.replace(/\/+$/, '') ?? '';
  if (!root.startsWith('/') || root === to) return (text) => text;
  const pattern = new RegExp(`(?<![\\w.~/-])${root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=[/"'\\s\\\\]|$)`, 'g');
  // Inside JSON (tool arguments) the replacement is a JSON string's content.
  const inJson = JSON.stringify(to).slice(1, -1);
  return (text, json = false) => text.replace(pattern, () => (json ? inJson : to));
}
