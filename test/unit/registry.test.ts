import { describe, expect, it } from 'vitest';
import { HookRegistry } from '../../src/core/hooks/registry';
import type { HookDefinition } from '../../src/core/hooks/types';

const def = (id: string, over: Partial<HookDefinition> = {}): HookDefinition => ({
  id,
  name: id,
  event: 'PreToolUse',
  priority: 0,
  enabled: true,
  source: { kind: 'user' },
  spec: { type: 'command', command: 'true' },
  ...over,
});

describe('HookRegistry', () => {
  it('indexes active hooks by event in dispatch order', () => {
    const r = new HookRegistry({ trusted: true });
    r.load([
      def('c', { priority: 5 }),
      def('b', { priority: -1 }),
      def('s', { event: 'Stop' }),
      def('in', { priority: 9, spec: { type: 'builtin', builtin: 'x' } }),
    ]);
    expect(
      r
        .current()
        .subscribers('PreToolUse')
        .map((h) => h.id),
    ).toEqual(['in', 'b', 'c']);
    expect(
      r
        .current()
        .subscribers('Stop')
        .map((h) => h.id),
    ).toEqual(['s']);
    expect(r.current().subscribers('SessionEnd')).toHaveLength(0);
  });

  it('every change is a new snapshot; old snapshots stay as they were', () => {
    const r = new HookRegistry({ trusted: true });
    r.load([def('a')]);
    const before = r.current();
    r.setEnabled('a', false);
    expect(before.subscribers('PreToolUse')).toHaveLength(1);
    expect(r.current().subscribers('PreToolUse')).toHaveLength(0);
    expect(r.current().version).toBeGreaterThan(before.version);
  });

  it('keeps enable/disable choices across reloads by stable id', () => {
    const r = new HookRegistry({ trusted: true, enabledOverrides: { a: false } });
    r.load([def('a'), def('b')]);
    expect(r.current().find('a')?.inactiveReason).toBe('disabled');
    r.load([def('b'), def('a')]);
    expect(r.current().find('a')?.active).toBe(false);
    r.setAllEnabled(true);
    expect(r.enabledOverrides()).toEqual({ a: true, b: true });
  });

  it('disableAllHooks turns off configured hooks but not built-ins', () => {
    const r = new HookRegistry({ trusted: true });
    r.load([def('a'), def('in', { spec: { type: 'builtin', builtin: 'x' }, source: { kind: 'builtin' } })], { disableAllHooks: true });
    expect(r.current().find('a')?.inactiveReason).toBe('all-disabled');
    expect(r.current().find('in')?.active).toBe(true);
  });

  it('workspace-sourced hooks are inactive until the workspace is trusted', () => {
    const r = new HookRegistry({ trusted: false });
    r.load([
      def('ws', { source: { kind: 'workspace' } }),
      def('file', { source: { kind: 'hooksJson' } }),
      def('folder', { source: { kind: 'folder' } }),
      def('user'),
    ]);
    expect(
      r
        .current()
        .states.filter((s) => s.active)
        .map((s) => s.hook.id),
    ).toEqual(['user']);
    const changes: number[] = [];
    r.onDidChange((s) => changes.push(s.version));
    r.setTrusted(true);
    expect(r.current().states.every((s) => s.active)).toBe(true);
    expect(changes).toHaveLength(1);
  });
});
