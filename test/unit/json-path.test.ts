import { describe, expect, it } from 'vitest';
import { formatJsonPath, parseJsonPath, type JsonPath } from '../../src/core/hooks/config/json-path';

describe('JSON paths', () => {
  it('reads JSON paths back from problem paths', () => {
    expect(parseJsonPath('hooks.PreToolUse[0].hooks[1]')).toEqual(['hooks', 'PreToolUse', 0, 'hooks', 1]);
    expect(parseJsonPath('servers["my server"].command')).toEqual(['servers', 'my server', 'command']);
    expect(parseJsonPath('[2]["0"]')).toEqual([2, '0']);
    expect(parseJsonPath('')).toEqual([]);
  });

  it('every path formatJsonPath writes reads back to the same segments', () => {
    const paths: JsonPath[] = [
      [],
      ['hooks'],
      ['hooks', 'PreToolUse', 0, 'hooks', 12, 'command'],
      [3, 'x'],
      ['a b', 'c.d', '', '0', 'x"y', 'back\\slash', '[0]', 'ünï', '$ok', '_1', '\u2028', 'line\nbreak'],
    ];
    for (const path of paths) expect(parseJsonPath(formatJsonPath(path)), formatJsonPath(path)).toEqual(path);
    expect(formatJsonPath(['servers', 'my server', 'command'])).toBe('servers["my server"].command');
  });

  it('text it could not have written is undefined, never a partial path or a throw', () => {
    for (const text of ['hooks..x', 'hooks.', 'a b', 'hooks[x]', 'hooks[-1]', 'a[0]b', '["\\q"]', '["open', 'hooks["a"']) {
      expect(parseJsonPath(text), text).toBeUndefined();
    }
  });
});
