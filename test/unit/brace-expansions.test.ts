import { describe, expect, it } from 'vitest';
import { braceExpansionCount, expandBraces } from '../../src/core/brace-expansions';

describe('brace expansions', () => {
  it('expands within the limit, and counts before it expands', () => {
    expect(expandBraces('a.code-work{space,}', 10)).toEqual(['a.code-workspace', 'a.code-work']);
    expect(expandBraces('x{1..3}', 10)).toEqual(['x1', 'x2', 'x3']);
    expect(braceExpansionCount('{a,b}{1..20}')).toBe(40);
    expect(expandBraces('{a,b}{1..20}', 10)).toBeUndefined();
  });

  it('counts a range of any other form as unbounded: `{1..300..}` three times is 27 million texts', () => {
    expect(braceExpansionCount('{1..300..}')).toBe(Infinity);
    expect(expandBraces('{1..300..}{1..300..}{1..300..}', 1_000)).toBeUndefined();
  });

  it('knows no expansion of a text the library refuses', () => {
    expect(expandBraces(`{${'a,'.repeat(6_000)}b}`, 100_000)).toBeUndefined();
  });
});
