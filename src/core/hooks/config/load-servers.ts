import { parse } from 'shell-quote';
import { APPROVE_EVERY_CALL, EVENT_INFO, resolveEventName, type HookEventName } from '../events';
import type { ServerDefinition } from '../types';
import { parseEntry, type JsonPath } from './config-problems';
import { EVENT_KEYS, serverSchema, type ServerConfig } from './config-schema';
import { timeoutMsOf } from './hook-definition';
import { hookSourceAt, isPlainObject, TIMEOUT_FIELDS, type LoadContext } from './load-hooks-section';
import { suggestName } from './suggest-name';
import { clampTimeouts } from './timeout-bounds';

const SERVER_KEYS = Object.keys(serverSchema.shape);

/** A string command is split like a shell would, but never run through one. */
function commandArgv(command: string | string[], path: JsonPath, ctx: LoadContext): string[] | undefined {
  if (Array.isArray(command)) return command;
  const words: string[] = [];
  for (const entry of parse(command, (name) => `\${${name}}`)) {
    if (typeof entry !== 'string') {
      ctx.problems.add({
        severity: 'error',
        code: 'invalid-value',
        message: 'A server "command" string cannot contain shell operators; write it as an array of program and arguments.',
        path: [...path, 'command'],
      });
      return undefined;
    }
    words.push(entry);
  }
  return words;
}

function resolveEvents(names: readonly string[] | undefined, path: JsonPath, ctx: LoadContext): HookEventName[] {
  const events: HookEventName[] = [];
  (names ?? []).forEach((name, i) => {
    const event = resolveEventName(name);
    if (!event) {
      const suggestion = suggestName(name, EVENT_KEYS);
      ctx.problems.add({
        severity: 'warning',
        code: 'unknown-event',
        message: `Unknown event "${name}" (ignored).${suggestion ? ` Did you mean "${suggestion}"?` : ''}`,
        path: [...path, i],
      });
    } else if (!events.includes(event)) {
      events.push(event);
    }
  });
  return events;
}

function toServer(name: string, config: ServerConfig, command: string[], path: JsonPath, ctx: LoadContext): ServerDefinition {
  const observe = resolveEvents(config.observe, [...path, 'observe'], ctx);
  const intercept: HookEventName[] = [];
  const interceptNames = config.intercept ?? [];
  resolveEvents(interceptNames, [...path, 'intercept'], ctx).forEach((event) => {
    if (EVENT_INFO[event].kind !== 'observe') {
      intercept.push(event);
      return;
    }
    ctx.problems.add({
      severity: 'warning',
      code: 'ignored-field',
      message: `${event} is an observe event: it is sent as a notification, never intercepted.`,
      path: [...path, 'intercept', interceptNames.findIndex((n) => resolveEventName(n) === event)],
    });
    if (!observe.includes(event)) observe.push(event);
  });
  if (config.timeout !== undefined && config.timeout_ms !== undefined) {
    ctx.problems.add({
      severity: 'warning',
      code: 'conflicting-fields',
      message: `Both "timeout" (seconds) and "timeout_ms" are set; "timeout_ms" (${config.timeout_ms} ms) is used.`,
      path: [...path, 'timeout'],
    });
  }
  const server: ServerDefinition = {
    name,
    command,
    observe,
    intercept,
    enabled: config.enabled ?? true,
    priority: config.priority ?? 0,
    source: hookSourceAt(ctx, path),
  };
  if (config.cwd !== undefined) server.cwd = config.cwd;
  if (config.env !== undefined) server.env = config.env;
  const timeoutMs = timeoutMsOf(config);
  if (timeoutMs !== undefined) server.timeoutMs = timeoutMs;
  if (config.onFailure !== undefined) server.onFailure = config.onFailure;
  if (interceptNames.includes(APPROVE_EVERY_CALL)) server.approveEveryCall = true;
  return server;
}

/** The `servers` section (PicoClaw's `processes`): long-lived JSON-RPC hook processes by name. */
export function loadServers(value: unknown, ctx: LoadContext, at: JsonPath = ['servers']): ServerDefinition[] {
  if (!isPlainObject(value)) {
    ctx.problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: `"${String(at.at(-1))}" must be an object keyed by server name.`,
      path: at,
    });
    return [];
  }
  const servers: ServerDefinition[] = [];
  for (const [name, raw] of Object.entries(value)) {
    const path: JsonPath = [...at, name];
    const bounded = clampTimeouts(raw, TIMEOUT_FIELDS, path, ctx.problems);
    const config = parseEntry<ServerConfig>(serverSchema, bounded, path, ctx.problems, SERVER_KEYS);
    if (!config) continue;
    const command = commandArgv(config.command, path, ctx);
    if (command) servers.push(toServer(name, config, command, path, ctx));
  }
  return servers;
}
