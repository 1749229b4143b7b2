import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SettingsPositions } from '../../src/cli/config-positions';

const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-positions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function settings(name: string, text: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

const TEXT = [
  '{',
  '  // editor settings first',
  '  "editor.tabSize": 2,',
  '  "hookpilot.hooks": {',
  '    "hooks": {',
  '      "Stop": [{ "hooks": [{ "type": "command", "command": 7 }] }],',
  '      "my event": [],',
  '    },',
  '  },',
  '}',
].join('\n');

/** Where `needle` starts on a 1-based line of TEXT. */
const at = (line: number, needle: string) => ({ line, column: TEXT.split('\n')[line - 1].indexOf(needle) + 1 });

describe('SettingsPositions (CLI)', () => {
  it('finds a value of hookpilot.hooks by its JSON path, 1-based, with LF or CRLF line ends', () => {
    for (const [name, text] of [
      ['lf.json', TEXT],
      ['crlf.json', TEXT.replace(/\n/g, '\r\n')],
    ]) {
      const positions = new SettingsPositions();
      const file = settings(name, text);
      expect(positions.locate(file, 'hooks.Stop[0].hooks[0].command')).toEqual(at(6, '7 }'));
      expect(positions.locate(file, 'hooks["my event"]')).toEqual(at(7, '[]'));
      // A path past what exists points at the nearest enclosing value.
      expect(positions.locate(file, 'hooks.Stop[0].hooks[3]')).toEqual(at(6, '[{ "type"'));
      expect(positions.locate(file, '')).toEqual(at(4, '{'));
    }
  });

  it('no position without the setting, for a file that is gone, or for a path it cannot read', () => {
    const positions = new SettingsPositions();
    expect(positions.locate(settings('other.json', '{ "editor.tabSize": 2 }'), 'hooks.Stop')).toBeUndefined();
    expect(positions.locate(settings('array.json', '[1]'), 'hooks')).toBeUndefined();
    expect(positions.locate(path.join(dir, 'missing.json'), 'hooks')).toBeUndefined();
    expect(positions.locate(settings('ok.json', TEXT), 'hooks..Stop')).toBeUndefined();
  });
});
