/**
 * Keeps one audit record under the size limit: a hook's 50 MB stdout must not become a
 * 50 MB line, but the record itself (who ran, what was decided) must still be written.
 */

type Fields = Record<string, unknown>;

/** Serializes a record; one over `maxBytes` has its long strings shortened. */
export function fitRecord(record: Fields, maxBytes: number): { json: string; record: Fields } {
  // Room for the newline.
  const limit = maxBytes - 1;
  const json = JSON.stringify(record);
  if (json.length * 3 <= limit || Buffer.byteLength(json) <= limit) return { json, record };
  for (let cap = Math.floor(Math.min(limit, longestString(record)) / 2); cap >= 256; cap = Math.floor(cap / 2)) {
    const capped = capStrings(record, cap) as Fields;
    const cappedJson = JSON.stringify(capped);
    if (Buffer.byteLength(cappedJson) <= limit) return { json: cappedJson, record: capped };
  }
  // The structure itself is too big (huge arrays of short strings): keep the record's
  // identity and replace its nested values with a note.
  const flat: Fields = {};
  for (const [key, value] of Object.entries(capStrings(record, 256) as Fields)) {
    flat[key] = typeof value === 'object' && value !== null ? `[truncated: ${key} too large]` : value;
  }
  return { json: JSON.stringify(flat), record: flat };
}

export function longestString(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return 0;
  let longest = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) longest = Math.max(longest, longestString(v));
  return longest;
}

/** The value with every string longer than `cap` cut, saying how much was cut. */
export function capStrings(value: unknown, cap: number): unknown {
  if (typeof value === 'string') {
    if (value.length <= cap) return value;
    // A slice keeps the whole string alive: copied, so a cut record does not hold what was cut.
    const head = value.slice(0, cap).split('').join('');
    return `${head}…[truncated ${value.length - cap} chars]`;
  }
  if (Array.isArray(value)) return value.map((v: unknown) => capStrings(v, cap));
  if (typeof value === 'object' && value !== null) {
    const out: Fields = {};
    for (const [k, v] of Object.entries(value)) out[k] = capStrings(v, cap);
    return out;
  }
  return value;
}
