import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HookEventName } from '../../src/core/hooks/events';
import { HttpHookHandler, type HttpHookHandlerOptions } from '../../src/core/hooks/handlers/http-handler';
import type { HandlerSpec, HookInvocation, HookOutcome, HookPayload } from '../../src/core/hooks/types';

interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

type Responder = (req: http.IncomingMessage, res: http.ServerResponse) => void;

let server: http.Server;
let base: string;
let received: ReceivedRequest[];
let respond: Responder;
/** Resolves when a request's connection closes before the response was sent. */
let requestAborted: Promise<void>;
let markRequestAborted: () => void;

beforeEach(async () => {
  received = [];
  respond = (_req, res) => res.end();
  requestAborted = new Promise((resolve) => (markRequestAborted = resolve));
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.on('close', () => {
        if (!res.writableFinished) markRequestAborted();
      });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function payloadFor(event: HookEventName, extra: Record<string, unknown> = {}): HookPayload {
  return { hook_event_name: event, session_id: 's-1', transcript_path: '/tmp/t.jsonl', cwd: '/tmp', ...extra };
}

function invocation(
  spec: Partial<Extract<HandlerSpec, { type: 'http' }>> = {},
  overrides: Partial<HookInvocation> & { event?: HookEventName } = {},
): HookInvocation {
  const event = overrides.event ?? 'PreToolUse';
  return {
    hook: {
      id: 'h1',
      name: 'remote',
      event,
      priority: 0,
      enabled: true,
      source: { kind: 'user' },
      spec: { type: 'http', url: `${base}/hook`, ...spec },
    },
    payload: payloadFor(event, { tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }),
    signal: new AbortController().signal,
    timeoutMs: 5_000,
    projectDir: '/tmp',
    ...overrides,
  };
}

const run = (inv: HookInvocation, options?: HttpHookHandlerOptions): Promise<HookOutcome> => new HttpHookHandler(options).run(inv);

function json(status: number, value: unknown): Responder {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(value));
  };
}

