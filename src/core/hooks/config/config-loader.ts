import type { z } from 'zod';
import { resolveEventName } from '../events';
import { addZodIssues, parseEntry, ProblemList, type JsonPath, type Locator } from './config-problems';
import { builtinSettingObjectSchema, defaultsSchema, DOCUMENT_KEYS, hooksDocumentSchema, SNAKE_CASE_DEFAULTS } from './config-schema';
import { HookIdAllocator } from './hook-ids';
import { parseJsonc, type ParsedJsonc } from './jsonc-document';
import { isPlainObject, loadHooksSection, type LoadContext } from './load-hooks-section';
import { loadServers } from './load-servers';
import { emptyConfig, type BuiltinSetting, type ConfigSource, type HookDefaults, type LoadedConfig } from './loaded-config';
import { suggestName } from './suggest-name';
import { parseUrlPattern } from '../handlers/url-pattern';
import { clampTimeouts } from './timeout-bounds';
import { errorMessage } from '../../error-message';

/** Sections validated entry by entry elsewhere; the rest are scalars checked field by field. */
const SECTIONS = new Set(['hooks', 'servers', 'builtins', 'defaults']);
const BUILTIN_SETTING_KEYS = Object.keys(builtinSettingObjectSchema.shape);

/** Validates each field on its own, so one bad value drops only itself. */
function parseFields(
  shape: Readonly<Record<string, z.ZodType>>,
  value: Record<string, unknown>,
  path: JsonPath,
  problems: ProblemList,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(value)) {
    // `toString` or `constructor` in a file must not find the shape's inherited members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) continue;
    const result = field.safeParse(raw);
    if (result.success) {
      if (result.data !== undefined) out[key] = result.data;
    } else {
      addZodIssues(problems, result.error.issues, [...path, key], raw, []);
    }
  }
  return out;
}

function reportUnknownTopLevelKeys(value: Record<string, unknown>, problems: ProblemList): void {
  for (const key of Object.keys(value)) {
    if (DOCUMENT_KEYS.includes(key)) continue;
    const event = resolveEventName(key);
    const suggestion = suggestName(key, DOCUMENT_KEYS);
    const message = event
      ? `"${key}" is an event: put it inside "hooks" (ignored here).`
      : `Unknown property "${key}" (ignored).${suggestion ? ` Did you mean "${suggestion}"?` : ''}`;
    problems.add({ severity: 'warning', code: 'unknown-property', message, path: [key], part: 'key' });
  }
}

function loadBuiltins(value: unknown, problems: ProblemList, at: JsonPath = ['builtins']): Record<string, BuiltinSetting> {
  const builtins: Record<string, BuiltinSetting> = {};
  if (!isPlainObject(value)) {
    problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: '"builtins" must be an object keyed by built-in hook name.',
      path: at,
    });
    return builtins;
  }
  for (const [name, raw] of Object.entries(value)) {
    const path: JsonPath = [...at, name];
    if (typeof raw === 'boolean') {
      builtins[name] = { enabled: raw };
      continue;
    }
    if (!isPlainObject(raw)) {
      problems.add({
        severity: 'error',
        code: 'invalid-value',
        message: `"${name}" must be true, false or { "enabled", "options" }.`,
        path,
      });
      continue;
    }
    const parsed = parseEntry(builtinSettingObjectSchema, raw, path, problems, BUILTIN_SETTING_KEYS);
    if (!parsed) continue;
    const setting: BuiltinSetting = { enabled: parsed.enabled ?? true };
    if (parsed.options !== undefined) setting.options = parsed.options;
    builtins[name] = setting;
  }
  return builtins;
}

