import { describe, expect, it } from 'vitest';
import { readSedScript } from '../../src/core/agent/permissions/sed-script';

describe('a sed script is read as GNU sed compiles it', () => {
  it.each([
    ['1w out', ['out']],
    ['/x/,+2{r a b\n}', ['a b']],
    // A file name runs to the end of the line, `;` and `}` included.
    ['w x; p', ['x; p']],
    ['s|a/b|c|gw log\nR in', ['log', 'in']],
    ['\\%w x%p;$!N;W last', ['last']],
    [':a;N;$!ba;s/\\n/ /g', []],
    ['y/w/r/;0~3d', []],
    ['1i\\\nw not-a-file\nw file', ['file']],
    ['#n w comment\np', []],
    ['2q5; l 40; w z', ['z']],
  ])('%j writes or reads %j', (script, files) => {
    expect(readSedScript(script)).toEqual({ files });
  });

  it.each([
    ['1e id', 'runs a shell command'],
    ['$!{s/a/b/2e\n}', 'pattern space as a shell command'],
    ['p;e', 'runs a shell command'],
    ['s/a/b', 'does not end'],
    ['/x', 'does not end'],
    ['1,k', 'without its end'],
    ['s/a/b/q', 'unknown `s` flag'],
    ['pw x', 'text after `p`'],
    ['K', 'unknown command'],
  ])('%j is a problem: %s', (script, why) => {
    expect(readSedScript(script).problem).toContain(why);
  });
});
