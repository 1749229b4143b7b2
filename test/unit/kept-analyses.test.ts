import { describe, expect, it } from 'vitest';
import { KeptAnalyses } from '../../src/core/permissions/kept-analyses';

describe('KeptAnalyses', () => {
  const keptOf = (limits: { entries: number; size: number }) => {
    const computed: string[] = [];
    const cache = new KeptAnalyses<{ size: number }>(limits, (value) => value.size);
    const get = (key: string, size: number) =>
      cache.get(key, () => {
        computed.push(key);
        return { size };
      });
    return { get, computed };
  };

  it('answers a key it keeps without computing it again', () => {
    const { get, computed } = keptOf({ entries: 4, size: 100 });
    const first = get('a', 1);
    expect(get('a', 1)).toBe(first);
    expect(computed).toEqual(['a']);
  });

  it('lets the least recently used go past the size in all, whatever the number of entries', () => {
    const { get, computed } = keptOf({ entries: 100, size: 10 });
    get('a', 4);
    get('b', 4);
    get('a', 4);
    get('c', 4);
    get('a', 4);
    get('b', 4);
    expect(computed).toEqual(['a', 'b', 'c', 'b']);
  });

  it('lets the least recently used go past the number of entries', () => {
    const { get, computed } = keptOf({ entries: 2, size: 100 });
    for (const key of ['a', 'b', 'c', 'a']) get(key, 1);
    expect(computed).toEqual(['a', 'b', 'c', 'a']);
  });

  it('does not keep one answer larger than the whole size, nor drop the others for it', () => {
    const { get, computed } = keptOf({ entries: 10, size: 10 });
    get('a', 5);
    get('huge', 11);
    get('huge', 11);
    get('a', 5);
    expect(computed).toEqual(['a', 'huge', 'huge']);
  });
});
