import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MIN_SECRET_VALUE_LENGTH } from './redactor';
import { readRegularHead } from '../read-regular-file';

/**
 * Values in a workspace's `.env` files are secrets the model may echo back (a hook's
 * stdout, a tool result), so they are registered with the redactor as exact values.
 */

export interface EnvEntry {
  key: string;
  /** As a dotenv loader reads it: line breaks made LF, `\n` and `\r` in double quotes made line breaks. */
  value: string;
  /** As the file holds it, between its quotes: what Read, Grep or `cat` of the file shows. */
  written: string;
}

export interface EnvFileSecrets {
  /** Files read, in the order findEnvFiles gives. */
  files: string[];
  /** Values newly handed to the redactor. */
  registered: number;
  /** Files left unread, or read in part, once MAX_ENV_BYTES or MAX_ENV_VALUES was reached. */
  cut: string[];
}

interface SecretValueSink {
  addSecretValue(value: string): void;
  readonly secretValueCount: number;
}

// Committed templates hold placeholders, not secrets.
const TEMPLATE_SUFFIXES = new Set(['example', 'sample', 'template', 'dist']);
/**
 * What one start reads of them in all: each registered value is matched against everything the
 * model and the log see, and a repository (or the agent) can ship a hundred files of them.
 */
// Text costs little to read where it assigns nothing (comments: about 1 ms a MiB), so padding
// cannot take the place of the person's values; the values cap is what bounds the redactor. No
// file has a cap of its own: the model can pad the person's `.env`, before its values or after.
export const MAX_ENV_BYTES = 32 * 1024 * 1024;
export const MAX_ENV_VALUES = 20_000;

// The dotenv grammar: KEY=value, `export KEY=value`, quoted values that may span lines, # comments.
// Before the key, spaces of its own line only: `^\s*` would take in the blank lines below, once
// from each of them (a MiB of blank lines held the thread for minutes).
const ENV_LINE =
  /^[^\S\r\n\u2028\u2029]*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*"(?:\\"|[^"])*"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?$/gm;

const SECRET_KEY_HINT = /pass|pwd|secret|token|key|auth|cred|private|salt|signature|signing|cookie|session/i;
const URL_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;
// Values that name something rather than hide it: flags, URLs without user info, host names,
// e-mail addresses and file paths (`.vscode/hooks.json`). Hiding them would hide that name
// from every later log line.
const NAMES_SOMETHING = [
  /^(?:true|false|yes|no|on|off|null)$/i,
  /^[a-z][a-z0-9+.-]*:\/\/[^\s@]*$/i,
  /^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$/,
  /^[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$/i,
  /^(?=.*\/)[~\w./-]+$/,
];

export function parseEnvFile(text: string): EnvEntry[] {
  return [...envEntries(text)];
}

// One at a time: a file of 32 MiB holds millions of assignments, most of them no secret.
function* envEntries(text: string): Generator<EnvEntry> {
  for (const match of text.matchAll(ENV_LINE)) {
    const raw = (match[2] ?? '').trim();
    const quote = raw[0];
    let written = raw;
    let value = raw;
    if ((quote === '"' || quote === "'" || quote === '`') && raw.endsWith(quote) && raw.length >= 2) {
      written = raw.slice(1, -1);
      value = written.replace(/\r\n?/g, '\n');
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\r/g, '\r');
    }
    yield { key: match[1], value, written };
  }
}

/**
 * The secret values of a `.env` text, each as read and as written: a value spanning CRLF lines
 * or holding a `\n` escape is sent as read by whoever loads it, but shown as written by a
 * tool that reads the file. A value is matched whole, lines and all, never line by line: a
 * line alone (`"type": "service_account",` of a JSON key) is often no secret at all. Past
 * `max` values, the rest are not looked for.
 */
export function envSecretValues(text: string, max = Infinity): string[] {
  const values = new Set<string>();
  for (const entry of envEntries(text)) {
    if (values.size > max) break;
    if (isEnvSecret(entry)) values.add(entry.value).add(entry.written);
  }
  return [...values];
}

/**
 * Whether a `.env` value should be treated as a secret. A registered value is hidden from
 * every later log line and model reply, and the model may write a `.env` itself: so a plain
 * word, a command (`git apply`), a host or a path (`.vscode/hooks.json`) is never enough on
 * its own. A value counts when it looks generated, when it is a URL carrying a password, or
 * when its key names a secret (`DB_PASSWORD=correct horse`) and it does not name something.
 */
export function isEnvSecret(entry: Pick<EnvEntry, 'key' | 'value'>): boolean {
  const value = entry.value;
  if (value.length < MIN_SECRET_VALUE_LENGTH) return false;
  if (URL_WITH_CREDENTIALS.test(value) || looksGenerated(value)) return true;
  if (NAMES_SOMETHING.some((re) => re.test(value))) return false;
  return SECRET_KEY_HINT.test(entry.key);
}

/**
 * A token, not words: no spaces, and either lower case, upper case and digits all present
 * (`Xk29!abQ`) or letters and digits alternating at least three times (`4f5g6h`, hex, base64).
 * `v1.2.3-beta`, `evil2.example` or `build-output` are not.
 */
function looksGenerated(value: string): boolean {
  if (/\s/.test(value)) return false;
  if (/[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value)) return true;
  return (value.match(/(?:[A-Za-z](?=\d)|\d(?=[A-Za-z]))/g) ?? []).length >= 3;
}

/** Where a file comes in the reading order: the files that hold a person's own secrets first, as loaders rank them. */
function rank(name: string): number {
  if (name === '.env') return 0;
  if (name === '.env.local') return 1;
  return name.endsWith('.local') ? 2 : 3;
}

/**
 * The `.env`, `.env.local`, `.env.*` files directly in `dir` (templates such as `.env.example`
 * excluded): `.env`, `.env.local`, other `*.local` files, then the rest, each group by name.
 */
export async function findEnvFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const candidates = names
    .filter((n) => n === '.env' || (n.startsWith('.env.') && !TEMPLATE_SUFFIXES.has(n.slice(5).toLowerCase())))
    .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const files: string[] = [];
  for (const name of candidates) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile()) files.push(join(dir, name));
  }
  return files;
}

