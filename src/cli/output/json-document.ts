import type { Output } from './printer';

const indent = (json: string, by: string) => json.replace(/\n/g, `\n${by}`);

/**
 * `{...fields, [key]: items}` as `JSON.stringify(value, null, 2)` prints it, written an item
 * at a time as `item` gets them: a long session's timeline, with every model request whole,
 * outgrows the longest string a JavaScript engine can build, and its records are read as
 * they are written out, never all held.
 */
export class JsonDocumentWriter {
  private first = true;

  constructor(
    private readonly out: Output,
    fields: Record<string, unknown>,
    key: string,
  ) {
    out.write(
      `{\n  ${Object.entries(fields)
        .map(([name, value]) => `${JSON.stringify(name)}: ${indent(JSON.stringify(value, null, 2), '  ')},`)
        .join('\n  ')}\n  ${JSON.stringify(key)}: [`,
    );
  }

  item(value: unknown): void {
    this.out.write(`${this.first ? '' : ','}\n    ${indent(JSON.stringify(value, null, 2), '    ')}`);
    this.first = false;
  }

  /** Ends the document with `tail`'s fields after the items. */
  end(tail: Record<string, unknown> = {}): void {
    const rest = Object.entries(tail).map(
      ([name, value]) => `,\n  ${JSON.stringify(name)}: ${indent(JSON.stringify(value, null, 2), '  ')}`,
    );
    this.out.write(`${this.first ? '' : '\n  '}]${rest.join('')}\n}\n`);
  }
}
