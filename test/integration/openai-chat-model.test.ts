import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatTool, ModelRequest } from '../../src/core/agent/llm/chat-model';
import { ModelError } from '../../src/core/agent/llm/model-error';
import { OpenAIChatModel } from '../../src/core/agent/llm/openai-chat-model';
import { MAX_REPLY_BYTES, MAX_REPLY_TOOL_CALLS } from '../../src/core/agent/llm/reply-limits';
import {
  cutStream,
  malformedToolCall,
  stall,
  startModelServer,
  status,
  text,
  toolCalls,
  type ModelScript,
  type ModelServer,
} from '../support/model-server';
import { chunkEvent, startRawStreamServer, toolCallEvent, type RawStreamHandler, type RawStreamServer } from '../support/raw-stream-server';

const servers: ModelServer[] = [];
const rawServers: Server[] = [];
const streamServers: RawStreamServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(streamServers.splice(0).map((s) => s.close()));
  await Promise.all(rawServers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(script: ModelScript): Promise<ModelServer> {
  const server = await startModelServer(script);
  servers.push(server);
  return server;
}

const BASH_TOOL: ChatTool = {
  type: 'function',
  function: {
    name: 'Bash',
    description: 'Run a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  },
};

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'scripted-model',
  messages: [
    { role: 'system', content: 'You are a test.' },
    { role: 'user', content: 'Say hello' },
  ],
  ...extra,
});

const run = (model: OpenAIChatModel, req: ModelRequest = request(), onTextDelta?: (d: string) => void) =>
  model.complete(req, { signal: new AbortController().signal, onTextDelta });

async function expectModelError(work: Promise<unknown>): Promise<ModelError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ModelError);
  return error as ModelError;
}

