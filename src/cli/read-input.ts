import { usageError } from './cli-error';
import { errorMessage } from '../core/error-message';
import { FileTooLargeError, readRegularFile } from '../core/read-regular-file';

/** A prompt is text a person or a script wrote; past this, stdin is something else (`yes | hookpilot run`). */
export const MAX_PROMPT_BYTES = 8 * 1024 * 1024;
/** A pipe that stays silent this long gets a note on stderr, so a forgotten `cmd |` does not look like a hang. */
const SILENT_STDIN_MS = 3000;

/**
 * All of a piped stdin, as text, up to `limit` bytes (a usage error past it). `onSilent` runs
 * when nothing has arrived after a few seconds.
 */
export async function readAll(stream: NodeJS.ReadableStream, limit = MAX_PROMPT_BYTES, onSilent?: () => void): Promise<string> {
  const silent = onSilent && setTimeout(onSilent, SILENT_STDIN_MS);
  silent?.unref();
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      clearTimeout(silent);
      const part = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += part.length;
      if (size > limit) throw usageError(`the prompt on stdin is over ${limit / (1024 * 1024)} MiB`);
      parts.push(part);
    }
  } finally {
    clearTimeout(silent);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The prompt from the argument, else from stdin when it is piped; never empty. */
export async function readPrompt(argument: string | undefined, stdin: NodeJS.ReadStream, note: (line: string) => void): Promise<string> {
  let prompt = argument;
  if (prompt === undefined && !stdin.isTTY)
    prompt = await readAll(stdin, MAX_PROMPT_BYTES, () =>
      note('hookpilot: reading the prompt from stdin (end it with Ctrl-D, or pass it as an argument)\n'),
    );
  if (prompt === undefined || prompt.trim() === '')
    throw usageError('no prompt: pass it as an argument (hookpilot run "fix the tests") or pipe it on stdin');
  return prompt;
}

/** A payload is a hook's sample input: far less than this. */
export const MAX_INPUT_FILE_BYTES = 8 * 1024 * 1024;

/** A payload is a few levels deep: far deeper, printing it (or a hook handling it) runs out of stack. */
export const MAX_INPUT_DEPTH = 64;

/** Whether objects and arrays nest in `value` more than `limit` levels deep; without recursion, whatever the depth. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<{ item: unknown; depth: number }> = [{ item: value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.item === null || typeof next.item !== 'object') continue;
    if (next.depth > limit) return true;
    for (const child of Object.values(next.item)) pending.push({ item: child, depth: next.depth + 1 });
  }
  return false;
}

/**
 * `--input '{"command":"ls"}'` or `--input @payload.json`: a JSON object, at most MAX_INPUT_DEPTH
 * levels deep. The file is followed through links (the person named it) but must be a regular
 * file (a FIFO would wait forever, `/dev/zero` never ends) of at most MAX_INPUT_FILE_BYTES.
 */
export async function readJsonObject(value: string, flag: string): Promise<Record<string, unknown>> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = readRegularFile(value.slice(1), MAX_INPUT_FILE_BYTES, { followLinks: true });
    } catch (error) {
      const why =
        error instanceof FileTooLargeError
          ? `it is over ${MAX_INPUT_FILE_BYTES / (1024 * 1024)} MiB`
          : ((error as NodeJS.ErrnoException).code ?? errorMessage(error));
      throw usageError(`${flag}: cannot read ${value.slice(1)}: ${why}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usageError(`${flag}: not valid JSON (${errorMessage(error)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw usageError(`${flag}: must be a JSON object`);
  if (nestedDeeperThan(parsed, MAX_INPUT_DEPTH)) throw usageError(`${flag}: nested more than ${MAX_INPUT_DEPTH} levels deep`);
  return parsed as Record<string, unknown>;
}
