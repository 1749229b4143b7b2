import { createHash } from 'node:crypto';
import type { HookDefinition } from '../types';

/**
 * Hook ids key the user's enable/disable choices, so they must survive reloads: they
 * hash the source and the hook's content, not its position or its `enabled` flag.
 */

export type HookDraft = Omit<HookDefinition, 'id'>;

/** JSON with object keys sorted at every level and undefined members dropped. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) out[key] = sortKeys(member);
  }
  return out;
}

/** Everything the hook is, minus where it sits and whether it is on. */
function content(draft: HookDraft): Omit<HookDraft, 'enabled' | 'source'> {
  const { enabled: _enabled, source: _source, ...rest } = draft;
  return rest;
}

export function baseHookId(draft: HookDraft): string {
  const material = [draft.source.kind, draft.source.file ?? '', canonicalJson(content(draft))].join('\u0000');
  return createHash('sha256').update(material).digest('hex').slice(0, 12);
}

/**
 * What makes two hooks the same hook for Claude Code's "an identical handler in several
 * settings files runs once": what it runs and when, not its label.
 */
export function hookBehaviourKey(hook: HookDraft): string {
  return canonicalJson({
    event: hook.event,
    matcher: hook.matcher,
    if: hook.if,
    contentPatterns: hook.contentPatterns,
    priority: hook.priority,
    onFailure: hook.onFailure,
    timeoutMs: hook.timeoutMs,
    spec: hook.spec,
  });
}

/** Hands out ids within one source: identical duplicates get `-2`, `-3`, ... in order. */
export class HookIdAllocator {
  private readonly seen = new Map<string, number>();

  assign(draft: HookDraft): HookDefinition {
    const base = baseHookId(draft);
    const count = (this.seen.get(base) ?? 0) + 1;
    this.seen.set(base, count);
    return { id: count === 1 ? base : `${base}-${count}`, ...draft };
  }
}

/** Ids for hooks built in code (session or CLI hooks), with the same rules as config hooks. */
export function withHookIds(drafts: readonly HookDraft[]): HookDefinition[] {
  const allocator = new HookIdAllocator();
  return drafts.map((draft) => allocator.assign(draft));
}
