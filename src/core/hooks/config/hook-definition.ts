import { commandLineSecretValues } from '../../config-secrets';
import { EVENT_INFO, type HookEventName } from '../events';
import type { HandlerSpec, HookSource } from '../types';
import { commandLabel } from './command-script';
import type { HandlerConfig } from './config-schema';
import type { HookDraft } from './hook-ids';

/** Claude Code's `timeout` is seconds; other hook systems' `timeout_ms` (docs/design.md) wins when both are set. */
export function timeoutMsOf(entry: { timeout?: number; timeout_ms?: number }): number | undefined {
  if (entry.timeout_ms !== undefined) return entry.timeout_ms;
  return entry.timeout === undefined ? undefined : Math.round(entry.timeout * 1000);
}

/** rpc hooks default to the event's kind; observe events cannot be intercepted. */
export function rpcMode(requested: 'observe' | 'intercept' | undefined, event: HookEventName): 'observe' | 'intercept' {
  if (EVENT_INFO[event].kind === 'observe') return 'observe';
  return requested ?? 'intercept';
}

/**
 * The host, with `/…` for a path or query: a webhook's path or query is often its token (Slack,
 * Discord, Azure's `?code=`), and the name reaches the model in block messages and context tags.
 */
function urlLabel(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === '/' && parsed.search === '' ? parsed.host : `${parsed.host}/…`;
}

function specOf(handler: HandlerConfig, event: HookEventName): HandlerSpec {
  switch (handler.type) {
    case 'command': {
      // `shell: "bash"` runs the line in bash, as exec form: `bash -c <command>`.
      const bash = handler.shell === 'bash' && handler.args === undefined;
      const rewake = handler.asyncRewake === true ? true : undefined;
      const run = bash ? { command: 'bash', args: ['-c', handler.command] } : { command: handler.command, args: handler.args };
      const stdoutJson = handler.stdoutJson;
      return {
        type: 'command',
        ...run,
        cwd: handler.cwd,
        env: handler.env,
        async: rewake ?? handler.async,
        asyncRewake: rewake,
        stdoutJson,
      };
    }
    case 'http':
      return { type: 'http', url: handler.url, method: handler.method, headers: handler.headers, allowedEnvVars: handler.allowedEnvVars };
    case 'builtin':
      return { type: 'builtin', builtin: handler.builtin, options: handler.options };
    case 'rpc':
      return { type: 'rpc', server: handler.server, mode: rpcMode(handler.mode, event) };
    case 'prompt':
      return { type: 'prompt', prompt: handler.prompt, model: handler.model, continueOnBlock: handler.continueOnBlock };
    case 'agent':
      return { type: 'agent', prompt: handler.prompt, model: handler.model };
    case 'mcp_tool':
      return { type: 'mcp_tool', server: handler.server, tool: handler.tool, input: handler.input };
  }
}

function defaultName(handler: HandlerConfig): string {
  switch (handler.type) {
    case 'command':
      // Only the hook's own env tells a variable's name from a value: the name (and so the id) must not depend on the host's.
      return commandLabel(handler.command, handler.args, commandLineSecretValues(handler.command, handler.args, handler.env ?? {}));
    case 'http':
      return urlLabel(handler.url);
    case 'builtin':
      return handler.builtin;
    case 'rpc':
      return handler.server;
    case 'prompt':
    case 'agent':
      return `${handler.type}: ${handler.prompt.length > 40 ? `${handler.prompt.slice(0, 40)}…` : handler.prompt}`;
    case 'mcp_tool':
      return `mcp__${handler.server}__${handler.tool}`;
  }
}

/** Drops undefined members so drafts compare and hash by what is actually set. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** A validated handler, bound to its event and matcher, as the engine sees it. */
export function toHookDraft(handler: HandlerConfig, event: HookEventName, matcher: string | undefined, source: HookSource): HookDraft {
  return compact<HookDraft>({
    name: handler.name ?? defaultName(handler),
    description: handler.description,
    event,
    matcher,
    contentPatterns: handler.contentPatterns,
    if: handler.if,
    statusMessage: handler.statusMessage,
    once: handler.once,
    priority: handler.priority ?? 0,
    onFailure: handler.onFailure,
    timeoutMs: timeoutMsOf(handler),
    enabled: handler.enabled ?? true,
    source: compact(source),
    spec: compact(specOf(handler, event)),
  });
}
