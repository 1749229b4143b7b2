import { createHash } from 'node:crypto';
import { createTwoFilesPatch } from 'diff';
import { Emitter } from '../core/events-emitter';
import { isWorkspaceMcpFile } from '../core/mcp/mcp-protected-files';
import type { ConfigSubject } from '../shared/manager-views';

/** What a governed source holds: its text, or undefined when the file does not exist. */
export type SourceText = string | undefined;

/**
 * A change to the configuration that governs the agent (hooks, permissions, MCP servers) that no person
 * made: held, not applied, until a person applies or discards it. `id` changes whenever the
 * held content changes, so Apply applies exactly the content that was reviewed.
 */
export interface PendingConfigChange {
  id: string;
  file: string;
  /** The file as a person reads it (relative to its folder). */
  label: string;
  appliedText: SourceText;
  newText: SourceText;
  /** Unified diff from the applied content to the new content. */
  diff: string;
  /** What the file configures: what stays in force while the change is held. */
  governs: ConfigSubject;
  /** A ConfigChange hook kept this change out when it was about to apply (docs/hooks.md#configchange). */
  blockedBy?: ChangeBlock;
}

/** Which ConfigChange hook blocked a change, and why. */
export interface ChangeBlock {
  hookName: string;
  reason: string;
}

export const STALE_CHANGE =
  'that configuration change is no longer pending: the file changed again, or it was already applied or discarded';

/**
 * A held or discarded change as kept across a window reload: the applied content, and a hash
 * of the content on disk (the file may be large). Reloading must not apply either.
 */
export interface StoredHeldChange {
  file: string;
  label: string;
  appliedText: SourceText;
  heldHash: string;
  /** A person discarded it: it stays unapplied, and asks nothing. */
  discarded: boolean;
}

/** A source's applied content as kept across activations (`text` undefined: no file). */
export interface AppliedSource {
  file: string;
  text: SourceText;
}

/** Past this, a source's applied content is not kept across activations (it is adopted as found). */
const MAX_KEPT_APPLIED_CHARS = 1_000_000;

function hashOf(text: SourceText): string {
  return text === undefined ? 'absent' : createHash('sha256').update(text).digest('hex');
}

/** What `observe` found: nothing new, a change it applied (a person's), or a change it holds. */
export type Observation = 'unchanged' | 'applied' | 'held';

/** Beyond this size, or this long, two versions are not compared line by line: whoever wrote the file must not stall the host. */
const MAX_DIFF_INPUT_CHARS = 1_000_000;
const DIFF_TIMEOUT_MS = 1_000;

function unifiedDiff(label: string, from: SourceText, to: SourceText): string {
  const [oldName, newName] = [`${label} (applied)`, `${label} (on disk)`];
  const sizes = `${from?.length ?? 0} and ${to?.length ?? 0} characters`;
  const tooLarge = () =>
    `--- ${oldName}\n+++ ${newName}\n@@ not compared @@\n` +
    ` The two versions are too large or too different to compare here (${sizes}); open the file to read it.\n`;
  if ((from?.length ?? 0) > MAX_DIFF_INPUT_CHARS || (to?.length ?? 0) > MAX_DIFF_INPUT_CHARS) return tooLarge();
  const options = { timeout: DIFF_TIMEOUT_MS };
  const [oldHeader, newHeader] = [from === undefined ? 'no file' : undefined, to === undefined ? 'deleted' : undefined];
  return createTwoFilesPatch(oldName, newName, from ?? '', to ?? '', oldHeader, newHeader, options) ?? tooLarge();
}

/**
 * The applied configuration of every governed source, and the changes held back from it.
 *
 * The first content seen of a source is applied (as Claude Code snapshots its settings at
 * startup), unless an earlier activation held or discarded exactly that content. Later content
 * applies by itself only when a person's action explains it: the editor saved exactly that
 * content (over the applied one, not over a held change), or one of Hookpilot's own commands
 * announced it before writing. Anything else (the agent's Bash, a hook, another program) is
 * held as a PendingConfigChange, and the engine and the permission gate keep the applied
 * content. This holds whether or not a session is running: a process the agent started can
 * outlive its turn, and an unexplained change is as untrusted after a session as during it.
 */
