import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ChatMessage } from '../core/agent/llm/chat-model';
import type { SessionEntry } from '../shared/chat-protocol';

/** Transcripts larger than this are listed without reading them for a title. */
const MAX_TITLE_READ_BYTES = 4 * 1024 * 1024;
const MAX_SESSIONS = 50;
const TITLE_CHARS = 80;

/** The text of a message's content, whether a string or text parts. */
export function messageText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (typeof part === 'object' && part !== null && 'text' in part && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** A prompt the person typed, not a reminder the agent injected as a user message. */
export function isTypedPrompt(message: ChatMessage): boolean {
  return message.role === 'user' && !messageText(message).startsWith('<system-reminder>');
}

interface TranscriptLine {
  timestamp?: string;
  message?: ChatMessage;
}

function parseLines(text: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      lines.push(JSON.parse(line) as TranscriptLine);
    } catch {
      // A torn last line after a crash.
    }
  }
  return lines;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TITLE_CHARS ? `${flat.slice(0, TITLE_CHARS - 1)}…` : flat;
}

/** Earlier chats that can be resumed: one transcript each in `transcriptDir`, newest first. */
export async function listSessions(transcriptDir: string): Promise<SessionEntry[]> {
  let names: string[];
  try {
    names = await readdir(transcriptDir);
  } catch {
    return [];
  }
  const files = await Promise.all(
    names
      .filter((name) => name.endsWith('.jsonl'))
      .map(async (name) => {
        const file = path.join(transcriptDir, name);
        const info = await stat(file).catch(() => undefined);
        return info?.isFile() ? { id: name.slice(0, -'.jsonl'.length), file, info } : undefined;
      }),
  );
  const recent = files
    .filter((f): f is NonNullable<typeof f> => f !== undefined)
    .sort((a, b) => b.info.mtimeMs - a.info.mtimeMs)
    .slice(0, MAX_SESSIONS);
  return Promise.all(
    recent.map(async ({ id, file, info }): Promise<SessionEntry> => {
      const entry: SessionEntry = {
        id,
        title: `Chat ${id.slice(0, 8)}`,
        startedAt: info.birthtime.toISOString(),
        lastActiveAt: info.mtime.toISOString(),
      };
      if (info.size > MAX_TITLE_READ_BYTES) return entry;
      const lines = parseLines(await readFile(file, 'utf8').catch(() => ''));
      const prompts = lines.filter((l) => l.message && isTypedPrompt(l.message));
      const first = prompts[0];
      if (first?.message) entry.title = oneLine(messageText(first.message)) || entry.title;
      if (lines[0]?.timestamp) entry.startedAt = lines[0].timestamp;
      entry.turns = prompts.length;
      return entry;
    }),
  );
}
