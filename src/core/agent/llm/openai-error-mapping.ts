import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { displayUrl, displayUrlsIn } from './display-url';
import { ModelError, type ModelErrorKind } from './model-error';
import { ReplyTooLargeError } from './reply-limits';

export interface ErrorContext {
  baseURL: string;
  timeoutMs: number;
}

/** Maps an error from opening the request (before any chunk arrived) to a ModelError. */
export function requestErrorToModelError(error: unknown, context: ErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const at = modelAt(context);
  if (error instanceof ReplyTooLargeError) return replyTooLarge(at, error);
  if (error instanceof APIUserAbortError) return cancelled(error);
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelError('unreachable', `${at} did not answer within ${context.timeoutMs} ms`, undefined, { cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new ModelError('unreachable', `cannot reach ${at}: ${describeCause(error)}`, undefined, { cause: error });
  }
  if (error instanceof APIError && typeof error.status === 'number') {
    const kind = kindForStatus(error.status);
    return new ModelError(kind, statusMessage(kind, at, error.message), error.status, { cause: error });
  }
  return new ModelError('server', `request to ${at} failed: ${describeCause(error)}`, undefined, { cause: error });
}

/** Maps an error raised while reading the stream to a ModelError. */
export function streamErrorToModelError(error: unknown, context: ErrorContext): ModelError {
  if (error instanceof ModelError) return error;
  const at = modelAt(context);
  if (error instanceof ReplyTooLargeError) return replyTooLarge(at, error);
  if (error instanceof APIUserAbortError) return cancelled(error);
  if (error instanceof APIError) {
    // An `error` object inside the event stream: the server gave up mid-answer.
    return new ModelError('server', `${at} reported an error mid-stream: ${error.message}`, error.status, { cause: error });
  }
  if (error instanceof SyntaxError) {
    return new ModelError('malformed', `${at} sent a stream event that is not valid JSON: ${error.message}`, undefined, { cause: error });
  }
  return new ModelError('stream_cut', `the response stream from ${at} was cut off before it finished: ${describeCause(error)}`, undefined, {
    cause: error,
  });
}

/** How messages name the endpoint: never with the credentials a URL may carry. */
export function modelAt(context: ErrorContext): string {
  return `the model at ${displayUrl(context.baseURL)}`;
}

export function cancelled(cause?: unknown): ModelError {
  return new ModelError('cancelled', 'the model request was cancelled', undefined, { cause });
}

function replyTooLarge(at: string, error: ReplyTooLargeError): ModelError {
  return new ModelError('malformed', `${at} sent ${error.message}; the host stopped reading it`, undefined, { cause: error });
}

function kindForStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status >= 500 || status === 408 || status === 409) return 'server';
  return 'bad_request';
}

function statusMessage(kind: ModelErrorKind, at: string, detail: string): string {
  switch (kind) {
    case 'auth':
      return `${at} refused the credentials: ${detail}`;
    case 'rate_limit':
      return `${at} is rate limiting requests: ${detail}`;
    case 'server':
      return `${at} failed: ${detail}`;
    default:
      return `${at} rejected the request: ${detail}`;
  }
}

/** The innermost cause says what really happened (e.g. `connect ECONNREFUSED 127.0.0.1:9`), without a URL's credentials. */
function describeCause(error: unknown): string {
  return displayUrlsIn(innermostCause(error));
}

function innermostCause(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 10; depth += 1) {
    const next = innerError(current);
    if (next === undefined) break;
    current = next;
  }
  if (current instanceof Error) {
    const code = (current as { code?: unknown }).code;
    if (current.message) return current.message;
    if (typeof code === 'string') return code;
    return current.name;
  }
  return String(current);
}

function innerError(error: unknown): unknown {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors[0];
  if (error instanceof Error && error.cause !== undefined) return error.cause;
  return undefined;
}
