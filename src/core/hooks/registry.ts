import { Emitter, type Disposable } from '../events-emitter';
import type { HookEventName } from './events';
import { isLockedSource, isWorkspaceSourced, switchedOff, type HookSwitches } from './hook-switches';
import type { HookDefinition } from './types';

export type InactiveReason = 'disabled' | 'untrusted' | 'all-disabled' | 'managed-only';

export interface HookState {
  hook: HookDefinition;
  enabled: boolean;
  /** false when the hook comes from an untrusted workspace. */
  trusted: boolean;
  /** A managed policy's hook: no toggle, command or setting turns it off. */
  locked: boolean;
  active: boolean;
  inactiveReason?: InactiveReason;
}

/** Dispatch order: in-process first, then process-based, then priority ascending (docs/design.md#dispatch-order-and-aggregation). */
function dispatchOrder(a: HookDefinition, b: HookDefinition): number {
  const rank = (h: HookDefinition) => (h.spec.type === 'builtin' ? 0 : 1);
  return rank(a) - rank(b) || a.priority - b.priority;
}

const EMPTY: readonly HookDefinition[] = Object.freeze([]);

/**
 * An immutable view of the hooks: dispatches take one at their start and finish on it,
 * whatever reloads happen meanwhile (AtomCode's ArcSwap).
 */
export class RegistrySnapshot {
  private readonly index = new Map<HookEventName, readonly HookDefinition[]>();

  constructor(
    readonly version: number,
    readonly states: readonly HookState[],
    private readonly sessionHooks: ReadonlyMap<string, readonly HookDefinition[]>,
  ) {
    const byEvent = new Map<HookEventName, HookDefinition[]>();
    for (const state of states) {
      if (!state.active) continue;
      const list = byEvent.get(state.hook.event) ?? [];
      list.push(state.hook);
      byEvent.set(state.hook.event, list);
    }
    for (const [event, list] of byEvent) this.index.set(event, Object.freeze(list.sort(dispatchOrder)));
  }

  /** Active hooks for an event in dispatch order; only subscribers are touched. */
  subscribers(event: HookEventName, sessionId?: string): readonly HookDefinition[] {
    const global = this.index.get(event) ?? EMPTY;
    if (sessionId === undefined || this.sessionHooks.size === 0) return global;
    const session = this.sessionHooks.get(sessionId)?.filter((h) => h.event === event);
    if (!session || session.length === 0) return global;
    return [...global, ...session].sort(dispatchOrder);
  }

  find(id: string): HookState | undefined {
    return this.states.find((s) => s.hook.id === id);
  }
}

export interface RegistryOptions {
  trusted: boolean;
  /** The user's enable/disable choices by hook id (kept by the host, not in the file). */
  enabledOverrides?: Record<string, boolean>;
}

export class HookRegistry {
  private definitions: readonly HookDefinition[] = [];
  private switches: HookSwitches = {};
  private trusted: boolean;
  private overrides: Map<string, boolean>;
  private sessions = new Map<string, readonly HookDefinition[]>();
  private snapshot: RegistrySnapshot;
  private version = 0;
  private readonly changed = new Emitter<RegistrySnapshot>();

  constructor(options: RegistryOptions) {
    this.trusted = options.trusted;
    this.overrides = new Map(Object.entries(options.enabledOverrides ?? {}));
    this.snapshot = this.build();
  }

  current(): RegistrySnapshot {
    return this.snapshot;
  }

  onDidChange(listener: (snapshot: RegistrySnapshot) => void): Disposable {
    return this.changed.on(listener);
  }

  /** Replaces every configured hook (a reload) with one atomic swap. */
  load(definitions: readonly HookDefinition[], switches: HookSwitches = {}): void {
    this.definitions = [...definitions];
    this.switches = { ...switches };
    this.swap();
  }

  setTrusted(trusted: boolean): void {
    if (trusted === this.trusted) return;
    this.trusted = trusted;
    this.swap();
  }

  /** Throws for a managed hook: the policy decides whether it runs. */
  setEnabled(id: string, enabled: boolean): void {
    const hook = this.definitions.find((h) => h.id === id);
    if (hook && isLockedSource(hook.source.kind))
      throw new Error(`"${hook.name}" comes from the managed policy: it cannot be turned off or on here`);
    this.overrides.set(id, enabled);
    this.swap();
  }

  /** Every hook but the managed policy's. */
  setAllEnabled(enabled: boolean): void {
    for (const hook of this.definitions) if (!isLockedSource(hook.source.kind)) this.overrides.set(hook.id, enabled);
    this.swap();
  }

  enabledOverrides(): Record<string, boolean> {
    return Object.fromEntries(this.overrides);
  }

  addSessionHook(sessionId: string, hook: HookDefinition): void {
    this.sessions = new Map(this.sessions).set(sessionId, [...(this.sessions.get(sessionId) ?? []), hook]);
    this.swap();
  }

  removeSessionHook(sessionId: string, id: string): boolean {
    const list = this.sessions.get(sessionId) ?? [];
    const next = list.filter((h) => h.id !== id);
    if (next.length === list.length) return false;
    this.sessions = new Map(this.sessions).set(sessionId, next);
    this.swap();
    return true;
  }

  /** Removes the session's hooks; returns them. */
  clearSession(sessionId: string): readonly HookDefinition[] {
    const removed = this.sessions.get(sessionId);
    if (!removed) return [];
    const next = new Map(this.sessions);
    next.delete(sessionId);
    this.sessions = next;
    this.swap();
    return removed;
  }

  private swap(): void {
    this.snapshot = this.build();
    this.changed.fire(this.snapshot);
  }

  private build(): RegistrySnapshot {
    const states = this.definitions.map((hook): HookState => {
      const locked = isLockedSource(hook.source.kind);
      // An override stored before a hook became managed (same id) must not turn it off.
      const enabled = (locked ? undefined : this.overrides.get(hook.id)) ?? hook.enabled;
      const trusted = this.trusted || !isWorkspaceSourced(hook);
      const inactiveReason: InactiveReason | undefined = !trusted
        ? 'untrusted'
        : (switchedOff(hook.source.kind, this.switches) ?? (!enabled ? 'disabled' : undefined));
      return { hook, enabled, trusted, locked, active: inactiveReason === undefined, inactiveReason };
    });
    return new RegistrySnapshot(++this.version, states, this.sessions);
  }
}
