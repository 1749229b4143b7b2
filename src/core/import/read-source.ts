import { parseJsonc } from '../hooks/config/jsonc-document';
import { unreadable, type Conversion } from './conversion';
import type { ConfigFileSource } from './import-types';

export type ParsedSource = { ok: true; value: unknown } | { ok: false; problem: Conversion };

/** A source file's JSON (comments and trailing commas tolerated), or why it cannot be read. */
export function parseSourceJson(source: ConfigFileSource): ParsedSource {
  if (source.readError !== undefined) return { ok: false, problem: unreadable('(file)', `could not read the file: ${source.readError}`) };
  const parsed = parseJsonc(source.text);
  const first = parsed.syntaxErrors[0];
  if (first) {
    return {
      ok: false,
      problem: unreadable(
        '(file)',
        `not valid JSON at line ${first.range.line}, column ${first.range.column} (${first.message}); none of its hooks were imported`,
      ),
    };
  }
  return { ok: true, value: parsed.value };
}
