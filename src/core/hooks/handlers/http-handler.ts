import { timerDelay } from '../../timer-delay';
import { classifyStdout, parseHookOutput } from '../protocol/output';
import { spillOutcome } from '../protocol/spill';
import type { HookHandler, HookInvocation, HookOutcome, HookTrace } from '../types';
import { messageUrl, UrlAllowlist } from './url-allowlist';
import { errorMessage } from '../../error-message';

export interface HttpHookHandlerOptions {
  /** URL patterns (`*` = any run of characters). undefined: all allowed; []: all blocked. */
  allowedUrls?: string[];
  /** Outer limit on header interpolation, intersected with each hook's `allowedEnvVars`. */
  allowedEnvVars?: string[];
  env?: NodeJS.ProcessEnv;
  /** Response bodies beyond this are an error; reading stops there. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Where answer texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
  /** The engine's redactor, applied to a long text before it is saved and cut. */
  redact?: (text: string) => string;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const USER_AGENT = 'hookpilot';
const REDACTED = '[redacted]';
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What fetch accepts in a header value: tab, visible ASCII, Latin-1; no CR, LF or NUL. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

type ResolvedHeaders = { ok: true; headers: Headers; secrets: string[] } | { ok: false; error: string };

interface BodyRead {
  text: string;
  truncated: boolean;
}

/**
 * Runs `http` hooks (Claude Code's http handler, AtomCode's WebhookHook): POSTs the payload
 * JSON and reads the answer from a 2xx JSON body. The status code never blocks; non-2xx,
 * unreachable hosts, redirects and bad bodies are non-blocking errors.
 */
export class HttpHookHandler implements HookHandler {
  private readonly allowlist: UrlAllowlist;
  private readonly globalEnvVars: ReadonlySet<string> | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly maxResponseBytes: number;
  private readonly spillDir: string | undefined;
  private readonly redact: ((text: string) => string) | undefined;

  constructor(options: HttpHookHandlerOptions = {}) {
    this.spillDir = options.spillDir;
    this.redact = options.redact;
    this.allowlist = new UrlAllowlist(options.allowedUrls);
    this.globalEnvVars = options.allowedEnvVars ? new Set(options.allowedEnvVars) : undefined;
    this.env = options.env ?? process.env;
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const started = performance.now();
    const elapsed = (): number => performance.now() - started;
    const { spec } = invocation.hook;
    if (spec.type !== 'http') {
      return { status: 'error', error: `http handler cannot run a ${spec.type} hook`, trace: { durationMs: elapsed() } };
    }
    const checked = this.allowlist.check(spec.url);
    if (!checked.ok) return { status: 'error', error: checked.error, trace: { durationMs: elapsed() } };
    const url = checked.url.href;
    const shown = messageUrl(checked.url);

    const resolved = this.resolveHeaders(spec.headers ?? {}, spec.allowedEnvVars ?? []);
    if (!resolved.ok) return { status: 'error', error: resolved.error, trace: { durationMs: elapsed() } };
    const redact = (text: string): string => resolved.secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);

    if (invocation.signal.aborted) return { status: 'cancelled', trace: { durationMs: elapsed() } };

    // One controller for the request and the body read, aborted by the timeout or the caller.
    const controller = new AbortController();
    let timedOut = false;
    // setTimeout would fire at once for Infinity; a non-finite timeout means none.
    const timer = Number.isFinite(invocation.timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timerDelay(invocation.timeoutMs))
      : undefined;
    const onCancel = (): void => controller.abort();
    invocation.signal.addEventListener('abort', onCancel, { once: true });

    let status: number | undefined;
    let body: BodyRead | undefined;
    try {
      const response = await fetch(url, {
        method: spec.method ?? 'POST',
        headers: resolved.headers,
        body: JSON.stringify(invocation.payload),
        redirect: 'manual',
        signal: controller.signal,
      });
      status = response.status;
      body = await readBounded(response, this.maxResponseBytes);
    } catch (error) {
      const trace: HookTrace = { durationMs: elapsed(), exitCode: status };
      if (timedOut) return { status: 'timeout', error: `http hook timed out after ${invocation.timeoutMs} ms: ${shown}`, trace };
      if (invocation.signal.aborted) return { status: 'cancelled', trace };
      return { status: 'error', error: redact(describeFetchError(error, shown, url)), trace };
    } finally {
      clearTimeout(timer);
      invocation.signal.removeEventListener('abort', onCancel);
    }

