import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookEffects, HookOutcome } from '../types';
import { errorMessage } from '../../error-message';

/** Claude Code saves hook output strings longer than this to a file (docs/hooks.md#command-hooks). */
export const SPILL_THRESHOLD_CHARS = 10_000;
export const SPILL_PREVIEW_CHARS = 2_000;
/**
 * What a spill folder may hold: past it, the oldest files go. Hook output is as long as the
 * tool input a hook echoes, and the model writes those, call after call, session after session.
 */
export const MAX_SPILL_DIR_BYTES = 32 * 1024 * 1024;
const SPILL_FILE = /^hook-.*\.txt$/;

interface SpillIndex {
  /** Oldest first. */
  files: Array<{ path: string; bytes: number }>;
  bytes: number;
}

/** Each folder's files, listed once (what earlier runs left) and then kept as this process writes. */
const indexes = new Map<string, Promise<SpillIndex>>();

async function listSpillDir(dir: string): Promise<SpillIndex> {
  const found: Array<{ path: string; bytes: number; mtimeMs: number }> = [];
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!SPILL_FILE.test(name)) continue;
    const file = join(dir, name);
    const stat = await lstat(file).catch(() => undefined);
    if (stat?.isFile()) found.push({ path: file, bytes: stat.size, mtimeMs: stat.mtimeMs });
  }
  found.sort((a, b) => a.mtimeMs - b.mtimeMs);
  return { files: found.map(({ path, bytes }) => ({ path, bytes })), bytes: found.reduce((sum, f) => sum + f.bytes, 0) };
}

/** Counts a file just written in `dir`, and removes the oldest while the folder holds too much. */
async function keepWithinBudget(dir: string, file: string, bytes: number): Promise<void> {
  let listing = indexes.get(dir);
  if (!listing) indexes.set(dir, (listing = listSpillDir(dir)));
  const index = await listing;
  if (!index.files.some((f) => f.path === file)) {
    index.files.push({ path: file, bytes });
    index.bytes += bytes;
  }
  while (index.bytes > MAX_SPILL_DIR_BYTES && index.files.length > 1) {
    const oldest = index.files.shift();
    if (!oldest) break;
    index.bytes -= oldest.bytes;
    await rm(oldest.path, { force: true }).catch(() => undefined);
  }
}

export interface SpillTarget {
  /** Directory for the full texts; without it long texts are only truncated. */
  dir?: string;
  sessionId: string;
  /** Names the hook in the file name. */
  label: string;
  /** The engine's redactor: the file is kept at rest and the preview is cut, so both come from redacted text. */
  redact?: (text: string) => string;
}

/**
 * Shortens `text` when it exceeds the threshold: the full text goes to a file in
 * `target.dir` and the result is a preview plus a line naming that file.
 */
export async function spillLongText(original: string, target: SpillTarget): Promise<string> {
  if (original.length <= SPILL_THRESHOLD_CHARS) return original;
  // Redacted whole before the cut: a cut secret would no longer match its pattern or value.
  const text = target.redact ? target.redact(original) : original;
  const preview = text.slice(0, SPILL_PREVIEW_CHARS);
  const size = `${text.length.toLocaleString('en-US')} chars`;
  if (target.dir !== undefined) {
    const file = join(
      target.dir,
      `hook-${safe(target.sessionId)}-${safe(target.label)}-${Date.now()}-${randomBytes(4).toString('hex')}.txt`,
    );
    try {
      await mkdir(target.dir, { recursive: true });
      await writeFile(file, text, { encoding: 'utf8', mode: 0o600 });
      await keepWithinBudget(target.dir, file, Buffer.byteLength(text));
      return `${preview}\n\n[Hook output truncated: the full ${size} are saved in ${file}]`;
    } catch (error) {
      const why = errorMessage(error);
      return `${preview}\n\n[Hook output truncated: ${size}, showing the first ${SPILL_PREVIEW_CHARS}; saving the rest failed: ${why}]`;
    }
  }
  return `${preview}\n\n[Hook output truncated: ${size}, showing the first ${SPILL_PREVIEW_CHARS}]`;
}

/** Applies `spillLongText` to every text of an outcome that reaches the model or the user. */
export async function spillOutcome(outcome: HookOutcome, target: SpillTarget): Promise<HookOutcome> {
  if (outcome.status === 'success') return { ...outcome, effects: await spillEffects(outcome.effects, target) };
  if (outcome.status === 'blocking-error') {
    return { ...outcome, reason: await spillLongText(outcome.reason, target), effects: await spillEffects(outcome.effects, target) };
  }
  return outcome;
}

async function spillEffects(effects: HookEffects, target: SpillTarget): Promise<HookEffects> {
  const out = { ...effects };
  if (out.additionalContext !== undefined) out.additionalContext = await spillLongText(out.additionalContext, target);
  if (out.systemMessage !== undefined) out.systemMessage = await spillLongText(out.systemMessage, target);
  if (out.reason !== undefined) out.reason = await spillLongText(out.reason, target);
  if (out.stop?.reason !== undefined) out.stop = { ...out.stop, reason: await spillLongText(out.stop.reason, target) };
  if (out.permission?.message !== undefined)
    out.permission = { ...out.permission, message: await spillLongText(out.permission.message, target) };
  if (out.warnings !== undefined) out.warnings = await Promise.all(out.warnings.map((warning) => spillLongText(warning, target)));
  return out;
}

function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 64) || 'hook';
}
