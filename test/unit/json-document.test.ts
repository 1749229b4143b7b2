import { describe, expect, it } from 'vitest';
import { JsonDocumentWriter } from '../../src/cli/output/json-document';

describe('JsonDocumentWriter', () => {
  it.each([
    ['no items', []],
    ['items of every kind', [{ a: 1, b: { c: [1, 2, { d: 'x\ny' }] } }, 'text', 3, null, [], {}]],
  ])('prints what JSON.stringify(value, null, 2) prints, an item at a time: %s', (_, items) => {
    const writes: string[] = [];
    const fields = { session_id: 's', file: '/tmp/a b.jsonl', nested: { x: [1] } };
    const tail = { problems: [{ line: 3, error: 'torn' }] };
    const document = new JsonDocumentWriter({ write: (text) => writes.push(text) }, fields, 'records');
    for (const item of items) document.item(item);
    document.end(tail);
    expect(writes.join('')).toBe(`${JSON.stringify({ ...fields, records: items, ...tail }, null, 2)}\n`);
    expect(writes.length).toBe(items.length + 2);
  });
});
