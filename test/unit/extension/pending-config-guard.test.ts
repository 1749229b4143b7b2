import { describe, expect, it } from 'vitest';
import { ConfigChangeGuard } from '../../../src/extension/pending-config-guard';

const FILE = '/ws/.vscode/hooks.json';
const LABEL = '.vscode/hooks.json';

function guardWith(text: string | undefined): ConfigChangeGuard {
  const guard = new ConfigChangeGuard();
  guard.adopt(FILE, text);
  return guard;
}

describe('ConfigChangeGuard', () => {
  it('applies the first content it sees, and holds a later one nobody explained', () => {
    const guard = new ConfigChangeGuard();
    expect(guard.observe(FILE, LABEL, 'A')).toBe('applied');
    expect(guard.observe(FILE, LABEL, 'B')).toBe('held');
    expect(guard.appliedText(FILE)).toBe('A');
    expect(guard.pendingChanges()).toMatchObject([{ file: FILE, label: LABEL, appliedText: 'A', newText: 'B' }]);
    // The file going back to the applied content withdraws the held change.
    expect(guard.observe(FILE, LABEL, 'A')).toBe('unchanged');
    expect(guard.pendingChanges()).toEqual([]);
  });

  it('a save explains exactly its own content, once', () => {
    const guard = guardWith('A');
    guard.noteSave(FILE, 'B');
    expect(guard.observe(FILE, LABEL, 'C')).toBe('held');
    expect(guard.observe(FILE, LABEL, 'B')).toBe('applied');
    expect(guard.pendingChanges()).toEqual([]);
    expect(guard.observe(FILE, LABEL, 'C')).toBe('held');
    // Written back by someone else later, the saved content is no longer explained by that save.
    expect(guard.observe(FILE, LABEL, 'A')).toBe('held');
  });

  it('a save on top of a held change does not apply it: the document carries content nobody reviewed', () => {
    const guard = guardWith('A');
    expect(guard.observe(FILE, LABEL, 'B')).toBe('held');
    guard.noteSave(FILE, 'B+edit');
    expect(guard.observe(FILE, LABEL, 'B+edit')).toBe('held');
    expect(guard.pendingChanges()[0].newText).toBe('B+edit');
    // Saving the applied content back withdraws the held change.
    guard.noteSave(FILE, 'A');
    expect(guard.observe(FILE, LABEL, 'A')).toBe('unchanged');
    expect(guard.pendingChanges()).toEqual([]);
  });

  it("a person's decision spends what an earlier save explained: the agent cannot revert to it", () => {
    const guard = guardWith('A');
    guard.noteSave(FILE, 'S');
    expect(guard.observe(FILE, LABEL, 'X')).toBe('held');
    guard.apply(guard.pendingChanges()[0].id);
    expect(guard.observe(FILE, LABEL, 'S')).toBe('held');
  });

  it("Hookpilot's own write applies only on top of the applied content", () => {
    const guard = guardWith('A');
    guard.expect(FILE, 'A', 'A+import');
    expect(guard.observe(FILE, LABEL, 'A+import')).toBe('applied');

    expect(guard.observe(FILE, LABEL, 'agent')).toBe('held');
    guard.expect(FILE, 'agent', 'agent+import');
    expect(guard.observe(FILE, LABEL, 'agent+import')).toBe('held');
    expect(guard.appliedText(FILE)).toBe('A+import');
  });

  it('Apply takes the reviewed content; a replaced change is refused; Discard stays quiet about that content only', () => {
    const guard = guardWith('A');
    guard.observe(FILE, LABEL, 'B');
    const first = guard.pendingChanges()[0];
    guard.observe(FILE, LABEL, 'C');
    expect(() => guard.apply(first.id)).toThrow(/no longer pending/);
    const second = guard.pendingChanges()[0];
    expect(second.diff).toContain('-A');
    expect(second.diff).toContain('+C');

    guard.discard(second.id);
    expect(guard.appliedText(FILE)).toBe('A');
    expect(guard.observe(FILE, LABEL, 'C')).toBe('unchanged');
    expect(guard.observe(FILE, LABEL, 'D')).toBe('held');
    guard.apply(guard.pendingChanges()[0].id);
    expect(guard.appliedText(FILE)).toBe('D');
  });

  it('a deleted or created file is a change like any other', () => {
    const guard = guardWith('A');
    expect(guard.observe(FILE, LABEL, undefined)).toBe('held');
    expect(guard.pendingChanges()[0].diff).toContain('deleted');
    const absent = new ConfigChangeGuard();
    absent.adopt(FILE, undefined);
    expect(absent.observe(FILE, LABEL, '{"hooks":{}}')).toBe('held');
  });

  it('forgets the sources of a removed folder, held changes included', () => {
    const guard = guardWith('A');
    guard.observe(FILE, LABEL, 'B');
    let fired = 0;
    guard.onDidChange(() => fired++);
    guard.retain(new Set());
    expect(guard.pendingChanges()).toEqual([]);
    expect(guard.isKnown(FILE)).toBe(false);
    expect(fired).toBe(1);
  });

  it('does not compare a huge file line by line: the diff says so instead of stalling the host', () => {
    const guard = guardWith('A');
    const huge = Array.from({ length: 150_000 }, (_, i) => `line ${i} ${'x'.repeat(i % 7)}`).join('\n');
    expect(guard.observe(FILE, LABEL, huge)).toBe('held');
    expect(guard.pendingChanges()[0].diff).toMatch(/too large or too different to compare here \(1 and \d+ characters\)/);
    expect(guard.pendingChanges()[0].newText).toBe(huge);
  });

  it('a held change survives a restart while its content is still on disk; other content is adopted', () => {
    const before = guardWith('A');
    before.observe(FILE, LABEL, 'agent');
    const stored = before.stored();
    expect(JSON.stringify(stored)).not.toContain('agent');

    const after = new ConfigChangeGuard();
    after.restore(stored);
    expect(after.observe(FILE, LABEL, 'agent')).toBe('held');
    expect(after.appliedText(FILE)).toBe('A');
    expect(after.pendingChanges()[0]).toMatchObject({ appliedText: 'A', newText: 'agent' });

    const edited = new ConfigChangeGuard();
    edited.restore(stored);
    edited.adopt(FILE, 'edited while closed');
    expect(edited.appliedText(FILE)).toBe('edited while closed');
    expect(edited.pendingChanges()).toEqual([]);
  });

  it('a discarded change stays unapplied across a restart, and asks nothing', () => {
    const before = guardWith('A');
    before.observe(FILE, LABEL, 'agent');
    before.discard(before.pendingChanges()[0].id);
    const after = new ConfigChangeGuard();
    after.restore(before.stored());
    expect(after.observe(FILE, LABEL, 'agent')).toBe('unchanged');
    expect(after.appliedText(FILE)).toBe('A');
    expect(after.pendingChanges()).toEqual([]);
  });

  it('wouldApply tells, without using it up, whether a save or an expected write explains the content', () => {
    const guard = guardWith('A');
    expect(guard.wouldApply(FILE, 'B')).toBe(false);
    guard.noteSave(FILE, 'B');
    expect(guard.wouldApply(FILE, 'C')).toBe(false);
    expect(guard.wouldApply(FILE, 'B')).toBe(true);
    expect(guard.wouldApply(FILE, 'B')).toBe(true);
    expect(guard.wouldApply('/ws/other.json', 'B')).toBe(false);
    expect(guard.observe(FILE, LABEL, 'B')).toBe('applied');
    expect(guard.wouldApply(FILE, 'B')).toBe(false);
    guard.expect(FILE, 'B', 'D');
    expect(guard.wouldApply(FILE, 'D')).toBe(true);
  });

  it('a refused change is held with the hook that blocked it, and the save no longer explains it', () => {
    const guard = guardWith('A');
    guard.noteSave(FILE, 'B');
    guard.refuse(FILE, LABEL, 'B', { hookName: 'keep-guard', reason: 'no' });
    expect(guard.appliedText(FILE)).toBe('A');
    expect(guard.pendingChanges()).toMatchObject([{ newText: 'B', blockedBy: { hookName: 'keep-guard', reason: 'no' } }]);
    expect(guard.observe(FILE, LABEL, 'B')).toBe('unchanged');
    expect(guard.appliedText(FILE)).toBe('A');
  });

  it('markBlocked keeps the held change under its id with the block; Apply then still applies exactly it', () => {
    const guard = guardWith('A');
    guard.observe(FILE, LABEL, 'B');
    const [change] = guard.pendingChanges();
    const marked = guard.markBlocked(change.id, { hookName: 'keep-guard', reason: 'no' });
    expect(marked).toMatchObject({ id: change.id, newText: 'B', blockedBy: { hookName: 'keep-guard' } });
    expect(guard.pendingChanges()).toEqual([marked]);
    guard.apply(change.id);
    expect(guard.appliedText(FILE)).toBe('B');
    expect(() => guard.markBlocked(change.id, { hookName: 'x', reason: 'y' })).toThrow(/no longer pending/);
  });
});