/** `defaults`; PicoClaw's snake_case keys (`observer_timeout_ms`, ...) mean the camelCase ones. */
function loadDefaults(value: unknown, problems: ProblemList, at: JsonPath = ['defaults']): HookDefaults {
  if (!isPlainObject(value)) {
    problems.add({ severity: 'error', code: 'invalid-value', message: '"defaults" must be an object.', path: at });
    return {};
  }
  const known = Object.keys(defaultsSchema.shape);
  const defaults: HookDefaults = {};
  for (const [key, raw] of Object.entries(value)) {
    const field = Object.prototype.hasOwnProperty.call(SNAKE_CASE_DEFAULTS, key)
      ? SNAKE_CASE_DEFAULTS[key]
      : known.includes(key)
        ? (key as keyof HookDefaults)
        : undefined;
    if (!field) {
      const suggestion = suggestName(key, known);
      problems.add({
        severity: 'warning',
        code: 'unknown-property',
        message: `Unknown property "${key}" (ignored).${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
        path: [...at, key],
        part: 'key',
      });
      continue;
    }
    const bounded = clampTimeouts({ [key]: raw }, { [key]: 'ms' }, at, problems) as Record<string, unknown>;
    Object.assign(defaults, parseFields({ [field]: defaultsSchema.shape[field] }, { [field]: bounded[key] }, at, problems));
  }
  return defaults;
}

/**
 * PicoClaw nests `processes` (servers), `builtins`, `defaults` and `enabled` inside `hooks`.
 * They load as the top-level sections would, with positions at their place in `hooks`; a
 * top-level section wins over its nested twin.
 */
function loadNestedSections(hooks: Record<string, unknown>, config: LoadedConfig, ctx: LoadContext): void {
  if (hooks.processes !== undefined) {
    const topLevel = new Set(config.servers.map((s) => s.name));
    const nested = loadServers(hooks.processes, ctx, ['hooks', 'processes']);
    for (const server of nested) {
      if (topLevel.has(server.name))
        ctx.problems.add({
          severity: 'warning',
          code: 'server-clash',
          message: `"${server.name}" is also declared in the top-level "servers"; that one is used.`,
          path: ['hooks', 'processes', server.name],
          part: 'key',
        });
    }
    config.servers = [...nested.filter((s) => !topLevel.has(s.name)), ...config.servers];
  }
  if (hooks.builtins !== undefined)
    config.builtins = { ...loadBuiltins(hooks.builtins, ctx.problems, ['hooks', 'builtins']), ...config.builtins };
  if (hooks.defaults !== undefined)
    config.defaults = { ...loadDefaults(hooks.defaults, ctx.problems, ['hooks', 'defaults']), ...config.defaults };
  if (hooks.enabled !== undefined) {
    if (typeof hooks.enabled !== 'boolean')
      ctx.problems.add({
        severity: 'error',
        code: 'invalid-value',
        message: '"enabled" must be true or false.',
        path: ['hooks', 'enabled'],
      });
    // A top-level `disableAllHooks`, read after this, overrides it.
    else config.disableAllHooks = !hooks.enabled;
  }
}

/** A pattern that does not parse allows no URL (the allowlist skips it); say so where it is written. */
function reportBadUrlPatterns(patterns: readonly string[], problems: ProblemList): void {
  patterns.forEach((pattern, i) => {
    const parsed = parseUrlPattern(pattern);
    if (parsed.ok) return;
    problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: `${parsed.error}; it allows no URL.`,
      path: ['allowedHttpHookUrls', i],
    });
  });
}

/** The most hooks one source may define. */
export const MAX_HOOKS_PER_SOURCE = 1_000;

/** The handlers a `hooks` section lists, counted before any is validated: a group's `hooks`, or a flat entry. */
function handlerCount(hooks: unknown): number {
  if (!isPlainObject(hooks)) return 0;
  let count = 0;
  for (const entries of Object.values(hooks)) {
    if (!Array.isArray(entries)) continue;
    for (const entry of entries) count += isPlainObject(entry) && Array.isArray(entry.hooks) ? entry.hooks.length : 1;
  }
  return count;
}

function loadObject(value: unknown, source: ConfigSource, problems: ProblemList, locator: Locator | undefined): LoadedConfig {
  const config = emptyConfig();
  if (value === undefined || value === null) return config;
  if (!isPlainObject(value)) {
    problems.add({ severity: 'error', code: 'invalid-value', message: 'The hooks configuration must be a JSON object.', path: [] });
    return config;
  }
  reportUnknownTopLevelKeys(value, problems);
  const handlers = handlerCount(value.hooks);
  if (handlers > MAX_HOOKS_PER_SOURCE) {
    // Each hook costs its checks (scripts, pins, secrets) on every reload: a cloned repository's
    // file of a hundred thousand would hold the host for minutes. None loads, and it is an error.
    const message = `The configuration defines ${handlers} hooks, more than the ${MAX_HOOKS_PER_SOURCE} one source may hold; none of them is loaded.`;
    problems.add({ severity: 'error', code: 'unreadable', message, path: ['hooks'] });
    return config;
  }
  const nestedProcesses = isPlainObject(value.hooks) && isPlainObject(value.hooks.processes) ? Object.keys(value.hooks.processes) : [];
  const declaredServers = new Set([...(isPlainObject(value.servers) ? Object.keys(value.servers) : []), ...nestedProcesses]);
  const ctx: LoadContext = { source, locator, problems, ids: new HookIdAllocator(), declaredServers };
  if (value.servers !== undefined) config.servers = loadServers(value.servers, ctx);
  if (value.hooks !== undefined) config.hooks = loadHooksSection(value.hooks, ctx);
  if (value.builtins !== undefined) config.builtins = loadBuiltins(value.builtins, problems);
  if (value.defaults !== undefined) config.defaults = loadDefaults(value.defaults, problems);
  if (isPlainObject(value.hooks)) loadNestedSections(value.hooks, config, ctx);
  const scalarShape = Object.fromEntries(Object.entries(hooksDocumentSchema.shape).filter(([key]) => !SECTIONS.has(key)));
  const scalars = parseFields(scalarShape, value, [], problems);
  if (typeof scalars.disableAllHooks === 'boolean') config.disableAllHooks = scalars.disableAllHooks;
  if (Array.isArray(scalars.allowedHttpHookUrls)) {
    config.allowedHttpHookUrls = scalars.allowedHttpHookUrls as string[];
    reportBadUrlPatterns(config.allowedHttpHookUrls, problems);
  }
  if (Array.isArray(scalars.httpHookAllowedEnvVars)) config.httpHookAllowedEnvVars = scalars.httpHookAllowedEnvVars as string[];
  return config;
}

/**
 * Loads `.vscode/hooks.json` (JSONC). Every problem carries its JSON path and its
 * position in `text`; every valid hook loads, whatever is wrong around it.
 */
export function loadHooksDocument(text: string, source: ConfigSource): LoadedConfig {
  return guarded(source, () => loadHooksText(text, source));
}

function loadHooksText(text: string, source: ConfigSource): LoadedConfig {
  const parsed = parseJsonc(text);
  const problems = new ProblemList(source, parsed.locator);
  addSyntaxErrors(parsed, source, problems);
  const config = loadObject(parsed.value, source, problems, parsed.locator);
  config.problems = problems.sorted();
  config.source = source;
  return config;
}

/** A file too deep to read loads nothing: as a file that cannot be read, which a run refuses. */
function addSyntaxErrors(parsed: ParsedJsonc, source: ConfigSource, problems: ProblemList): void {
  for (const error of parsed.syntaxErrors) {
    if (parsed.tooDeep) problems.addAt(error.range, 'error', 'unreadable', `cannot read ${source.file ?? 'it'}: ${error.message}`);
    else problems.addAt(error.range, 'error', 'syntax', error.message);
  }
}

/**
 * Loads the hook keys of a settings file that holds much else (Claude Code's settings, the
 * managed policy): `keys` are read as in hooks.json, every other key is not ours to judge.
 */
export function loadSettingsDocument(
  text: string,
  source: ConfigSource,
  keys: readonly string[],
): { config: LoadedConfig; value: Record<string, unknown> } {
  let value: Record<string, unknown> = {};
  const config = guarded(source, () => {
    const loaded = loadSettingsText(text, source, keys);
    value = loaded.value;
    return loaded.config;
  });
  return { config, value };
}

function loadSettingsText(
  text: string,
  source: ConfigSource,
  keys: readonly string[],
): { config: LoadedConfig; value: Record<string, unknown> } {
  const parsed = parseJsonc(text);
  const problems = new ProblemList(source, parsed.locator);
  addSyntaxErrors(parsed, source, problems);
  const value = isPlainObject(parsed.value) ? parsed.value : {};
  if (parsed.value !== undefined && !isPlainObject(parsed.value)) {
    problems.add({ severity: 'error', code: 'invalid-value', message: 'A settings file must hold a JSON object.', path: [] });
  }
  const picked = Object.fromEntries(keys.filter((key) => value[key] !== undefined).map((key) => [key, value[key]]));
  const config = loadObject(picked, source, problems, parsed.locator);
  config.problems = problems.sorted();
  config.source = source;
  return { config, value };
}

/** The `hookpilot.hooks.claudeSettings` setting nests inside this value in VS Code's settings model: not a hooks key. */
const SETTING_KEYS_INSIDE_HOOKS = ['claudeSettings'];

/** Loads an already parsed value (the `hookpilot.hooks` setting): problems carry JSON paths only. */
export function loadHooksValue(value: unknown, source: ConfigSource): LoadedConfig {
  return guarded(source, () => loadParsedValue(value, source));
}

function loadParsedValue(value: unknown, source: ConfigSource): LoadedConfig {
  const problems = new ProblemList(source);
  const own = isPlainObject(value)
    ? Object.fromEntries(Object.entries(value).filter(([key]) => !SETTING_KEYS_INSIDE_HOOKS.includes(key)))
    : value;
  const config = loadObject(own, source, problems, undefined);
  config.problems = problems.items;
  config.source = source;
  return config;
}

/**
 * A source that cannot be loaded at all (nested past the stack's depth) is an error naming it,
 * and costs only its own hooks: the other sources still load.
 */
function guarded(source: ConfigSource, load: () => LoadedConfig): LoadedConfig {
  try {
    return load();
  } catch (error) {
    const config = emptyConfig();
    config.source = source;
    const where = source.file ?? `the ${source.kind} hooks setting`;
    config.problems = [
      {
        severity: 'error',
        code: 'invalid-value',
        message: `cannot load ${where}: ${errorMessage(error)}`,
        path: '',
        sourceKind: source.kind,
        ...(source.file ? { file: source.file } : {}),
      },
    ];
    return config;
  }
}