export class ConfigChangeGuard {
  private readonly applied = new Map<string, SourceText>();
  private readonly pending = new Map<string, PendingConfigChange>();
  /** The last content the editor saved to each file, until an observation uses it. */
  private readonly saved = new Map<string, SourceText>();
  /** Content one of Hookpilot's commands is about to write, until an observation uses it. */
  private readonly expected = new Map<string, SourceText>();
  /** Content a person discarded: seeing it again on disk asks nothing again. */
  private readonly discarded = new Map<string, SourceText>();
  /** How each file with a held or discarded change is shown. */
  private readonly labels = new Map<string, string>();
  /** Held changes of an earlier activation, until their source is first seen. */
  private readonly restored = new Map<string, StoredHeldChange>();
  /** What an earlier activation applied last, until the source is first seen. */
  private readonly lastApplied = new Map<string, SourceText>();
  private readonly changed = new Emitter<void>();
  private nextId = 1;

  /** The applied content or the held changes changed. */
  onDidChange(listener: () => void): { dispose(): void } {
    return this.changed.on(listener);
  }

  isKnown(file: string): boolean {
    return this.applied.has(file);
  }

  appliedText(file: string): SourceText {
    return this.applied.get(file);
  }

  /** How each file whose discarded content is still on disk is shown: the disk is not what applies there. */
  discardedLabels(): string[] {
    return [...this.discarded.keys()].map((file) => this.labels.get(file) ?? file);
  }

  /** Held changes of an earlier activation: one whose content is still on disk stays held. */
  restore(stored: readonly StoredHeldChange[]): void {
    for (const change of stored) this.restored.set(change.file, change);
  }

  /**
   * What an earlier activation applied last, per source: content found different at the next
   * activation changed while no window watched it (a process the agent left running may have
   * waited for VS Code to close), and is held like any change no person made.
   */
  restoreApplied(applied: readonly AppliedSource[]): void {
    for (const { file, text } of applied) this.lastApplied.set(file, text);
  }

  /** What to keep for `restoreApplied`: each source's applied content, but one too large to keep. */
  appliedSources(): AppliedSource[] {
    return [...this.applied].filter(([, text]) => (text?.length ?? 0) <= MAX_KEPT_APPLIED_CHARS).map(([file, text]) => ({ file, text }));
  }

  /** What to keep for `restore` after a window reload. */
  stored(): StoredHeldChange[] {
    const entry = (file: string, text: SourceText, discarded: boolean): StoredHeldChange => ({
      file,
      label: this.labels.get(file) ?? file,
      appliedText: this.applied.get(file),
      heldHash: hashOf(text),
      discarded,
    });
    const held = this.pendingChanges().map((c) => entry(c.file, c.newText, false));
    return [...held, ...[...this.discarded].map(([file, text]) => entry(file, text, true))];
  }

  /**
   * The first content seen of a source (at activation, or a folder added later) is applied as
   * it is, unless it is a change an earlier activation held and nobody decided about, or it
   * differs from what an earlier activation applied last (restoreApplied): then that stays
   * applied and this is held.
   */
  adopt(file: string, text: SourceText, label = file): void {
    if (this.applied.has(file)) return;
    const restored = this.restored.get(file);
    this.restored.delete(file);
    const last = this.lastApplied.get(file);
    const known = this.lastApplied.has(file);
    this.lastApplied.delete(file);
    if (restored && restored.heldHash === hashOf(text)) {
      this.applied.set(file, restored.appliedText);
      this.labels.set(file, restored.label);
      if (restored.discarded) this.discarded.set(file, text);
      else this.hold(file, restored.label, text);
    } else if (known && last !== text) {
      this.applied.set(file, last);
      this.hold(file, label, text);
    } else {
      this.applied.set(file, text);
      this.changed.fire();
    }
  }

  /** Sources that are gone (their folder was removed) keep nothing: a folder added again starts afresh. */
  retain(files: ReadonlySet<string>): void {
    for (const file of [...this.applied.keys()].filter((f) => !files.has(f))) {
      for (const map of [this.applied, this.saved, this.expected, this.discarded, this.labels]) map.delete(file);
      this.drop(file);
    }
  }

  /**
   * The editor saved `text` to `file`: that content is a person's. Not while a change is held
   * there: the document then carries content nobody reviewed (an auto-save after an unrelated
   * edit would apply it), so the save stays held with it until a person applies it.
   */
  noteSave(file: string, text: SourceText): void {
    if (!this.pending.has(file)) this.saved.set(file, text);
  }

