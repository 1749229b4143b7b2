import { APPROVE_EVERY_CALL, EVENT_INFO, HOOK_EVENTS, isToolEvent, resolveEventName, type HookEventName } from '../events';
import { MODEL_HOOK_EVENTS } from '../handlers/model-verdict';
import { compileMatcher } from '../matcher';
import type { HookDefinition, HookSource } from '../types';
import { formatJsonPath, parseEntry, type JsonPath, type Locator, type ProblemList } from './config-problems';
import {
  EVENT_KEYS,
  HANDLER_SCHEMAS,
  MATCHER_GROUP_KEYS,
  NESTED_SECTION_KEYS,
  type ConfigHandlerType,
  type HandlerConfig,
} from './config-schema';
import { toHookDraft } from './hook-definition';
import type { HookIdAllocator } from './hook-ids';
import type { ConfigSource } from './loaded-config';
import { suggestName } from './suggest-name';
import { clampTimeouts, type TimeoutUnit } from './timeout-bounds';

/** The timeout fields of handlers and servers. */
export const TIMEOUT_FIELDS: Readonly<Record<string, TimeoutUnit>> = { timeout: 'seconds', timeout_ms: 'ms' };

/** What loading one document shares across its sections. */
export interface LoadContext {
  source: ConfigSource;
  locator?: Locator;
  problems: ProblemList;
  ids: HookIdAllocator;
  /** Server names declared in this document, valid or not. */
  declaredServers: ReadonlySet<string>;
}

const HANDLER_TYPES = Object.keys(HANDLER_SCHEMAS) as ConfigHandlerType[];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isHandlerType(value: unknown): value is ConfigHandlerType {
  return typeof value === 'string' && (HANDLER_TYPES as string[]).includes(value);
}

export function hookSourceAt(ctx: LoadContext, path: JsonPath): HookSource {
  const source: HookSource = { kind: ctx.source.kind, path: formatJsonPath(path) };
  if (ctx.source.file !== undefined) source.file = ctx.source.file;
  const range = ctx.locator?.locate(path, 'value');
  if (range) {
    source.line = range.line;
    source.column = range.column;
  }
  return source;
}

/** Validates a matcher; `usable: false` means its hooks can never run and are not loaded. */
function checkMatcher(raw: unknown, path: JsonPath, event: HookEventName, ctx: LoadContext): { usable: boolean; matcher?: string } {
  if (raw === undefined) return { usable: true };
  if (typeof raw !== 'string') {
    ctx.problems.add({ severity: 'error', code: 'invalid-value', message: '"matcher" must be a string; its hooks are not loaded.', path });
    return { usable: false };
  }
  const compiled = compileMatcher(raw);
  if (compiled.kind === 'invalid') {
    ctx.problems.add({
      severity: 'error',
      code: 'invalid-matcher',
      message: `Matcher "${raw}" is not a valid regular expression (${compiled.error}); its hooks are not loaded.`,
      path,
    });
    return { usable: false };
  }
  if (!EVENT_INFO[event].matchField && compiled.kind !== 'all') {
    ctx.problems.add({
      severity: 'warning',
      code: 'ignored-field',
      message: `${event} has no matcher: "${raw}" is ignored and these hooks run on every ${event}.`,
      path,
    });
  }
  return { usable: true, matcher: raw };
}

function reportUnknownKeys(entry: Record<string, unknown>, known: readonly string[], path: JsonPath, ctx: LoadContext): void {
  for (const key of Object.keys(entry)) {
    if (known.includes(key)) continue;
    const suggestion = suggestName(key, known);
    ctx.problems.add({
      severity: 'warning',
      code: 'unknown-property',
      message: `Unknown property "${key}" (ignored).${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      path: [...path, key],
      part: 'key',
    });
  }
}

/** Warnings about a hook that loaded but will not behave as its author may expect. */
function checkLoadedHook(hook: HookDefinition, handler: HandlerConfig, path: JsonPath, ctx: LoadContext): void {
  const add = (
    severity: 'error' | 'warning',
    code: 'ignored-field' | 'conflicting-fields' | 'unknown-server',
    field: string,
    message: string,
  ) => ctx.problems.add({ severity, code, message, path: [...path, field], hookId: hook.id });
  const event = hook.event;
  if (handler.timeout !== undefined && handler.timeout_ms !== undefined) {
    add(
      'warning',
      'conflicting-fields',
      'timeout',
      `Both "timeout" (seconds) and "timeout_ms" are set; "timeout_ms" (${handler.timeout_ms} ms) is used.`,
    );
  }
  if (handler.if !== undefined && !isToolEvent(event)) {
    add('warning', 'ignored-field', 'if', `"if" applies only to tool events; on ${event} this hook never runs (as in Claude Code).`);
  }
  if (handler.contentPatterns !== undefined && !isToolEvent(event)) {
    add('warning', 'ignored-field', 'contentPatterns', `"contentPatterns" apply only to tool events; on ${event} they are ignored.`);
  }
  if (handler.type === 'rpc') {
    if (!ctx.declaredServers.has(handler.server)) {
      const suggestion = suggestName(handler.server, [...ctx.declaredServers]);
      add(
        'error',
        'unknown-server',
        'server',
        `Server "${handler.server}" is not declared under "servers".${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
      );
    }
    if (handler.mode === 'intercept' && EVENT_INFO[event].kind === 'observe') {
      add('warning', 'ignored-field', 'mode', `${event} is an observe event: it is sent as a notification, never intercepted.`);
    }
  }
}

function loadHandler(
  raw: unknown,
  path: JsonPath,
  event: HookEventName,
  matcher: string | undefined,
  flat: boolean,
  ctx: LoadContext,
  out: HookDefinition[],
): void {
  if (!isPlainObject(raw)) {
    ctx.problems.add({ severity: 'error', code: 'invalid-value', message: 'A handler must be an object with a "type".', path });
    return;
  }
  const { matcher: _matcher, ...withoutMatcher } = raw;
  const handler = flat ? withoutMatcher : raw;
  const type = handler.type;
  if (type === undefined) {
    ctx.problems.add({
      severity: 'error',
      code: 'missing-field',
      message: `Missing required property "type" (${HANDLER_TYPES.join(', ')}).`,
      path,
    });
    return;
  }
  if (!isHandlerType(type)) {
    const name = typeof type === 'string' ? type : JSON.stringify(type);
    const message = `Unknown handler type "${name}"; expected ${HANDLER_TYPES.join(', ')}.`;
    ctx.problems.add({ severity: 'error', code: 'unknown-handler-type', message, path: [...path, 'type'] });
    return;
  }
  const schema = HANDLER_SCHEMAS[type];
  const knownKeys = [...Object.keys(schema.shape), ...(flat ? ['matcher'] : [])];
  const bounded = clampTimeouts(handler, TIMEOUT_FIELDS, path, ctx.problems);
  const parsed: HandlerConfig | undefined = parseEntry<HandlerConfig>(schema, bounded, path, ctx.problems, knownKeys);
  if (!parsed) return;
  if ((parsed.type === 'prompt' || parsed.type === 'agent') && !MODEL_HOOK_EVENTS.has(event)) {
    const events = [...MODEL_HOOK_EVENTS].join(', ');
    ctx.problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: `A ${parsed.type} hook cannot run on ${event} (as in Claude Code); it runs on ${events}.`,
      path: [...path, 'type'],
    });
    return;
  }
  const hook = ctx.ids.assign(toHookDraft(parsed, event, matcher, hookSourceAt(ctx, path)));
  checkLoadedHook(hook, parsed, path, ctx);
  out.push(hook);
}

