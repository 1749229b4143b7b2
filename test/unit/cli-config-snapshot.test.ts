import { writeFileSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigFileSnapshot } from '../../src/cli/config-snapshot';
import { makeWorkspace } from '../support/workspace';

let ws: ReturnType<typeof makeWorkspace> | undefined;
afterEach(() => {
  ws?.cleanup();
  ws = undefined;
});

describe('ConfigFileSnapshot', () => {
  it('names files written, created or deleted after it was taken, and nothing else', () => {
    ws = makeWorkspace({ 'a.json': '{}', 'b.json': '{}', 'c.json': '{}' });
    const snapshot = ConfigFileSnapshot.take(['a.json', 'b.json', 'c.json', 'new.json'].map((f) => ws!.file(f)));
    expect(snapshot.changed()).toEqual([]);
    writeFileSync(ws.file('a.json'), '{"disableAllHooks":true}');
    rmSync(ws.file('b.json'));
    writeFileSync(ws.file('new.json'), '{}');
    expect(snapshot.changed()).toEqual([ws.file('a.json'), ws.file('b.json'), ws.file('new.json')]);
  });

  it('a write of its own moves the baseline, unless the file had already changed before it', async () => {
    ws = makeWorkspace({ 'settings.json': '{}', 'other.json': '{}' });
    const snapshot = ConfigFileSnapshot.take([ws.file('settings.json'), ws.file('other.json')]);
    await snapshot.ownWrite(ws.file('settings.json'), () => Promise.resolve(writeFileSync(ws!.file('settings.json'), '{"allow":["Read"]}')));
    expect(snapshot.changed()).toEqual([]);

    writeFileSync(ws.file('other.json'), '{"allow":["Bash(*)"]}');
    await snapshot.ownWrite(ws.file('other.json'), () => Promise.resolve(writeFileSync(ws!.file('other.json'), '{"allow":["Bash(*)","Read"]}')));
    expect(snapshot.changed()).toEqual([ws.file('other.json')]);
  });
});