    const trace: HookTrace = { durationMs: elapsed(), stdout: redact(body.text), exitCode: status };
    if (body.truncated) trace.truncated = true;
    const outcome = interpretResponse(invocation, shown, status, body, trace, this.maxResponseBytes);
    // Long texts reach the model cut, as a command hook's do.
    return spillOutcome(outcome, {
      dir: this.spillDir,
      redact: this.redact,
      sessionId: invocation.payload.session_id,
      label: invocation.hook.name,
    });
  }

  /**
   * Interpolates `$VAR` / `${VAR}` in header values from the variables both the hook and
   * the global limit allow; any other reference becomes empty. Interpolated values are
   * returned as secrets so they can be kept out of errors and traces.
   */
  private resolveHeaders(headers: Record<string, string>, hookEnvVars: readonly string[]): ResolvedHeaders {
    const allowed = new Set(hookEnvVars.filter((name) => this.globalEnvVars?.has(name) ?? true));
    const secrets = new Set<string>();
    const result = new Headers();
    for (const [name, template] of Object.entries(headers)) {
      if (!HEADER_NAME.test(name)) return { ok: false, error: `http hook header name is invalid: ${JSON.stringify(name)}` };
      const value = template.replace(ENV_REFERENCE, (_match, braced: string | undefined, bare: string | undefined) => {
        const variable = braced ?? bare ?? '';
        const interpolated = allowed.has(variable) ? (this.env[variable] ?? '') : '';
        if (interpolated !== '') secrets.add(interpolated);
        return interpolated;
      });
      // Checked here because fetch's own error message would quote the value.
      if (!HEADER_VALUE.test(value))
        return { ok: false, error: `http hook header ${name} has an invalid value (control or non-Latin-1 characters)` };
      result.set(name, value);
    }
    result.set('content-type', 'application/json');
    if (!result.has('user-agent')) result.set('user-agent', USER_AGENT);
    // Longest first, so a secret containing another is redacted whole.
    return { ok: true, headers: result, secrets: [...secrets].sort((a, b) => b.length - a.length) };
  }
}

function interpretResponse(
  invocation: HookInvocation,
  url: string,
  status: number,
  body: BodyRead,
  trace: HookTrace,
  limit: number,
): HookOutcome {
  if (status >= 300 && status < 400) {
    return { status: 'error', error: `http hook redirected (HTTP ${status}) from ${url}; redirects are not followed`, trace };
  }
  if (status < 200 || status >= 300) return { status: 'error', error: `HTTP ${status} from ${url}`, trace };
  if (body.truncated) return { status: 'error', error: `http hook response from ${url} exceeds the ${limit}-byte limit`, trace };
  const classified = classifyStdout(body.text);
  if (classified.kind === 'empty') return { status: 'success', effects: {}, trace };
  if (classified.kind === 'text') return { status: 'error', error: `http hook response from ${url} is not a JSON object`, trace };
  const parsed = parseHookOutput(invocation.hook.event, classified.value);
  if (!parsed.ok) return { status: 'error', error: parsed.error, trace };
  return { status: 'success', effects: parsed.effects, trace };
}

/** Reads at most `limit` bytes of the body, then cancels it so memory stays bounded. */
async function readBounded(response: Response, limit: number): Promise<BodyRead> {
  if (!response.body) return { text: '', truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - size;
    if (value.byteLength > room) {
      chunks.push(value.subarray(0, room));
      size += room;
      await reader.cancel();
      return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: Buffer.concat(chunks, size).toString('utf8'), truncated: false };
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/**
 * fetch reports network failures as "fetch failed" with the socket error as `cause`. `shown` is
 * the URL as messages quote it; the error's own text may quote the full `url`, which is cut the same way.
 */
function describeFetchError(error: unknown, shown: string, url: string): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const code = cause instanceof Error ? (cause as NodeJS.ErrnoException).code : undefined;
  if (code !== undefined && code in NETWORK_ERRORS) return `could not reach http hook ${shown}: ${NETWORK_ERRORS[code]} (${code})`;
  const message = errorMessage(cause).split(url).join(shown);
  return `http hook request to ${shown} failed: ${message}`;
}
