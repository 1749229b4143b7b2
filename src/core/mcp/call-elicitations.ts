import type { CallToolResult, ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { MIN_SECRET_VALUE_LENGTH } from '../audit/redactor';
import { credentialValues, type ElicitationAnswer, type ElicitationRequest } from './elicitation-content';

/** A server's requests for input waiting at once at most: more are declined, not queued for a person. */
export const MAX_PENDING_ELICITATIONS = 4;

const WITHHELD =
  '[result withheld: the server was given a PIN or code too short to redact during its calls; its results are shown again once they end]';

/** How the host answers a request for input: its session's hooks, or a person. */
export type Elicit = (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;

/**
 * One server's requests for input, tied to its tool calls: a request is taken only while a call
 * of the server runs, the call the person or the model started. One asking on its own (a
 * "session expired, paste a new token" prompt at any time) is declined, and so is one past
 * MAX_PENDING_ELICITATIONS waiting at once; one still waiting when no call runs any more is
 * cancelled.
 *
 * The redactor hides a credential answered here wherever it shows, but not a short one (a PIN,
 * a one-time code), as short strings are everywhere. Hiding such a value where it shows in the
 * server's results would tell the model what it is (an argument the server repeats, holding
 * every 4-digit number once, shows where it was hidden). So once one is answered, the server's
 * results are withheld whole, whatever they hold, until no call of it runs.
 */
export class CallElicitations {
  private callsRunning = 0;
  private readonly pending = new Set<AbortController>();
  private shortCredentialAnswered = false;

  constructor(
    private readonly server: string,
    private readonly warn: (message: string) => void,
  ) {}

  callStarted(): void {
    this.callsRunning++;
  }

  /** A result of the server's as the model may read it. */
  shown(result: CallToolResult): CallToolResult {
    return this.shortCredentialAnswered ? { content: [{ type: 'text', text: WITHHELD }] } : result;
  }

  /** A call's failure as the model may read it: its message may quote the server's answer too. */
  shownError(error: unknown): unknown {
    return this.shortCredentialAnswered ? new Error(WITHHELD) : error;
  }

  /** Once no call runs, a request still waiting is no one's to fill in now, and results are shown again. */
  callEnded(): void {
    if (--this.callsRunning > 0) return;
    this.withdraw('the call that asked for it has ended');
    this.shortCredentialAnswered = false;
  }

  /** Cancels every request still waiting (the server stopped, or no call runs). */
  withdraw(why: string): void {
    for (const pending of this.pending) pending.abort(new Error(why));
  }

  async answer(elicit: Elicit, request: ElicitRequest, signal: AbortSignal): Promise<ElicitResult> {
    const refused =
      this.callsRunning === 0
        ? 'no call of its tools is running'
        : this.pending.size >= MAX_PENDING_ELICITATIONS
          ? `${MAX_PENDING_ELICITATIONS} of its requests already wait`
          : undefined;
    if (refused !== undefined) {
      this.warn(`a request for input was declined: ${refused}`);
      return { action: 'decline' };
    }
    const pending = new AbortController();
    const abort = () => pending.abort(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    this.pending.add(pending);
    try {
      const asked = this.requestOf(request);
      const { action, content } = await elicit(asked, pending.signal);
      if (action === 'accept' && content && this.callsRunning > 0)
        this.shortCredentialAnswered ||= credentialValues(asked.requestedSchema, content).some((v) => v.length < MIN_SECRET_VALUE_LENGTH);
      return content === undefined ? { action } : { action, content };
    } finally {
      signal.removeEventListener('abort', abort);
      this.pending.delete(pending);
    }
  }

  private requestOf({ params }: ElicitRequest): ElicitationRequest {
    const common = { server: this.server, message: params.message };
    if (params.mode === 'url') return { ...common, mode: 'url', url: params.url, elicitationId: params.elicitationId };
    return { ...common, mode: 'form', requestedSchema: params.requestedSchema };
  }
}
