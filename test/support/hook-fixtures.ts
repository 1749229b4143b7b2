import { agentHookDefinitions } from '../../src/core/hooks/agent-hook-definitions';
import type { AgentHook } from '../../src/core/hooks/agent-hook';
import { HookDispatcher } from '../../src/core/hooks/dispatcher';
import type { TimeoutDefaults } from '../../src/core/hooks/hook-timeouts';
import { BuiltinHookHandler } from '../../src/core/hooks/handlers/builtin-handler';
import { HookRegistry } from '../../src/core/hooks/registry';
import type { AuditEntry, AuditSink } from '../../src/core/audit/records';
import type { HandlerType, HookDefinition, HookHandler, HookPayload } from '../../src/core/hooks/types';

export class MemoryAudit implements AuditSink {
  readonly entries: AuditEntry[] = [];
  append(entry: AuditEntry): void {
    this.entries.push(entry);
  }
}

export function payload(event: HookPayload['hook_event_name'], fields: Record<string, unknown> = {}): HookPayload {
  return {
    hook_event_name: event,
    session_id: 'sess-1',
    transcript_path: '/tmp/t.jsonl',
    cwd: '/tmp',
    permission_mode: 'default',
    ...fields,
  };
}

export function toolPayload(
  event: 'PreToolUse' | 'PostToolUse' | 'PermissionRequest',
  tool: string,
  input: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): HookPayload {
  return payload(event, { tool_name: tool, tool_input: input, tool_use_id: 'call_1', ...extra });
}

/** A registry + dispatcher with in-process hooks, plus any other handlers a test passes. */
export function makeEngine(
  options: { trusted?: boolean; handlers?: Partial<Record<HandlerType, HookHandler>>; timeouts?: Partial<TimeoutDefaults> } = {},
) {
  const builtin = new BuiltinHookHandler();
  const registry = new HookRegistry({ trusted: options.trusted ?? true });
  const audit = new MemoryAudit();
  const unavailable: HookHandler = { run: () => Promise.reject(new Error('handler not configured in this test')) };
  const dispatcher = new HookDispatcher({
    snapshot: () => registry.current(),
    handlers: { builtin, command: unavailable, rpc: unavailable, http: unavailable, ...options.handlers },
    projectDir: '/tmp',
    audit,
    timeouts: options.timeouts,
  });
  let extra: HookDefinition[] = [];
  const defs: HookDefinition[] = [];
  const add = (hook: AgentHook, opts: { id?: string; enabled?: boolean } = {}) => {
    const list = agentHookDefinitions(hook, { idPrefix: opts.id ?? hook.name, source: { kind: 'builtin' }, enabled: opts.enabled });
    for (const d of list) builtin.register(d.id, hook);
    defs.push(...list);
    registry.load([...defs, ...extra]);
    return list;
  };
  const addDefinitions = (list: HookDefinition[]) => {
    extra = [...extra, ...list];
    registry.load([...defs, ...extra]);
  };
  return { registry, dispatcher, audit, builtin, add, addDefinitions };
}
