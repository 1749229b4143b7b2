import { Marked } from 'marked';
import { describe, expect, it } from 'vitest';
import { splitBlocks } from '../../webview-ui/chat/markdown-blocks';
import { nestingDepth } from '../../webview-ui/chat/markdown-nesting';

// As the chat configures it (markdown.ts), minus the HTML escaping, which is per token.
const marked = new Marked({ gfm: true, breaks: false, async: false });
const parse = (text: string) => marked.parse(text) as string;

/** Markdown that tends to continue across blank lines (lists, fences, indented code, HTML, references) and that does not. */
const PARTS = [
  'para one\nline two',
  '- a\n- b',
  '- a\n\n- b',
  '1. x\n2. y',
  '3. z',
  '1) paren',
  '> quote\ncontinued',
  '> > nested',
  '```js\nconst a = 1;\n\nfoo\n```',
  '~~~\nx\n\ny\n~~~',
  '````\n```\n````',
  '```',
  '  ```',
  '    indented code\n\n    more',
  '    - deep',
  '\t- tab',
  '# Heading',
  'Setext\n===',
  'x\n---',
  '---',
  '***',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '* star',
  '+ plus',
  '- [ ] task',
  '  - nested\n    - deeper',
  '- item\n\n  continued para',
  'text with **bold** and `code`',
  '<div>\nhtml\n</div>',
  '<!--\ncomment',
  '-->',
  '[ref]: http://x',
  'see [ref]',
  'Term  \nhard break',
  'after',
];
const SEPARATORS = ['\n\n', '\n\n\n', '\n', '\n  \n'];

describe('splitBlocks', () => {
  it('cuts replies into blocks that parse to the same HTML alone as together', () => {
    let seed = 1;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    let cuts = 0;
    for (let n = 0; n < 2_000; n++) {
      let text = PARTS[random(PARTS.length)];
      for (let k = random(7); k > 0; k--) text += SEPARATORS[random(SEPARATORS.length)] + PARTS[random(PARTS.length)];
      // A reply cut off mid-stream, as the chat sees it while it streams.
      if (random(3) === 0) text = text.slice(0, random(text.length));
      const blocks = splitBlocks(text);
      cuts += blocks.length - 1;
      expect(blocks.join('')).toBe(text);
      const html = blocks.map(parse).join('');
      if (html !== parse(text)) expect({ text, blocks, html }).toEqual({ text, blocks, html: parse(text) });
    }
    // Many replies were cut: the equality above is not met by never cutting.
    expect(cuts).toBeGreaterThan(500);
  });

  it('cuts at blank lines before a new paragraph, not inside a fence or before an indented or list line', () => {
    expect(splitBlocks('One.\n\nTwo.\n\n```\na\n\nb\n```\n\n- c\n\n  d\n\nEnd')).toEqual([
      'One.\n\n',
      'Two.\n\n',
      '```\na\n\nb\n```\n\n- c\n\n  d\n\n',
      'End',
    ]);
  });
});

describe('nestingDepth', () => {
  it('counts block quotes and list levels, by marker and by indent, outside fenced code', () => {
    expect(nestingDepth('plain\n\ntext')).toBe(0);
    expect(nestingDepth('> > > x')).toBe(3);
    expect(nestingDepth(`${'>'.repeat(10_000)} x`)).toBe(10_000);
    expect(nestingDepth('- - - - x')).toBe(4);
    expect(nestingDepth('- a\n  - b\n    - c')).toBe(3);
    expect(nestingDepth('```\n> > > > not a quote\n```\n- a')).toBe(1);
  });
});
