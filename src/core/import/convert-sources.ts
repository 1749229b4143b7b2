import { z } from 'zod';
import { HANDLER_SCHEMAS } from '../hooks/config/config-schema';
import { loadHooksValue } from '../hooks/config/config-loader';
import { EVENT_INFO, isToolEvent, type HookEventName } from '../hooks/events';
import { compileMatcher } from '../hooks/matcher';
import { convertAtomcodeJson } from './atomcode';
import { convertAtomcodeToml } from './atomcode-toml';
import { convertClaudeSettings } from './claude';
import { convertClineScript } from './cline';
import { convertCodingAgentHooks } from './coding-agent';
import type { Conversion } from './conversion';
import { convertCopilotHooks } from './copilot';
import { convertCursorHooks } from './cursor';
import { convertGeminiSettings } from './gemini';
import type { FoundSource, ImportedHandler, ImportedHook, ImportReportEntry, ImportResult } from './import-types';
import { buildDocument, hookIdentity } from './write-hooks-json';

function convertSource(source: FoundSource): Conversion[] {
  switch (source.format) {
    case 'claude-settings':
      return convertClaudeSettings(source);
    case 'copilot-hooks':
      return convertCopilotHooks(source);
    case 'cline-script':
      return convertClineScript(source);
    case 'cursor-hooks':
      return convertCursorHooks(source);
    case 'gemini-settings':
      return convertGeminiSettings(source);
    case 'coding-agent-hooks':
      return convertCodingAgentHooks(source);
    case 'atomcode-json':
      return convertAtomcodeJson(source);
    case 'atomcode-toml':
      return convertAtomcodeToml(source);
  }
}

/**
 * The last word on a conversion: the handler must pass Hookpilot's own schema and the
 * matcher must compile, or the hook is reported as not carried over rather than written
 * into a file that would not load.
 */
function settle(source: FoundSource, conversion: Conversion): { entry: ImportReportEntry; hook?: ImportedHook } {
  const entry: ImportReportEntry = {
    tool: source.tool,
    file: source.displayPath,
    original: conversion.original,
    sourceEvent: conversion.sourceEvent,
    status: 'exact',
    reasons: [],
    notes: [...conversion.notes],
  };
  // Notes about how a hook was converted say nothing about one that was not.
  const fail = (reason: string) => {
    entry.status = 'unsupported';
    entry.reasons = [reason];
    entry.notes = [];
    return { entry };
  };
  const target = conversion.target;
  if (conversion.unsupported !== undefined || !target) return fail(conversion.unsupported ?? 'nothing to import');
  const valid = HANDLER_SCHEMAS[target.handler.type].safeParse(target.handler);
  if (!valid.success) return fail(`the converted hook is not valid for Hookpilot: ${z.prettifyError(valid.error).replace(/\n/g, '; ')}`);
  let matcher = target.matcher;
  if (matcher !== undefined && !EVENT_INFO[target.event].matchField) {
    entry.notes.push(`${target.event} has no matcher in Hookpilot: "${matcher}" left out`);
    matcher = undefined;
  }
  if (matcher !== undefined) {
    const compiled = compileMatcher(matcher);
    if (compiled.kind === 'invalid') return fail(`the matcher "${matcher}" is not a valid regular expression (${compiled.error})`);
    entry.matcher = matcher;
  }
  const unloadable = loadProblem(target.event, matcher, target.handler);
  if (unloadable) return fail(unloadable);
  entry.targetEvent = target.event;
  entry.reasons = [...conversion.changes, ...silentReasons(target.event, target.handler)];
  entry.status = entry.reasons.length > 0 ? 'changed' : 'exact';
  return { entry, hook: { event: target.event, matcher, handler: target.handler, entry } };
}

/** Hookpilot's loader on the converted hook alone: an error it reports means the hook would not load. */
function loadProblem(event: HookEventName, matcher: string | undefined, handler: ImportedHandler): string | undefined {
  const loaded = loadHooksValue(
    { hooks: { [event]: [{ ...(matcher !== undefined ? { matcher } : {}), hooks: [handler] }] } },
    { kind: 'hooksJson' },
  );
  if (loaded.hooks.length > 0) return undefined;
  const errors = loaded.problems.filter((p) => p.severity === 'error').map((p) => p.message);
  return `Hookpilot would not load the converted hook: ${errors.join('; ') || 'unknown reason'}`;
}

/** A hook that loads but never fires is never "converted exactly", whatever its source did. */
function silentReasons(event: HookEventName, handler: ImportedHandler): string[] {
  const reasons: string[] = [];
  if (handler.enabled === false) reasons.push('imported turned off ("enabled": false): it does not run until you enable it');
  if (handler.if !== undefined && !isToolEvent(event))
    reasons.push(`it never runs: "if" applies only to tool events, and ${event} is not one (Claude Code does not run it either)`);
  return reasons;
}

/**
 * Converts every found source into one hooks document plus a report entry per source
 * hook. Pure: the sources carry their text. A hook identical to one converted before
 * (the same handler in two settings files) is reported and added once, as Claude Code
 * runs it once.
 */
export function convertSources(found: readonly FoundSource[]): ImportResult {
  const entries: ImportReportEntry[] = [];
  const hooks: ImportedHook[] = [];
  const firstOf = new Map<string, ImportReportEntry>();
  for (const source of found) {
    for (const conversion of convertSource(source)) {
      const { entry, hook } = settle(source, conversion);
      entries.push(entry);
      if (!hook) continue;
      const identity = hookIdentity(hook.event, hook.matcher, hook.handler);
      const first = firstOf.get(identity);
      if (first) {
        entry.skipped = 'duplicate';
        entry.notes.push(`identical to the hook from ${first.file} (${first.sourceEvent}): added once`);
      } else {
        firstOf.set(identity, entry);
      }
      hooks.push(hook);
    }
  }
  return { document: buildDocument(hooks.filter((h) => h.entry.skipped === undefined)), hooks, entries };
}
