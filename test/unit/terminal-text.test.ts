import { describe, expect, it } from 'vitest';
import { printable } from '../../src/cli/output/terminal-text';

describe('text for the terminal', () => {
  it('escapes what could drive the terminal, keeps line breaks and tabs, and leaves JSON meaning the same', () => {
    expect(printable('a\x1b[8mb\rc\x07\u202ed\n\te\u2028')).toBe('a\\u001b[8mb\\rc\\u0007\\u202ed\n\te\\u2028');
    // A tag sequence (a subdivision flag): astral format characters, escaped as UTF-16 halves.
    const flag = 'England 🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}, and \x9b\x7f';
    const json = printable(JSON.stringify({ text: flag }));
    expect(json).not.toMatch(/[\u{E0000}-\u{E007F}]/u);
    expect(JSON.parse(json)).toEqual({ text: flag });
  });

  it('escapes every default-ignorable or unassigned character, which a renderer may draw as nothing', () => {
    const hidden = `git status\u2065\ufff0\u{e0000}\u{e0002}\u{e0080}\u{e01f0} && echo ok`;
    const shown = printable(hidden);
    expect(shown).not.toMatch(/[\p{Default_Ignorable_Code_Point}\p{Cn}]/u);
    expect(JSON.parse(printable(JSON.stringify(hidden)))).toBe(hidden);
  });
});
