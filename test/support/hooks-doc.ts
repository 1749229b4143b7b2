import { readFileSync } from 'node:fs';
import path from 'node:path';

/** docs/hooks.md, which the checklist tests hold against the code's lists. */
const hooksMd = readFileSync(path.join(__dirname, '../../docs/hooks.md'), 'utf8');

/** The body of the docs/hooks.md section under `heading`, up to the next heading of its level or above. */
export function hooksDocSection(heading: string): string {
  const start = hooksMd.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/hooks.md has no "${heading}" heading`);
  const level = heading.split(' ')[0];
  const rest = hooksMd.slice(start + heading.length + 2);
  const end = rest.search(new RegExp(`\\n#{1,${level.length}} `));
  return end < 0 ? rest : rest.slice(0, end);
}
