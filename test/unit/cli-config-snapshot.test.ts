import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
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

  it('names a file whose folder became a file, or that became a link, without throwing', () => {
    ws = makeWorkspace({ 'cfg/hooks.json': '{}', 'settings.json': '{}', 'elsewhere.json': '{"x":1}' });
    const snapshot = ConfigFileSnapshot.take([ws.file('cfg/hooks.json'), ws.file('settings.json')]);
    rmSync(ws.file('cfg'), { recursive: true });
    writeFileSync(ws.file('cfg'), 'not a folder');
    rmSync(ws.file('settings.json'));
    symlinkSync(ws.file('elsewhere.json'), ws.file('settings.json'));
    expect(snapshot.takeNewChanges()).toEqual([ws.file('cfg/hooks.json'), ws.file('settings.json')]);
  });

  it('a write of its own moves the baseline, unless the file had already changed before it', async () => {
    ws = makeWorkspace({ 'settings.json': '{}', 'other.json': '{}' });
    const snapshot = ConfigFileSnapshot.take([ws.file('settings.json'), ws.file('other.json')]);
    await snapshot.ownWrite(ws.file('settings.json'), () =>
      Promise.resolve(writeFileSync(ws!.file('settings.json'), '{"allow":["Read"]}')),
    );
    expect(snapshot.changed()).toEqual([]);

    writeFileSync(ws.file('other.json'), '{"allow":["Bash(*)"]}');
    await snapshot.ownWrite(ws.file('other.json'), () =>
      Promise.resolve(writeFileSync(ws!.file('other.json'), '{"allow":["Bash(*)","Read"]}')),
    );
    expect(snapshot.changed()).toEqual([ws.file('other.json')]);
  });

  it('takeNewChanges names each new content once; back to the start and changed again, it names it again', () => {
    ws = makeWorkspace({ 'hooks.json': '{}', 'settings.json': '{}' });
    const snapshot = ConfigFileSnapshot.take([ws.file('hooks.json'), ws.file('settings.json')]);
    expect(snapshot.takeNewChanges()).toEqual([]);
    writeFileSync(ws.file('hooks.json'), '{"disableAllHooks":true}');
    expect(snapshot.takeNewChanges()).toEqual([ws.file('hooks.json')]);
    expect(snapshot.takeNewChanges()).toEqual([]);
    writeFileSync(ws.file('hooks.json'), '{"hooks":{}}');
    rmSync(ws.file('settings.json'));
    expect(snapshot.takeNewChanges()).toEqual([ws.file('hooks.json'), ws.file('settings.json')]);
    writeFileSync(ws.file('hooks.json'), '{}');
    expect(snapshot.takeNewChanges()).toEqual([]);
    writeFileSync(ws.file('hooks.json'), '{"hooks":{}}');
    expect(snapshot.takeNewChanges()).toEqual([ws.file('hooks.json')]);
    // The end-of-run report still names every file that differs from the start.
    expect(snapshot.changed()).toEqual([ws.file('hooks.json'), ws.file('settings.json')]);
  });
});