  /**
   * Hookpilot is about to turn `before` into `after` on a person's word (a command, "Always
   * allow"). Only a file that holds the applied content is explained this way: a write on top
   * of a held change would otherwise carry that change in with it.
   */
  expect(file: string, before: SourceText, after: SourceText): void {
    if (this.applied.has(file) && this.applied.get(file) === before) this.expected.set(file, after);
  }

  /**
   * Whether `observe` would apply `text` now (a person's action explains it): the caller runs
   * the ConfigChange hooks first, then observes it, or refuses it when a hook blocked it.
   */
  wouldApply(file: string, text: SourceText): boolean {
    if (!this.applied.has(file) || this.applied.get(file) === text) return false;
    const remembered = (from: Map<string, SourceText>) => from.has(file) && from.get(file) === text;
    return remembered(this.saved) || remembered(this.expected);
  }

  /** A change `wouldApply` explained, which a ConfigChange hook blocked: held, with the hook's word. */
  refuse(file: string, label: string, text: SourceText, blockedBy: ChangeBlock): void {
    this.take(this.saved, file, text);
    this.take(this.expected, file, text);
    this.discarded.delete(file);
    this.hold(file, label, text, blockedBy);
  }

  /** A ConfigChange hook blocked Apply of the held change `id`: it stays held, under the same id, with the hook's word. */
  markBlocked(id: string, blockedBy: ChangeBlock): PendingConfigChange {
    const change = { ...this.held(id), blockedBy };
    this.pending.set(change.file, change);
    this.changed.fire();
    return change;
  }

  /** What `file` holds now: applies it when a person's action explains it, else holds it. */
  observe(file: string, label: string, text: SourceText): Observation {
    if (!this.applied.has(file)) {
      this.adopt(file, text, label);
      if (this.pending.has(file)) return 'held';
      return this.discarded.has(file) ? 'unchanged' : 'applied';
    }
    const current = this.applied.get(file);
    const explained = this.take(this.saved, file, text) || this.take(this.expected, file, text);
    if (text === current) {
      this.discarded.delete(file);
      this.drop(file);
      return 'unchanged';
    }
    if (explained) {
      this.applied.set(file, text);
      this.discarded.delete(file);
      this.pending.delete(file);
      this.changed.fire();
      return 'applied';
    }
    if (this.discarded.has(file) && this.discarded.get(file) === text) return 'unchanged';
    const held = this.pending.get(file);
    if (held && held.newText === text) return 'unchanged';
    this.hold(file, label, text);
    return 'held';
  }

  private hold(file: string, label: string, text: SourceText, blockedBy?: ChangeBlock): void {
    this.labels.set(file, label);
    const applied = this.applied.get(file);
    const id = `config-change-${this.nextId++}`;
    const diff = unifiedDiff(label, applied, text);
    const governs = isWorkspaceMcpFile(file) ? 'mcpServers' : 'hooks';
    this.pending.set(file, { id, file, label, appliedText: applied, newText: text, diff, governs, ...(blockedBy ? { blockedBy } : {}) });
    this.changed.fire();
  }

  pendingChanges(): PendingConfigChange[] {
    return [...this.pending.values()];
  }

  find(id: string): PendingConfigChange | undefined {
    return this.pendingChanges().find((c) => c.id === id);
  }

  /** A person applies the held change `id`: its new content becomes the applied one. */
  apply(id: string): PendingConfigChange {
    const change = this.held(id);
    this.applied.set(change.file, change.newText);
    this.settle(change.file);
    return change;
  }

  /** A person discards the held change `id`: the applied content stays, and this content asks no more. */
  discard(id: string): PendingConfigChange {
    const change = this.held(id);
    this.discarded.set(change.file, change.newText);
    this.settle(change.file);
    // Kept across a window reload too (see stored()).
    this.changed.fire();
    return change;
  }

  private held(id: string): PendingConfigChange {
    const change = this.find(id);
    if (!change) throw new Error(STALE_CHANGE);
    return change;
  }

  /** A person decided about `file`: what an earlier save or command explained no longer does. */
  private settle(file: string): void {
    this.saved.delete(file);
    this.expected.delete(file);
    this.drop(file);
  }

  private drop(file: string): void {
    if (this.pending.delete(file)) this.changed.fire();
  }

  /** Uses up a remembered content of `file` when it is what the file holds now. */
  private take(from: Map<string, SourceText>, file: string, text: SourceText): boolean {
    if (!from.has(file) || from.get(file) !== text) return false;
    from.delete(file);
    return true;
  }
}
