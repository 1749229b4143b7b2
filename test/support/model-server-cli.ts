// Runs the scripted model server on its own, for manual runs and end-to-end tests:
//   tsx test/support/model-server-cli.ts --port 0 --script script.json
// The first line on stdout is the base URL (http://127.0.0.1:PORT/v1); one line per request goes to stderr.
//
// Script file: either an array of replies used one per request, or
//   {"rules": [{"when": "<regex on the last user message>", "reply": <reply> | [<reply>, ...]}], "default": <reply>}
// A rule's reply list answers the user message and then each tool round after it, in order.
// When nothing is scripted for a tool round, the answer is a plain text so the agent's turn ends.
// A reply: {"text": "..."} | {"toolCalls": [{"name": "Bash", "arguments": {"command": "ls"}}]} | {"status": 429}
//        | {"cutStream": <chunks sent before the socket is destroyed>}
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { cutStream, startModelServer, status, text, toolCalls, type RecordedRequest, type ScriptedReply } from './model-server';
import { errorMessage } from '../../src/core/error-message';

const positiveInt = z.number().int().positive();
const delayMs = z.number().int().nonnegative().optional();

const replySchema = z.union([
  z.strictObject({ text: z.string(), chunks: positiveInt.optional(), delayMs }),
  z.strictObject({
    toolCalls: z
      .array(
        z.strictObject({
          id: z.string().optional(),
          name: z.string(),
          arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
        }),
      )
      .min(1),
    content: z.string().optional(),
    splitArguments: positiveInt.optional(),
    delayMs,
  }),
  z.strictObject({
    status: z.number().int().min(400).max(599),
    body: z.unknown().optional(),
    retryAfter: z.number().nonnegative().optional(),
  }),
  z.strictObject({ cutStream: z.number().int().nonnegative() }),
]);

const ruleSchema = z.strictObject({
  when: z.string().refine(isValidRegex, { message: 'not a valid regular expression' }),
  reply: z.union([replySchema, z.array(replySchema).min(1)]),
});

const scriptSchema = z.union([z.array(replySchema), z.strictObject({ rules: z.array(ruleSchema), default: replySchema.optional() })]);

type ReplyDescriptor = z.infer<typeof replySchema>;
type ScriptFile = z.infer<typeof scriptSchema>;

const TOOL_ROUND_FALLBACK: ReplyDescriptor = { text: 'Finished.' };

function toReply(descriptor: ReplyDescriptor): ScriptedReply {
  if ('text' in descriptor) return text(descriptor.text, { chunks: descriptor.chunks, delayMs: descriptor.delayMs });
  if ('toolCalls' in descriptor) {
    return toolCalls(descriptor.toolCalls, {
      content: descriptor.content,
      splitArguments: descriptor.splitArguments,
      delayMs: descriptor.delayMs,
    });
  }
  if ('status' in descriptor) return status(descriptor.status, descriptor.body, { retryAfter: descriptor.retryAfter });
  return cutStream(descriptor.cutStream);
}

/** The text of the last user message, and how many assistant turns followed it. */
function conversationPosition(request: RecordedRequest): { lastUser: string; step: number } {
  const messages = request.body.messages;
  let step = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i];
    if (message.role === 'assistant') step += 1;
    if (message.role === 'user') return { lastUser: messageText(message.content), step };
  }
  return { lastUser: '', step };
}

function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => (part && typeof part === 'object' && 'text' in part && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

function chooseReply(script: ScriptFile, request: RecordedRequest): ReplyDescriptor | undefined {
  if (Array.isArray(script)) return script[request.index];
  const { lastUser, step } = conversationPosition(request);
  const rule = script.rules.find((r) => new RegExp(r.when, 'i').test(lastUser));
  const sequence = rule ? (Array.isArray(rule.reply) ? rule.reply : [rule.reply]) : [];
  const scripted = sequence[step];
  if (scripted) return scripted;
  if (step === 0 && script.default) return script.default;
  return TOOL_ROUND_FALLBACK;
}

function describe(descriptor: ReplyDescriptor | undefined): string {
  if (!descriptor) return 'script exhausted';
  if ('text' in descriptor) return `text ${JSON.stringify(descriptor.text.slice(0, 60))}`;
  if ('toolCalls' in descriptor) return `tool calls ${descriptor.toolCalls.map((c) => c.name).join(', ')}`;
  if ('status' in descriptor) return `status ${descriptor.status}`;
  return `stream cut after ${descriptor.cutStream} chunks`;
}

function isValidRegex(source: string): boolean {
  try {
    new RegExp(source, 'i');
    return true;
  } catch {
    return false;
  }
}

function loadScript(file: string): ScriptFile {
  const parsed = scriptSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`invalid script ${file}:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, script: { type: 'string' } } });
  if (!values.script) throw new Error('usage: model-server-cli --script <file.json> [--port <n>]');
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid --port ${values.port}`);
  const script = loadScript(values.script);

  const server = await startModelServer(
    (request) => {
      const descriptor = chooseReply(script, request);
      process.stderr.write(`model-server: request ${request.index + 1} -> ${describe(descriptor)}\n`);
      return descriptor ? toReply(descriptor) : undefined;
    },
    { port },
  );
  process.stdout.write(`${server.url}\n`);

  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`model-server: ${errorMessage(error)}\n`);
  process.exit(2);
});