describe('HttpHookHandler', () => {
  it('POSTs the payload as JSON and treats an empty 2xx as success without effects', async () => {
    const inv = invocation();
    const outcome = await run(inv);
    expect(outcome).toMatchObject({ status: 'success', effects: {}, trace: { exitCode: 200, stdout: '' } });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/hook' });
    expect(received[0]?.headers['content-type']).toBe('application/json');
    expect(received[0]?.headers['user-agent']).toBe('hookpilot');
    expect(JSON.parse(received[0]?.body ?? '')).toEqual(inv.payload);
  });

  it('turns a PreToolUse deny answer into a deny decision', async () => {
    respond = json(200, {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm -rf' },
    });
    const outcome = await run(invocation());
    expect(outcome).toMatchObject({ status: 'success', effects: { decision: 'deny', reason: 'no rm -rf' } });
    expect(outcome.trace.stdout).toContain('permissionDecision');
  });

  it('cuts a long reason like command output before it reaches the model', async () => {
    respond = json(200, {
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no. '.repeat(100_000) },
    });
    const outcome = await run(invocation());
    expect(outcome).toMatchObject({ status: 'success', effects: { decision: 'deny' } });
    const reason = outcome.status === 'success' ? (outcome.effects.reason ?? '') : '';
    expect(reason).toMatch(/\[Hook output truncated: 400,000 chars, showing the first 2000\]$/);
    expect(reason.length).toBeLessThan(2_100);
  });

  it('blocks PostToolUse through a 200 with decision block', async () => {
    respond = json(200, { decision: 'block', reason: 'output leaks a key' });
    const outcome = await run(invocation({}, { event: 'PostToolUse' }));
    expect(outcome).toMatchObject({ status: 'success', effects: { decision: 'block', reason: 'output leaks a key' } });
  });

  it('reports a non-2xx status as a non-blocking error, whatever the body says', async () => {
    respond = json(403, { decision: 'block', reason: 'forbidden' });
    const outcome = await run(invocation());
    expect(outcome.status).toBe('error');
    if (outcome.status !== 'error') return;
    expect(outcome.error).toBe(`HTTP 403 from ${base}/…`);
    expect(outcome.trace.exitCode).toBe(403);
  });

  it('refuses a 2xx body that is not JSON instead of using it as context', async () => {
    respond = (_req, res) => res.end('please be careful');
    const outcome = await run(invocation());
    expect(outcome).toMatchObject({ status: 'error', trace: { stdout: 'please be careful', exitCode: 200 } });
  });

  it('refuses JSON that fails the output schema', async () => {
    respond = json(200, { decision: 'maybe' });
    const outcome = await run(invocation());
    expect(outcome.status).toBe('error');
    if (outcome.status === 'error') expect(outcome.error).toMatch(/invalid hook output/);
  });

  it('times out against a server that never answers, and the server sees the request dropped', async () => {
    respond = () => undefined;
    const outcome = await run(invocation({}, { timeoutMs: 200 }));
    expect(outcome.status).toBe('timeout');
    await requestAborted;
  });

  it('reports cancellation when the invocation signal aborts mid-request', async () => {
    const controller = new AbortController();
    respond = () => controller.abort();
    const outcome = await run(invocation({}, { signal: controller.signal }));
    expect(outcome.status).toBe('cancelled');
    await requestAborted;
  });

  it('makes no request when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const outcome = await run(invocation({}, { signal: controller.signal }));
    expect(outcome.status).toBe('cancelled');
    expect(received).toHaveLength(0);
  });

  it('blocks URLs outside the allowlist without sending anything', async () => {
    const blocked = await run(invocation(), { allowedUrls: ['https://hooks.example.com/*'] });
    expect(blocked).toMatchObject({ status: 'error', error: `http hook URL not in allowlist: ${base}/…` });
    const blockedAll = await run(invocation(), { allowedUrls: [] });
    expect(blockedAll).toMatchObject({ status: 'error', error: `http hook URL not in allowlist: ${base}/…` });
    expect(received).toHaveLength(0);

    const allowed = await run(invocation(), { allowedUrls: ['https://hooks.example.com/*', 'http://127.0.0.1:*/*'] });
    expect(allowed.status).toBe('success');
    expect(received).toHaveLength(1);
  });

  it('does not let a host wildcard be satisfied by the path: *.example.com refuses 127.0.0.1/.example.com/x', async () => {
    const port = new URL(base).port;
    const smuggled = `http://127.0.0.1:${port}/.example.com/x`;
    const outcome = await run(invocation({ url: smuggled }), { allowedUrls: ['http://*.example.com/*'] });
    expect(outcome).toMatchObject({ status: 'error', error: `http hook URL not in allowlist: http://127.0.0.1:${port}/…` });
    const viaPort = await run(invocation({ url: `${base}/hook` }), { allowedUrls: [`http://127.0.0.1:${Number(port) + 1}*`] });
    expect(viaPort.status).toBe('error');
    expect(received).toHaveLength(0);
  });

  it('does not let credentials in the URL smuggle another host past a wildcard', async () => {
    const outcome = await run(invocation({ url: 'http://127.0.0.1:1@elsewhere.test/hook' }), { allowedUrls: ['http://127.0.0.1:*'] });
    expect(outcome.status).toBe('error');
    if (outcome.status === 'error') expect(outcome.error).toMatch(/must not contain credentials/);
  });

  it('accepts only http and https URLs', async () => {
    const outcome = await run(invocation({ url: 'file:///etc/passwd' }));
    expect(outcome).toMatchObject({ status: 'error', error: 'http hook URL must use http or https: file:///…' });
  });

  it('interpolates only allowed env vars into headers and keeps their values out of the outcome', async () => {
    const secret = 'tok-3f9a1c7e';
    const env = { HOOK_TOKEN: secret, OTHER_SECRET: 'never-sent', GLOBALLY_DENIED: 'also-never-sent' };
    // The server echoes the headers back, so the trace would carry them if not redacted.
    respond = (req, res) => res.end(`echo: ${JSON.stringify(req.headers)}`);
    const outcome = await run(
      invocation({
        headers: { Authorization: 'Bearer ${HOOK_TOKEN}', 'X-Other': 'a$OTHER_SECRET-b', 'X-Global': '${GLOBALLY_DENIED}' },
        allowedEnvVars: ['HOOK_TOKEN', 'GLOBALLY_DENIED'],
      }),
      { env, allowedEnvVars: ['HOOK_TOKEN'] },
    );
    expect(received[0]?.headers.authorization).toBe(`Bearer ${secret}`);
    expect(received[0]?.headers['x-other']).toBe('a-b');
    expect(received[0]?.headers['x-global']).toBe('');
    expect(outcome.status).toBe('error');
    expect(JSON.stringify(outcome)).not.toContain(secret);
    expect(outcome.trace.stdout).toContain('Bearer [redacted]');
  });

  it('interpolates nothing when the hook lists no allowed env vars', async () => {
    await run(invocation({ headers: { 'X-Token': '$HOOK_TOKEN' } }), { env: { HOOK_TOKEN: 'secret' } });
    expect(received[0]?.headers['x-token']).toBe('');
  });

  it('rejects a header value with a line break without quoting it', async () => {
    const outcome = await run(invocation({ headers: { 'X-Token': '${T}' }, allowedEnvVars: ['T'] }), { env: { T: 'abc\r\nInjected: 1' } });
    expect(outcome.status).toBe('error');
    expect(JSON.stringify(outcome)).not.toContain('Injected');
    expect(received).toHaveLength(0);
  });

  it('treats a redirect as an error and does not follow it', async () => {
    let followed = false;
    respond = (req, res) => {
      if (req.url === '/elsewhere') followed = true;
      res.writeHead(302, { location: '/elsewhere' });
      res.end();
    };
    const outcome = await run(invocation());
    expect(outcome.status).toBe('error');
    if (outcome.status === 'error') expect(outcome.error).toMatch(/redirect/);
    expect(followed).toBe(false);
    expect(received).toHaveLength(1);
  });

  it('stops reading a body over the size limit and reports an error', async () => {
    respond = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"systemMessage":"${'x'.repeat(4096)}`);
      // Keep streaming: the handler must stop on its own rather than wait for the end.
      const interval = setInterval(() => res.write('y'.repeat(1024)), 5);
      res.on('close', () => clearInterval(interval));
    };
    const outcome = await run(invocation(), { maxResponseBytes: 1024 });
    expect(outcome.status).toBe('error');
    if (outcome.status !== 'error') return;
    expect(outcome.error).toMatch(/exceeds the 1024-byte limit/);
    expect(outcome.trace.truncated).toBe(true);
    expect(Buffer.byteLength(outcome.trace.stdout ?? '')).toBe(1024);
  });

  it("quotes neither the URL's path nor its query in an error: a webhook's token is often there", async () => {
    const token = 'whpath-Secret-5f6g7h8j9k';
    const url = `${base}/services/T01/B02/${token}?code=${token}`;
    respond = json(500, {});
    const failed = await run(invocation({ url }));
    respond = (_req, res) => res.end('not json');
    const notJson = await run(invocation({ url }));
    // Port 1 is one fetch refuses to use: its own error message.
    const refused = await run(invocation({ url: url.replace(base, 'http://127.0.0.1:1') }));
    const errors = [failed, notJson, refused].map((outcome) => (outcome.status === 'error' ? outcome.error : outcome.status));
    expect(errors).toEqual([
      `HTTP 500 from ${base}/…`,
      `http hook response from ${base}/… is not a JSON object`,
      'http hook request to http://127.0.0.1:1/… failed: bad port',
    ]);
    const refusedByList = await run(invocation({ url }), { allowedUrls: [] });
    expect(JSON.stringify(refusedByList)).not.toContain(token);
  });

  it('reports a refused connection clearly', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await run(invocation({ url: `http://127.0.0.1:${port}/hook` }));
    expect(outcome).toMatchObject({
      status: 'error',
      error: `could not reach http hook http://127.0.0.1:${port}/…: connection refused (ECONNREFUSED)`,
    });
  });
});