describe('OpenAIChatModel against a scripted OpenAI-compatible server', () => {
  it('streams plain text, reporting each delta and the usage', async () => {
    const server = await serve([text('Hello there, how can I help?', { chunks: 5, usage: { promptTokens: 21, completionTokens: 8 } })]);
    const model = new OpenAIChatModel({ baseURL: server.url });
    const deltas: string[] = [];

    const response = await run(model, request(), (d) => deltas.push(d));

    expect(response.content).toBe('Hello there, how can I help?');
    expect(deltas).toHaveLength(5);
    expect(deltas.join('')).toBe(response.content);
    expect(response.toolCalls).toEqual([]);
    expect(response.finishReason).toBe('stop');
    expect(response.usage).toEqual({ promptTokens: 21, completionTokens: 8, totalTokens: 29 });
  });

  it('sends the messages, tools and options it was given', async () => {
    const server = await serve([text('ok')]);
    const model = new OpenAIChatModel({ baseURL: server.url, apiKey: 'sk-test-secret' });
    const messages: ModelRequest['messages'] = [
      { role: 'user', content: 'List files' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'a.txt\nb.txt' },
    ];

    await run(model, request({ messages, tools: [BASH_TOOL], temperature: 0.2, maxTokens: 256 }));

    expect(server.requests).toHaveLength(1);
    const { body, authorization } = server.requests[0];
    expect(authorization).toBe('present');
    expect(body.model).toBe('scripted-model');
    expect(body.stream).toBe(true);
    expect(body.stream_options?.include_usage).toBe(true);
    expect(body.messages).toEqual(messages);
    expect(body.tools).toEqual([BASH_TOOL]);
    expect(body.temperature).toBe(0.2);
    expect(body.max_tokens).toBe(256);
    expect(JSON.stringify(server.requests[0])).not.toContain('sk-test-secret');
  });

  it('sends a growing conversation as JSON.stringify would, byte for byte, and the same bytes again on a retry', async () => {
    const bodies: Array<{ raw: string; contentType: string | undefined }> = [];
    const server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        bodies.push({ raw: Buffer.concat(parts).toString('utf8'), contentType: req.headers['content-type'] });
        if (bodies.length === 2) {
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"try again"}}');
          return;
        }
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(chunk({ role: 'assistant', content: 'ok' }, null) + chunk({}, 'stop') + 'data: [DONE]\n\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    rawServers.push(server);
    const model = new OpenAIChatModel({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` });
    const messages: ModelRequest['messages'] = [{ role: 'system', content: 'Quotes " and \\ and \u2028 and 😀' }];
    const expected: string[] = [];
    for (let step = 0; step < 2; step++) {
      messages.push({ role: 'user', content: `step ${step} ✓` });
      const req = request({ messages: [...messages], tools: [BASH_TOOL], temperature: 0 });
      await run(model, req);
      const sent = {
        model: req.model,
        messages: req.messages,
        stream: true,
        stream_options: { include_usage: true },
        tools: req.tools,
        temperature: 0,
      };
      expected.push(JSON.stringify(sent));
    }

    // The second call's first attempt got a 500 and was retried.
    expect(bodies.map((b) => b.raw)).toEqual([expected[0], expected[1], expected[1]]);
    expect(bodies.map((b) => b.contentType)).toEqual(['application/json', 'application/json', 'application/json']);
  });

  it('leaves tools out of the request when there are none', async () => {
    const server = await serve([text('ok')]);
    await run(new OpenAIChatModel({ baseURL: server.url }), request({ tools: [] }));
    expect(server.requests[0].body).not.toHaveProperty('tools');
  });

  it('assembles a tool call whose arguments arrive across 7 chunks', async () => {
    const args = { command: 'grep -rn "needle" src | head -20', timeout: 30000, description: 'Find the needle' };
    const server = await serve([toolCalls([{ id: 'call_abc', name: 'Bash', arguments: args }], { splitArguments: 7 })]);
    const deltas: string[] = [];

    const response = await run(new OpenAIChatModel({ baseURL: server.url }), request({ tools: [BASH_TOOL] }), (d) => deltas.push(d));

    expect(response.finishReason).toBe('tool_calls');
    expect(response.content).toBe('');
    expect(deltas).toEqual([]);
    expect(response.toolCalls).toEqual([{ id: 'call_abc', name: 'Bash', argumentsText: JSON.stringify(args), arguments: args }]);
  });

  it('assembles two parallel tool calls whose pieces interleave, keyed by index', async () => {
    const server = await serve([
      toolCalls(
        [
          { id: 'call_1', name: 'Read', arguments: { file_path: 'src/a.ts' } },
          { id: 'call_2', name: 'Bash', arguments: { command: 'npm test -- --run' } },
        ],
        { splitArguments: 4, interleave: true, content: 'Looking at both.' },
      ),
    ]);

    const response = await run(new OpenAIChatModel({ baseURL: server.url }));

    expect(response.content).toBe('Looking at both.');
    expect(response.toolCalls.map((c) => [c.id, c.name, c.arguments])).toEqual([
      ['call_1', 'Read', { file_path: 'src/a.ts' }],
      ['call_2', 'Bash', { command: 'npm test -- --run' }],
    ]);
  });

  it('reports malformed or non-object arguments as argumentsError without throwing', async () => {
    const server = await serve([
      malformedToolCall('Bash', '{"command": "ls'),
      malformedToolCall('Bash', '["ls"]'),
      toolCalls([{ name: 'TodoRead', arguments: '' }]),
    ]);
    const model = new OpenAIChatModel({ baseURL: server.url });

    const [broken] = (await run(model)).toolCalls;
    expect(broken.argumentsText).toBe('{"command": "ls');
    expect(broken.arguments).toBeUndefined();
    expect(broken.argumentsError).toMatch(/not valid JSON/);

    const [array] = (await run(model)).toolCalls;
    expect(array.arguments).toBeUndefined();
    expect(array.argumentsError).toBe('the tool arguments must be a JSON object, got an array');

    const [empty] = (await run(model)).toolCalls;
    expect(empty.arguments).toEqual({});
    expect(empty.argumentsError).toBeUndefined();
  });

  it('retries a 429 (honouring retry-after) and then succeeds', async () => {
    const server = await serve([status(429, undefined, { retryAfter: 0 }), text('after the rate limit')]);

    const response = await run(new OpenAIChatModel({ baseURL: server.url }));

    expect(response.content).toBe('after the rate limit');
    expect(server.requests).toHaveLength(2);
  });

  it('retries two 500s with backoff and then succeeds', async () => {
    const server = await serve([status(500), status(503), text('third time lucky')]);

    const response = await run(new OpenAIChatModel({ baseURL: server.url }));

    expect(response.content).toBe('third time lucky');
    expect(server.requests).toHaveLength(3);
  });

  it('gives up with kind rate_limit once retries are spent', async () => {
    const server = await serve([status(429, undefined, { retryAfterMs: 0 }), status(429, undefined, { retryAfterMs: 0 })]);

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, maxRetries: 1 })));

    expect(error.kind).toBe('rate_limit');
    expect(error.status).toBe(429);
    expect(server.requests).toHaveLength(2);
  });

  it('maps 401 to auth and never puts the API key in the error', async () => {
    const key = 'sk-live-very-secret-key';
    const server = await serve([status(401, { error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } })]);

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, apiKey: key })));

    expect(error.kind).toBe('auth');
    expect(error.status).toBe(401);
    expect(error.message).toContain(server.url);
    expect(error.message).not.toContain(key);
    expect(server.requests).toHaveLength(1);
  });

  it('maps a 400 to bad_request without retrying', async () => {
    const server = await serve([status(400, { error: { message: 'model "nope" not found' } })]);
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url })));
    expect(error.kind).toBe('bad_request');
    expect(error.message).toContain('model "nope" not found');
    expect(server.requests).toHaveLength(1);
  });

  it('fails with stream_cut when the socket is destroyed mid-stream, never returning half a message', async () => {
    const server = await serve([cutStream(3)]);
    const deltas: string[] = [];

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url }), request(), (d) => deltas.push(d)));

    expect(error.kind).toBe('stream_cut');
    expect(error.message).toMatch(/cut off before it finished/);
    expect(deltas.length).toBeGreaterThan(0);
  });

  it('fails with stream_cut when the stream ends cleanly but unfinished', async () => {
    const server = await serve([cutStream(2, { mode: 'end' })]);
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url })));
    expect(error.kind).toBe('stream_cut');
    expect(error.message).toMatch(/no finish_reason/);
  });

  it('fails with stream_cut when the stream stalls longer than the timeout', async () => {
    const server = await serve([stall(2)]);
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, timeoutMs: 300 })));
    expect(error.kind).toBe('stream_cut');
    expect(error.message).toMatch(/stalled/);
  });

  it('fails with unreachable, naming the URL and the cause, when nothing listens', async () => {
    const baseURL = `http://127.0.0.1:${await closedPort()}/v1`;

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL, maxRetries: 0 })));

    expect(error.kind).toBe('unreachable');
    expect(error.message).toMatch(new RegExp(`^cannot reach the model at ${escapeRegex(baseURL)}: .*ECONNREFUSED`));
  });

  it('cancels mid-stream when the signal aborts', async () => {
    const server = await serve([stall(3)]);
    const controller = new AbortController();
    const model = new OpenAIChatModel({ baseURL: server.url });

    const error = await expectModelError(model.complete(request(), { signal: controller.signal, onTextDelta: () => controller.abort() }));

    expect(error.kind).toBe('cancelled');
    await expect.poll(() => server.requests[0].clientClosedEarly).toBe(true);
  });

  it('rethrows an error from onTextDelta unchanged and stops reading the stream', async () => {
    const server = await serve([stall(3)]);
    const failure = new Error('the view went away');

    const error = await run(new OpenAIChatModel({ baseURL: server.url }), request(), () => {
      throw failure;
    }).catch((e: unknown) => e);

    expect(error).toBe(failure);
    await expect.poll(() => server.requests[0].clientClosedEarly).toBe(true);
  });

  it('cancels at once while the SDK waits to retry', async () => {
    const server = await serve([status(503, undefined, { retryAfter: 30 }), text('too late')]);
    const controller = new AbortController();
    const pending = new OpenAIChatModel({ baseURL: server.url }).complete(request(), { signal: controller.signal });
    await expect.poll(() => server.requests.length).toBe(1);

    controller.abort();

    expect((await expectModelError(pending)).kind).toBe('cancelled');
  });

  it('fails with cancelled without sending anything when the signal is already aborted', async () => {
    const server = await serve([text('unused')]);
    const error = await expectModelError(new OpenAIChatModel({ baseURL: server.url }).complete(request(), { signal: AbortSignal.abort() }));
    expect(error.kind).toBe('cancelled');
    expect(server.requests).toHaveLength(0);
  });
});

