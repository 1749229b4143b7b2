import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import OpenAI from 'openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startModelServer, status, text, toolCalls, type ModelScript, type ModelServer } from '../support/model-server';

const CLI = join(__dirname, '..', 'support', 'model-server-cli.ts');

const servers: ModelServer[] = [];
const children: ChildProcessWithoutNullStreams[] = [];
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'model-server-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function serve(script: ModelScript): Promise<ModelServer> {
  const server = await startModelServer(script);
  servers.push(server);
  return server;
}

const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: 'test-key', maxRetries: 0 });

async function postChat(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('startModelServer', () => {
  it('listens on 127.0.0.1 and lists a model', async () => {
    const server = await serve([]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const models = await client(server.url).models.list();

    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
  });

  it('streams real SSE: chat.completion.chunk events, a usage chunk when asked, then [DONE]', async () => {
    const server = await serve([text('abcdef', { chunks: 3 }), text('again')]);
    const messages = [{ role: 'user', content: 'hi' }];

    const withUsage = await (
      await postChat(server.url, { model: 'm1', messages, stream: true, stream_options: { include_usage: true } })
    ).text();
    const events = withUsage.split('\n\n').filter(Boolean);
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events.at(-1)).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'm1')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('abcdef');
    expect(chunks.at(-2).choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1).choices).toEqual([]);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);

    const withoutUsage = await (await postChat(server.url, { model: 'm1', messages, stream: true })).text();
    expect(withoutUsage).not.toContain('"usage"');
  });

  it('serves the JSON form to a non-streaming openai call', async () => {
    const server = await serve([
      text('plain answer'),
      toolCalls([{ id: 'call_9', name: 'Bash', arguments: { command: 'pwd' } }], { content: 'Checking.' }),
    ]);
    const openai = client(server.url);

    const first = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(first.object).toBe('chat.completion');
    expect(first.choices[0].message.content).toBe('plain answer');
    expect(first.choices[0].finish_reason).toBe('stop');
    expect(first.usage?.total_tokens).toBeGreaterThan(0);

    const second = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'where?' }] });
    expect(second.choices[0].message.content).toBe('Checking.');
    expect(second.choices[0].message.tool_calls).toEqual([
      { id: 'call_9', type: 'function', function: { name: 'Bash', arguments: '{"command":"pwd"}' } },
    ]);
    expect(second.choices[0].finish_reason).toBe('tool_calls');
    expect(server.requests.map((r) => r.body.stream)).toEqual([undefined, undefined]);
  });

  it('records bodies and headers, keeping only whether authorization was sent', async () => {
    const server = await serve([text('a'), text('b')]);
    await postChat(
      server.url,
      { model: 'm', messages: [{ role: 'user', content: 'one' }] },
      { authorization: 'Bearer sk-secret', 'x-trace': 't1' },
    );
    await postChat(server.url, { model: 'm', messages: [{ role: 'user', content: 'two' }] });

    expect(server.requests.map((r) => r.authorization)).toEqual(['present', 'absent']);
    expect(server.requests[0].headers['x-trace']).toBe('t1');
    expect(server.requests[0].headers).not.toHaveProperty('authorization');
    expect(JSON.stringify(server.requests)).not.toContain('sk-secret');
    expect(server.requests.map((r) => r.body.messages[0].content)).toEqual(['one', 'two']);
  });

  it('asks a script function for each reply with the request and its index', async () => {
    const seen: Array<[number, unknown]> = [];
    const server = await serve((request, index) => {
      seen.push([index, request.body.messages.at(-1)?.content]);
      return text(`reply ${index}`);
    });
    const openai = client(server.url);

    for (const content of ['first', 'second']) {
      const answer = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content }] });
      expect(answer.choices[0].message.content).toBe(`reply ${seen.length - 1}`);
    }
    expect(seen).toEqual([
      [0, 'first'],
      [1, 'second'],
    ]);
  });

  it('answers a clear, non-retryable 500 once the script is exhausted', async () => {
    const server = await serve([text('only one')]);
    await postChat(server.url, { model: 'm', messages: [] });

    const response = await postChat(server.url, { model: 'm', messages: [] });

    expect(response.status).toBe(500);
    expect(response.headers.get('x-should-retry')).toBe('false');
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toBe('model-server script exhausted: 1 replies were scripted and this is request 2');
  });

  it('sends scripted statuses with their retry-after header', async () => {
    const server = await serve([status(429, { error: { message: 'slow down' } }, { retryAfter: 2 })]);
    const response = await postChat(server.url, { model: 'm', messages: [] });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({ error: { message: 'slow down' } });
  });

  it('rejects a body that is not a chat completion request with 400, without using the script', async () => {
    const server = await serve([text('unused')]);
    const response = await postChat(server.url, { messages: 'nope' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/invalid chat completion request/);
    expect(server.requests).toHaveLength(0);
  });
});

