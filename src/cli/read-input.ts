import { readFile } from 'node:fs/promises';
import { usageError } from './cli-error';
import { errorMessage } from '../core/error-message';

/** All of a piped stdin, as text. */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(parts).toString('utf8');
}

/** The prompt from the argument, else from stdin when it is piped; never empty. */
export async function readPrompt(argument: string | undefined, stdin: NodeJS.ReadStream): Promise<string> {
  let prompt = argument;
  if (prompt === undefined && !stdin.isTTY) prompt = await readAll(stdin);
  if (prompt === undefined || prompt.trim() === '')
    throw usageError('no prompt: pass it as an argument (hookpilot run "fix the tests") or pipe it on stdin');
  return prompt;
}

/** `--input '{"command":"ls"}'` or `--input @payload.json`: a JSON object. */
export async function readJsonObject(value: string, flag: string): Promise<Record<string, unknown>> {
  let text = value;
  if (value.startsWith('@')) {
    try {
      text = await readFile(value.slice(1), 'utf8');
    } catch (error) {
      throw usageError(`${flag}: cannot read ${value.slice(1)}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw usageError(`${flag}: not valid JSON (${errorMessage(error)})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw usageError(`${flag}: must be a JSON object`);
  return parsed as Record<string, unknown>;
}
