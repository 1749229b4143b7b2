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

  it('places a long piece of one letter before a long hidden span without comparing them letter by letter (it held an Edit 109 s)', () => {
    const pem = (body: string) => `-----BEGIN PRIVATE KEY-----${body}-----END PRIVATE KEY-----`;
    const n = 600_000;
    const text = `x${pem('b')}${'a'.repeat(n)}${pem('b'.repeat(n))}x\nEND\n`;
    const visible = `x[REDACTED:private_key]${'a'.repeat(n)}[REDACTED:private_key]x\nEND\n`;
    const second = text.indexOf('-----BEGIN', 2);
    expect(hiddenSpans(text, visible)).toEqual([
      { start: 1, end: 1 + pem('b').length },
      { start: second, end: second + pem('b'.repeat(n)).length },
    ]);
  }, 60_000);

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
