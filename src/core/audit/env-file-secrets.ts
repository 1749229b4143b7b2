import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MIN_SECRET_VALUE_LENGTH } from './redactor';

/**
 * Values in a workspace's `.env` files are secrets the model may echo back (a hook's
 * stdout, a tool result), so they are registered with the redactor as exact values.
 */

export interface EnvEntry {
  key: string;
  value: string;
}

export interface EnvFileSecrets {
  /** Files read, in name order. */
  files: string[];
  /** Values newly handed to the redactor. */
  registered: number;
}

interface SecretValueSink {
  addSecretValue(value: string): void;
  readonly secretValueCount: number;
}

// Committed templates hold placeholders, not secrets.
const TEMPLATE_SUFFIXES = new Set(['example', 'sample', 'template', 'dist']);
const MAX_ENV_FILE_BYTES = 1024 * 1024;

// The dotenv grammar: KEY=value, `export KEY=value`, quoted values that may span lines, # comments.
const ENV_LINE = /^\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?$/gm;

const SECRET_KEY_HINT = /pass|pwd|secret|token|key|auth|cred|private|salt|signature|cookie|session/i;
// Plainly configuration, not credentials: flags, numbers, single lowercase words
// (development, localhost), URLs without user info, file paths.
const PLAIN_CONFIG = [/^(?:true|false|yes|no|on|off|null)$/i, /^[+-]?\d+(?:\.\d+)?$/, /^[a-z]+$/, /^[a-z][a-z0-9+.-]*:\/\/[^\s@]*$/i, /^(?:~|\.{1,2})?\/[\w./-]*$/];

export function parseEnvFile(text: string): EnvEntry[] {
  const entries: EnvEntry[] = [];
  const source = text.replace(/\r\n?/g, '\n');
  for (const match of source.matchAll(ENV_LINE)) {
    const raw = (match[2] ?? '').trim();
    const quote = raw[0];
    let value = raw;
    if ((quote === '"' || quote === "'" || quote === '`') && raw.endsWith(quote) && raw.length >= 2) {
      value = raw.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    }
    entries.push({ key: match[1], value });
  }
  return entries;
}

/** Whether a `.env` value should be treated as a secret. */
export function isEnvSecret(entry: EnvEntry): boolean {
  if (entry.value.length < MIN_SECRET_VALUE_LENGTH) return false;
  if (SECRET_KEY_HINT.test(entry.key)) return true;
  return !PLAIN_CONFIG.some((re) => re.test(entry.value));
}

/** The `.env`, `.env.local`, `.env.*` files directly in `dir` (templates such as `.env.example` excluded). */
export async function findEnvFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const candidates = names.filter((n) => n === '.env' || (n.startsWith('.env.') && !TEMPLATE_SUFFIXES.has(n.slice(5).toLowerCase()))).sort();
  const files: string[] = [];
  for (const name of candidates) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile() && info.size <= MAX_ENV_FILE_BYTES) files.push(join(dir, name));
  }
  return files;
}

/** Reads the workspace root's `.env` files and registers their secret values with `redactor`. */
export async function loadEnvFileSecrets(dir: string, redactor: SecretValueSink): Promise<EnvFileSecrets> {
  const files = await findEnvFiles(dir);
  const before = redactor.secretValueCount;
  const read: string[] = [];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    read.push(file);
    for (const entry of parseEnvFile(text)) if (isEnvSecret(entry)) redactor.addSecretValue(entry.value);
  }
  return { files: read, registered: redactor.secretValueCount - before };
}