describe('OpenAIChatModel against servers that break the streaming protocol', () => {
  async function rawServer(body: string, contentType: string): Promise<string> {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    rawServers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  }

  const chunkEvent = (delta: object) =>
    `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;

  it('fails with malformed when a stream request gets no stream events', async () => {
    const baseURL = await rawServer(JSON.stringify({ choices: [{ message: { content: 'not streamed' } }] }), 'application/json');
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL, maxRetries: 0 })));
    expect(error.kind).toBe('malformed');
    expect(error.message).toMatch(/without any stream events/);
  });

  it('fails with malformed when a stream event is not JSON', async () => {
    const baseURL = await rawServer(`${chunkEvent({ content: 'Hi' })}data: {not json\n\n`, 'text/event-stream');
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL, maxRetries: 0 })));
    expect(error.kind).toBe('malformed');
  });

  it('fails with server when the stream carries an error event', async () => {
    const baseURL = await rawServer(`${chunkEvent({ content: 'Hi' })}data: {"error":{"message":"model crashed"}}\n\n`, 'text/event-stream');
    const error = await expectModelError(run(new OpenAIChatModel({ baseURL, maxRetries: 0 })));
    expect(error.kind).toBe('server');
    expect(error.message).toContain('model crashed');
  });
});

describe('OpenAIChatModel against a reply past the limits', () => {
  const MiB = 1024 * 1024;

  async function streamServer(handler: RawStreamHandler): Promise<RawStreamServer> {
    const server = await startRawStreamServer(handler);
    streamServers.push(server);
    return server;
  }

  it('stops reading a reply over MAX_REPLY_BYTES and fails with malformed, naming the limit', async () => {
    const server = await streamServer(async (_request, stream) => {
      if (!(await stream.write(toolCallEvent(0, { id: 'c1', name: 'Read', arguments: '{"file_path":"' })))) return;
      const piece = toolCallEvent(0, { arguments: 'A'.repeat(MiB) });
      while (await stream.write(piece));
    });

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, maxRetries: 0 })));

    expect(error.kind).toBe('malformed');
    expect(error.message).toBe(`the model at ${server.url} sent a reply over 64 MiB; the host stopped reading it`);
    expect(server.bytesWritten()).toBeLessThan(MAX_REPLY_BYTES + 16 * MiB);
  }, 60_000);

  it('ends a stream of events that add nothing at the reply limit, with no wait for the idle timeout', async () => {
    const server = await streamServer(async (_request, stream) => {
      const nothing = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [], padding: 'p'.repeat(MiB) })}\n\n`;
      while (await stream.write(nothing));
    });

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, maxRetries: 0 })));

    expect(error.kind).toBe('malformed');
    expect(error.message).toMatch(/sent a reply over 64 MiB/);
  }, 60_000);

  it('stops reading one stream event over MAX_REPLY_EVENT_BYTES', async () => {
    const server = await streamServer(async (_request, stream) => {
      if (
        !(await stream.write(
          'data: {"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"',
        ))
      )
        return;
      const piece = 'x'.repeat(MiB);
      while (await stream.write(piece));
    });

    const error = await expectModelError(run(new OpenAIChatModel({ baseURL: server.url, maxRetries: 0 })));

    expect(error.kind).toBe('malformed');
    expect(error.message).toMatch(/sent a stream event over 16 MiB; the host stopped reading it$/);
    expect(server.bytesWritten()).toBeLessThan(MAX_REPLY_BYTES);
  }, 60_000);

  it('assembles MAX_REPLY_TOOL_CALLS tool calls in one reply and refuses one more', async () => {
    const server = await streamServer(async (request, stream) => {
      const count = request.index === 0 ? MAX_REPLY_TOOL_CALLS : MAX_REPLY_TOOL_CALLS + 1;
      for (let index = 0; index < count; index++) {
        if (!(await stream.write(toolCallEvent(index, { id: `c${index}`, name: 'Read', arguments: '{"file_path":"a.txt"}' })))) return;
      }
      stream.end(`${chunkEvent({}, 'tool_calls')}data: [DONE]\n\n`);
    });
    const model = new OpenAIChatModel({ baseURL: server.url, maxRetries: 0 });

    const response = await run(model);
    const error = await expectModelError(run(model));

    expect(response.toolCalls).toHaveLength(MAX_REPLY_TOOL_CALLS);
    expect(response.toolCalls.at(-1)).toMatchObject({ id: `c${MAX_REPLY_TOOL_CALLS - 1}`, arguments: { file_path: 'a.txt' } });
    expect(error.kind).toBe('malformed');
    expect(error.message).toMatch(/sent more than 1000 tool calls in one reply; the host stopped reading it$/);
  }, 60_000);
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function escapeRegex(value: string): string {
  return value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
