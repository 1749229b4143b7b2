import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HookEffects, HookOutcome } from '../types';
import { errorMessage } from '../../error-message';

/** Claude Code saves hook output strings longer than this to a file (docs/hooks.md#command-hooks). */
export const SPILL_THRESHOLD_CHARS = 10_000;
export const SPILL_PREVIEW_CHARS = 2_000;

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
