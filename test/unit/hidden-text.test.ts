import { describe, expect, it } from 'vitest';
import { hiddenSpans, visibleOccurrences } from '../../src/core/agent/tools/hidden-text';
import { Redactor } from '../../src/core/audit/redactor';

const redactor = new Redactor({ secretValues: ['dotenv-secret-4f5g6h7j'] });
const spansOf = (text: string) => hiddenSpans(text, redactor.redactForModel(text));

describe('hiddenSpans', () => {
  it('is the part of the text each label replaced', () => {
    const text = 'A=dotenv-secret-4f5g6h7j\nB=ghp_Zq8RkW2mX4vB7nT1pL9sY3cF6hJ0dG5aE8uI\n';
    expect(spansOf(text)).toEqual([
      { start: 2, end: 24 },
      { start: 27, end: 67 },
    ]);
    expect(spansOf('nothing to hide\n')).toEqual([]);
  });

  it('hides the whole stretch where a piece between labels could stand at more than one place', () => {
    // "a" between two hidden "aa": the model cannot tell which "a" it sees.
    expect(hiddenSpans('xaaaaax', 'x[REDACTED:custom]a[REDACTED:custom]x')).toEqual([{ start: 1, end: 6 }]);
  });

  it('hides all of a text the redacted one cannot be aligned with', () => {
    expect(hiddenSpans('abc', 'xyz[REDACTED:custom]')).toEqual([{ start: 0, end: 3 }]);
  });
});

describe('visibleOccurrences', () => {
  it('skips an occurrence that touches a hidden span, and finds the one the model sees after it', () => {
    expect(visibleOccurrences('Xaaa', 'aa', [{ start: 0, end: 2 }])).toEqual([2]);
    expect(visibleOccurrences('a-b-c-d', '-', [{ start: 2, end: 5 }])).toEqual([1, 5]);
  });
});