function loadEntry(entry: unknown, path: JsonPath, event: HookEventName, ctx: LoadContext, out: HookDefinition[]): void {
  if (!isPlainObject(entry)) {
    ctx.problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: 'Expected a matcher group { "matcher", "hooks": [...] } or a handler { "type", ... }.',
      path,
    });
    return;
  }
  if ('hooks' in entry) {
    reportUnknownKeys(entry, MATCHER_GROUP_KEYS, path, ctx);
    const { usable, matcher } = checkMatcher(entry.matcher, [...path, 'matcher'], event, ctx);
    if (!Array.isArray(entry.hooks)) {
      ctx.problems.add({
        severity: 'error',
        code: 'invalid-value',
        message: '"hooks" must be an array of handlers.',
        path: [...path, 'hooks'],
      });
      return;
    }
    if (!usable) return;
    entry.hooks.forEach((handler: unknown, j) => loadHandler(handler, [...path, 'hooks', j], event, matcher, false, ctx, out));
    return;
  }
  if ('type' in entry) {
    const { usable, matcher } = checkMatcher(entry.matcher, [...path, 'matcher'], event, ctx);
    if (usable) loadHandler(entry, path, event, matcher, true, ctx, out);
    return;
  }
  ctx.problems.add({
    severity: 'error',
    code: 'missing-field',
    message: 'Expected a matcher group with "hooks", or a handler with "type".',
    path,
  });
}

/** Sections that belong next to `hooks`, not inside it (PicoClaw's nested ones are read by the loader). */
const TOP_LEVEL_HINTS: Readonly<Record<string, string>> = { servers: 'servers', disableAllHooks: 'disableAllHooks' };

function unknownEventMessage(key: string): string {
  const topLevel = Object.prototype.hasOwnProperty.call(TOP_LEVEL_HINTS, key) ? TOP_LEVEL_HINTS[key] : undefined;
  if (topLevel) return `"${key}" is not an event; declare it as the top-level "${topLevel}", next to "hooks" (ignored here).`;
  const suggestion = suggestName(key, EVENT_KEYS);
  return `Unknown event "${key}"; its hooks are ignored.${suggestion ? ` Did you mean "${suggestion}"?` : ` Events: ${HOOK_EVENTS.join(', ')}.`}`;
}

/** The `hooks` section: every valid handler loads, whatever is wrong with its siblings. */
export function loadHooksSection(value: unknown, ctx: LoadContext): HookDefinition[] {
  const out: HookDefinition[] = [];
  if (!isPlainObject(value)) {
    ctx.problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: '"hooks" must be an object keyed by event name.',
      path: ['hooks'],
    });
    return out;
  }
  for (const [key, entries] of Object.entries(value)) {
    if ((NESTED_SECTION_KEYS as readonly string[]).includes(key)) continue;
    const path: JsonPath = ['hooks', key];
    const event = resolveEventName(key);
    if (!event) {
      ctx.problems.add({ severity: 'warning', code: 'unknown-event', message: unknownEventMessage(key), path, part: 'key' });
      continue;
    }
    if (!Array.isArray(entries)) {
      ctx.problems.add({
        severity: 'error',
        code: 'invalid-value',
        message: `"${key}" must be an array of matcher groups or handlers.`,
        path,
      });
      continue;
    }
    const first = out.length;
    entries.forEach((entry: unknown, i) => loadEntry(entry, [...path, i], event, ctx, out));
    if (key === APPROVE_EVERY_CALL) for (const hook of out.slice(first)) hook.everyCall = true;
  }
  return out;
}
