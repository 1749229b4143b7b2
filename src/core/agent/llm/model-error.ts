export type ModelErrorKind = 'unreachable' | 'auth' | 'rate_limit' | 'server' | 'bad_request' | 'stream_cut' | 'cancelled' | 'malformed';

/** The one error a ChatModel throws; `kind` lets the loop decide what to tell the user. */
export class ModelError extends Error {
  override readonly name = 'ModelError';

  constructor(
    readonly kind: ModelErrorKind,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