describe('model-server-cli', () => {
  async function startCli(script: unknown): Promise<{ url: string; child: ChildProcessWithoutNullStreams }> {
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify(script));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--script', file]);
    children.push(child);
    child.stderr.resume();
    const firstLine = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => {
        lines.close();
        resolve(line);
      });
      child.once('exit', (code) => reject(new Error(`model-server-cli exited with ${code} before printing its URL`)));
    });
    return { url: firstLine, child };
  }

  it('serves an array script given as JSON', async () => {
    const { url } = await startCli([{ text: 'from the file' }, { toolCalls: [{ name: 'Bash', arguments: { command: 'ls' } }] }]);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const openai = client(url);

    const first = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const second = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'y' }] });

    expect(first.choices[0].message.content).toBe('from the file');
    // No id in the script: the server makes one unique to the request.
    expect(second.choices[0].message.tool_calls?.[0]).toMatchObject({
      id: 'call_1_0',
      type: 'function',
      function: { name: 'Bash', arguments: '{"command":"ls"}' },
    });
  });

  it('answers by rules on the last user message, walking a rule reply list across tool rounds', async () => {
    const { url } = await startCli({
      rules: [
        {
          when: 'list (the )?files',
          reply: [{ toolCalls: [{ id: 'call_ls', name: 'Bash', arguments: { command: 'ls' } }] }, { text: 'There are two files.' }],
        },
      ],
      default: { text: 'I only know how to list files.' },
    });
    const openai = client(url);
    const user = { role: 'user' as const, content: 'Please LIST the files here' };

    const round1 = await openai.chat.completions.create({ model: 'm', messages: [user] });
    const call = round1.choices[0].message.tool_calls?.[0];
    expect(call).toMatchObject({ id: 'call_ls', function: { name: 'Bash' } });

    const round2 = await openai.chat.completions.create({
      model: 'm',
      messages: [
        user,
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_ls', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_ls', content: 'a.txt\nb.txt' },
      ],
    });
    expect(round2.choices[0].message.content).toBe('There are two files.');

    const other = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'tell me a joke' }] });
    expect(other.choices[0].message.content).toBe('I only know how to list files.');
  });

  it('streams to the openai client like the in-process server', async () => {
    const { url } = await startCli([{ text: 'streamed from the cli', chunks: 4 }]);
    const stream = await client(url).chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    let content = '';
    for await (const chunk of stream) content += chunk.choices[0]?.delta?.content ?? '';
    expect(content).toBe('streamed from the cli');
  });

  it('exits with an error naming the problem when the script is invalid', async () => {
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify({ rules: [{ when: '(', reply: { text: 'x' } }] }));
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--script', file]);
    children.push(child);
    let stderr = '';
    child.stderr.on('data', (part: Buffer) => (stderr += part.toString()));
    child.stdout.resume();

    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(code).toBe(2);
    expect(stderr).toContain('invalid script');
    expect(stderr).toContain('not a valid regular expression');
  });
});
