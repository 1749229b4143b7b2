import { findNodeAtLocation, parse, parseTree, stripComments, type JSONPath, type Node } from 'jsonc-parser';
import { canonicalJson } from '../hooks/config/hook-ids';
import { parseJsonc } from '../hooks/config/jsonc-document';
import { resolveEventName, type HookEventName } from '../hooks/events';
import { isPlainObject } from './conversion';
import type { ImportedDocument, ImportedGroup, ImportedHandler, ImportedHook, ImportResult } from './import-types';

/**
 * What makes two hooks the same hook when importing: event, matcher and what the
 * handler does. Labels and the enabled flag are left out, so a hook someone renamed or
 * disabled after importing it is not imported again.
 */
export function hookIdentity(event: HookEventName, matcher: string | undefined, handler: Record<string, unknown>): string {
  const { enabled: _enabled, name: _name, description: _description, statusMessage: _statusMessage, ...behaviour } = handler;
  return canonicalJson({ event, matcher: normalizeMatcher(matcher), handler: behaviour });
}

function normalizeMatcher(matcher: unknown): string {
  return typeof matcher === 'string' && matcher !== '*' ? matcher : '';
}

/** Claude Code's group shape: one group per event and matcher, in the order hooks come. */
export function buildDocument(hooks: readonly ImportedHook[]): ImportedDocument {
  const document: ImportedDocument = { hooks: {} };
  for (const hook of hooks) {
    const groups = (document.hooks[hook.event] ??= []);
    let group = groups.find((g) => normalizeMatcher(g.matcher) === normalizeMatcher(hook.matcher));
    if (!group) {
      group = hook.matcher === undefined ? { hooks: [] } : { matcher: hook.matcher, hooks: [] };
      groups.push(group);
    }
    group.hooks.push(hook.handler);
  }
  return document;
}

export interface MergePlan {
  text: string;
  added: ImportedHook[];
  /** Identical hooks found in the existing file: not added again. */
  alreadyPresent: ImportedHook[];
}

/** Identities of every hook already in a hooks.json document (groups and flat handlers, any event spelling). */
function existingIdentities(root: Record<string, unknown>): Set<string> {
  const identities = new Set<string>();
  if (!isPlainObject(root.hooks)) return identities;
  for (const [key, entries] of Object.entries(root.hooks)) {
    const event = resolveEventName(key);
    if (!event || !Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isPlainObject(entry)) continue;
      if (Array.isArray(entry.hooks)) {
        for (const handler of entry.hooks)
          if (isPlainObject(handler)) identities.add(hookIdentity(event, entry.matcher as string | undefined, handler));
      } else if ('type' in entry) {
        const { matcher, ...handler } = entry;
        identities.add(hookIdentity(event, matcher as string | undefined, handler));
      }
    }
  }
  return identities;
}

interface Layout {
  /** One level of indentation. */
  unit: string;
  eol: string;
}

/** Indentation and line ends of the existing text, so inserted hooks look like their neighbours. */
function layoutOf(text: string): Layout {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  return { unit: indent === undefined ? '  ' : indent[0] === '\t' ? '\t' : indent, eol: text.includes('\r\n') ? '\r\n' : '\n' };
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

function indentAt(text: string, offset: number): string {
  return /^[ \t]*/.exec(text.slice(lineStart(text, offset)))?.[0] ?? '';
}

function startsLine(text: string, offset: number): boolean {
  return text.slice(lineStart(text, offset), offset).trim() === '';
}

/** Pretty JSON whose lines after the first are indented by `indent`. */
function serialize(value: unknown, indent: string, layout: Layout): string {
  return JSON.stringify(value, null, layout.unit).split('\n').join(`${layout.eol}${indent}`);
}

/**
 * Appends a member (an array item, or a `"key": value` property) to the array or object at
 * `path`, on a line of its own, without touching any other line: a comment after the last
 * member stays with it, and a trailing comma stays a trailing comma.
 */
function appendMember(text: string, path: JSONPath, member: (indent: string, layout: Layout) => string, layout: Layout): string {
  const container = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) as Node, path);
  if (!container) throw new Error(`cannot find ${path.join('.')} in the existing hooks.json`);
  const children = container.children ?? [];
  if (children.length === 0) {
    const outer = indentAt(text, container.offset);
    const inner = outer + layout.unit;
    const open = container.offset + 1;
    const close = container.offset + container.length - 1;
    return `${text.slice(0, open)}${layout.eol}${inner}${member(inner, layout)}${layout.eol}${outer}${text.slice(close)}`;
  }
  const last = children[children.length - 1];
  const indent = startsLine(text, last.offset) ? indentAt(text, last.offset) : indentAt(text, container.offset) + layout.unit;
  const end = last.offset + last.length;
  let at = end;
  while (text[at] === ' ' || text[at] === '\t') at++;
  const trailingComma = text[at] === ',';
  if (trailingComma) at++;
  let cursor = at;
  while (text[cursor] === ' ' || text[cursor] === '\t') cursor++;
  if (text.startsWith('//', cursor)) {
    const eol = text.indexOf('\n', cursor);
    at = eol < 0 ? text.length : text[eol - 1] === '\r' ? eol - 1 : eol;
  } else if (text.startsWith('/*', cursor) && text.indexOf('*/', cursor) >= 0) {
    at = text.indexOf('*/', cursor) + 2;
  } else if (!trailingComma) {
    at = end;
  }
  const added = `${layout.eol}${indent}${member(indent, layout)}${trailingComma ? ',' : ''}`;
  if (trailingComma) return `${text.slice(0, at)}${added}${text.slice(at)}`;
  return `${text.slice(0, end)},${text.slice(end, at)}${added}${text.slice(at)}`;
}

