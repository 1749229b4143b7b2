import { describe, expect, it } from 'vitest';
import { hooksDocSection } from '../support/hooks-doc';
import { HANDLER_SCHEMAS } from '../../src/core/hooks/config/config-schema';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { buildHooksJsonSchema } from '../../src/core/hooks/config/json-schema';
import { HANDLER_TYPES, type HandlerType } from '../../src/core/hooks/types';
import { convertClaudeHooks } from '../../src/core/import/claude';
import { handlerTarget } from '../../src/shared/manager-view-builders';
import { handlerTypeSchema } from '../../src/shared/manager-views';

// CONTRIBUTING's "Add a handler type" checklist, checked over the one list (HANDLER_TYPES): a
// type that misses one of the places it must be added fails here by name. tsc checks the
// exhaustive switches (HandlerSpec, hook-definition.ts, the engine's handlers).

/** One valid handler of each type, as a user writes it in .vscode/hooks.json. */
const SAMPLE_HANDLERS: Record<HandlerType, Record<string, unknown>> = {
  builtin: { type: 'builtin', builtin: 'AuditLog' },
  command: { type: 'command', command: 'true' },
  rpc: { type: 'rpc', server: 'policy' },
  http: { type: 'http', url: 'http://127.0.0.1:8080/hook' },
  prompt: { type: 'prompt', prompt: 'Is this safe? $ARGUMENTS' },
  agent: { type: 'agent', prompt: 'Check the change. $ARGUMENTS' },
  mcp_tool: { type: 'mcp_tool', server: 'checks', tool: 'review' },
};

// Claude Code's settings have these handler types; the others are Hookpilot's own and have
// nothing to import. A new type fails the partition test until it is placed in one of them.
const CLAUDE_CODE_TYPES: readonly HandlerType[] = ['command', 'http', 'prompt', 'agent', 'mcp_tool'];
const HOOKPILOT_ONLY_TYPES: readonly HandlerType[] = ['builtin', 'rpc'];

function loadSample(type: HandlerType) {
  const document = {
    servers: { policy: { command: ['node', 'policy.js'] } },
    hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [SAMPLE_HANDLERS[type]] }] },
  };
  return loadHooksDocument(JSON.stringify(document), { kind: 'hooksJson', file: '/w/.vscode/hooks.json' });
}

describe('Add a handler type: every type in HANDLER_TYPES is in each place', () => {
  it('HANDLER_SCHEMAS (config-schema.ts) has exactly the types of HANDLER_TYPES', () => {
    expect(Object.keys(HANDLER_SCHEMAS).sort()).toEqual([...HANDLER_TYPES].sort());
  });

  it('each type is either a Claude Code handler type or a Hookpilot-only one, not both', () => {
    expect([...CLAUDE_CODE_TYPES, ...HOOKPILOT_ONLY_TYPES].sort()).toEqual([...HANDLER_TYPES].sort());
  });

  it.each(HANDLER_TYPES)('%s: a hooks.json handler of it loads without problems, with that type', (type) => {
    const loaded = loadSample(type);
    expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(loaded.hooks.map((h) => h.spec.type)).toEqual([type]);
  });

  it.each(HANDLER_TYPES)('%s: the JSON Schema offers it as a handler "type" (json-schema.ts)', (type) => {
    expect(JSON.stringify(buildHooksJsonSchema())).toContain(`"const":"${type}"`);
  });

  it.each(HANDLER_TYPES)('%s: the Hook Manager knows it (manager-views.ts, manager-view-builders.ts)', (type) => {
    expect(handlerTypeSchema.safeParse(type).success).toBe(true);
    const [hook] = loadSample(type).hooks;
    expect(handlerTarget(hook.spec)).toMatch(/\S/);
  });

  it.each(HANDLER_TYPES)('%s: the configuration document of docs/hooks.md has a heading for it', (type) => {
    const headings = hooksDocSection('## The configuration document').match(/\n### .*/g) ?? [];
    expect(headings.filter((h) => h.includes(`\`${type}\``))).toHaveLength(1);
  });

  it.each(CLAUDE_CODE_TYPES)('%s: a Claude Code hook of it is imported as a hook of it (src/core/import/claude.ts)', (type) => {
    const [conversion] = convertClaudeHooks(
      { PreToolUse: [{ matcher: 'Bash', hooks: [SAMPLE_HANDLERS[type]] }] },
      { fileNotes: [], disabled: false },
    );
    expect(conversion.unsupported).toBeUndefined();
    expect(conversion.target?.handler.type).toBe(type);
  });
});
