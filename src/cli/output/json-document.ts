import type { Output } from './printer';

const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);

/**
 * `{...fields, [key]: items}` as `JSON.stringify(value, null, 2)` prints it, written an item
 * at a time: a long session's timeline, with every model request whole, outgrows the longest
 * string a JavaScript engine can build.
 */
export function writeJsonDocument(
  out: Output,
  fields: Record<string, unknown>,
  key: string,
  items: Iterable<unknown>,
  tail: Record<string, unknown> = {},
): void {
  out.write(
    `{\n  ${Object.entries(fields)
      .map(([name, value]) => `${JSON.stringify(name)}: ${indent(JSON.stringify(value, null, 2), '  ')},`)
      .join('\n  ')}\n  ${JSON.stringify(key)}: [`,
  );
  let first = true;
  for (const item of items) {
    out.write(`${first ? '' : ','}\n    ${indent(JSON.stringify(item, null, 2), '    ')}`);
    first = false;
  }
  const rest = Object.entries(tail).map(([name, value]) => `,\n  ${JSON.stringify(name)}: ${indent(JSON.stringify(value, null, 2), '  ')}`);
  out.write(`${first ? '' : '\n  '}]${rest.join('')}\n}\n`);
}