/** Reads the workspace root's `.env` files and registers their secret values with `redactor`. */
export async function loadEnvFileSecrets(dir: string, redactor: SecretValueSink): Promise<EnvFileSecrets> {
  const files = await findEnvFiles(dir);
  const before = redactor.secretValueCount;
  const read: string[] = [];
  let bytesLeft = MAX_ENV_BYTES;
  let valuesLeft = MAX_ENV_VALUES;
  for (const [index, file] of files.entries()) {
    // Read as checked: a `.env` swapped for a FIFO since its stat would hold a thread forever.
    let bytes: Buffer;
    let whole: boolean;
    try {
      const head = readRegularHead(file, bytesLeft, { followLinks: true });
      bytes = head.bytes;
      whole = bytes.length === head.size;
    } catch {
      continue;
    }
    bytesLeft -= bytes.length;
    read.push(file);
    const encoding = encodingOf(bytes);
    // One more than is left, to know whether any was left out.
    const values = envSecretValues(decode(bytes, encoding), valuesLeft + 1);
    for (const value of values.slice(0, valuesLeft)) {
      redactor.addSecretValue(value);
      // What `cat` of a UTF-16 file shows once its output is read as UTF-8: a NUL beside each character.
      if (encoding !== 'utf8') redactor.addSecretValue(encode(value, encoding).toString('utf8'));
    }
    valuesLeft -= values.length;
    // Past the budget in bytes (this file read in part) or in values: the files left are not read.
    if (!whole || valuesLeft < 0) return { files: read, registered: redactor.secretValueCount - before, cut: files.slice(index) };
  }
  return { files: read, registered: redactor.secretValueCount - before, cut: [] };
}

type EnvFileEncoding = 'utf8' | 'utf16le' | 'utf16be';

// Windows PowerShell 5 writes `echo KEY=value > .env` as UTF-16LE with a byte order mark.
function encodingOf(bytes: Buffer): EnvFileEncoding {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf16be';
  return 'utf8';
}

function decode(bytes: Buffer, encoding: EnvFileEncoding): string {
  if (encoding === 'utf8') return bytes.toString('utf8');
  // After the byte order mark, whole code units only.
  const units = Buffer.from(bytes.subarray(2, bytes.length - (bytes.length % 2)));
  return (encoding === 'utf16be' ? units.swap16() : units).toString('utf16le');
}

function encode(text: string, encoding: 'utf16le' | 'utf16be'): Buffer {
  const units = Buffer.from(text, 'utf16le');
  return encoding === 'utf16be' ? units.swap16() : units;
}
