import { z } from 'zod';
import { hooksDocumentSchema } from './config-schema';

/**
 * JSON Schema (draft-07, which VS Code's `jsonValidation` reads) for hooks.json and the
 * `hookpilot.hooks` setting, generated from the zod schema the loader validates with.
 */
export function buildHooksJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(hooksDocumentSchema, { target: 'draft-7' }) as Record<string, unknown>;
}

/** The committed file's exact text (media/hooks.schema.json). */
export function renderHooksJsonSchema(): string {
  return `${JSON.stringify(buildHooksJsonSchema(), null, 2)}\n`;
}