const item = (value: unknown) => (indent: string, layout: Layout) => serialize(value, indent, layout);
const property = (key: string, value: unknown) => (indent: string, layout: Layout) =>
  `${JSON.stringify(key)}: ${serialize(value, indent, layout)}`;

/** Adds one hook to the text: into a group with the same matcher if the event has one, else a new group. */
function insertHook(text: string, hook: ImportedHook, layout: Layout): string {
  const root = parse(text, [], { allowTrailingComma: true }) as Record<string, unknown>;
  const group: ImportedGroup = hook.matcher === undefined ? { hooks: [hook.handler] } : { matcher: hook.matcher, hooks: [hook.handler] };
  if (root.hooks === undefined) return appendMember(text, [], property('hooks', { [hook.event]: [group] }), layout);
  if (!isPlainObject(root.hooks)) throw new Error('"hooks" in the existing hooks.json is not an object; fix it before importing');
  const keys = Object.keys(root.hooks).filter((key) => resolveEventName(key) === hook.event);
  const key = keys.includes(hook.event) ? hook.event : keys[0];
  if (key === undefined) return appendMember(text, ['hooks'], property(hook.event, [group]), layout);
  const entries = root.hooks[key];
  if (!Array.isArray(entries)) throw new Error(`"hooks.${key}" in the existing hooks.json is not a list; fix it before importing`);
  const index = entries.findIndex(
    (e) => isPlainObject(e) && Array.isArray(e.hooks) && normalizeMatcher(e.matcher) === normalizeMatcher(hook.matcher),
  );
  if (index >= 0) return appendMember(text, ['hooks', key, index, 'hooks'], item(hook.handler satisfies ImportedHandler), layout);
  return appendMember(text, ['hooks', key], item(group), layout);
}

/**
 * Merges imported hooks into the text of an existing `.vscode/hooks.json` (or starts
 * one). Edits are made in place, so comments and formatting of the existing file survive;
 * hooks already there, and duplicates within the import, are not added again.
 */
export function planMerge(existingText: string | undefined, imported: Pick<ImportResult, 'hooks'>): MergePlan {
  const candidates = imported.hooks.filter((hook) => hook.entry.skipped !== 'duplicate');
  const blank = existingText === undefined || stripComments(existingText).trim() === '';
  if (blank) {
    const json = `${JSON.stringify(buildDocument(candidates), null, 2)}\n`;
    const text = existingText === undefined || existingText.trim() === '' ? json : `${existingText.trimEnd()}\n${json}`;
    return { text, added: candidates, alreadyPresent: [] };
  }
  // A key written twice too: the edit would go into the first, which the loader does not read.
  const { value: root, syntaxErrors } = parseJsonc(existingText);
  if (syntaxErrors.length > 0) {
    const [first] = syntaxErrors;
    throw new Error(`the existing hooks.json has a syntax error at line ${first.range.line} (${first.message}); fix it before importing`);
  }
  if (!isPlainObject(root)) throw new Error('the existing hooks.json is not a JSON object; fix it before importing');
  const present = existingIdentities(root);
  const layout = layoutOf(existingText);
  const plan: MergePlan = { text: existingText, added: [], alreadyPresent: [] };
  for (const hook of candidates) {
    const identity = hookIdentity(hook.event, hook.matcher, hook.handler);
    if (present.has(identity)) {
      plan.alreadyPresent.push(hook);
      continue;
    }
    plan.text = insertHook(plan.text, hook, layout);
    present.add(identity);
    plan.added.push(hook);
  }
  return plan;
}

/** The merged text (see planMerge). Throws when the existing file cannot be edited safely. */
export function mergeIntoHooksJson(existingText: string | undefined, imported: Pick<ImportResult, 'hooks'>): string {
  return planMerge(existingText, imported).text;
}
