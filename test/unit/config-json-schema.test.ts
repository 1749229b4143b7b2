import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_ALIASES, HOOK_EVENTS } from '../../src/core/hooks/events';
import { buildHooksJsonSchema, renderHooksJsonSchema } from '../../src/core/hooks/config/json-schema';
import { NESTED_SECTION_KEYS } from '../../src/core/hooks/config/config-schema';
import { BUILTIN_HOOK_NAMES } from '../../src/core/hooks/builtins/builtin-names';

type Schema = Record<string, unknown>;

/** Every `properties` entry anywhere in the schema, with its JSON pointer. */
function allProperties(node: unknown, pointer = '#'): [string, Schema][] {
  if (node === null || typeof node !== 'object') return [];
  const out: [string, Schema][] = [];
  for (const [key, child] of Object.entries(node)) {
    if (key === 'properties' && child && typeof child === 'object') {
      for (const [name, property] of Object.entries(child)) out.push([`${pointer}/properties/${name}`, property as Schema]);
    }
    out.push(...allProperties(child, `${pointer}/${key}`));
  }
  return out;
}

describe('hooks JSON Schema', () => {
  const schema = buildHooksJsonSchema();

  it('is committed up to date in media/hooks.schema.json (run scripts/generate-schema.ts)', () => {
    const committed = readFileSync(resolve(__dirname, '../../media/hooks.schema.json'), 'utf8');
    expect(committed).toBe(renderHooksJsonSchema());
  });

  it('names every built-in hook, as the hookpilot.builtins setting does', () => {
    const manifest = JSON.parse(readFileSync(resolve(__dirname, '../../package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { markdownDescription?: string }> } };
    };
    const setting = manifest.contributes.configuration.properties['hookpilot.builtins']?.markdownDescription ?? '';
    for (const name of BUILTIN_HOOK_NAMES) {
      expect(setting).toContain(`\`${name}\``);
      expect(JSON.stringify(buildHooksJsonSchema())).toContain(name);
    }
  });

  it('is draft-07, which VS Code jsonValidation reads', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
  });

  it('lists every canonical event and alias, and the nested sections of other hook systems, as properties of "hooks"', () => {
    const hooks = (schema.properties as Record<string, Schema>).hooks;
    const names = Object.keys(hooks.properties as Schema);
    expect(names).toEqual([...HOOK_EVENTS, ...Object.keys(EVENT_ALIASES), ...NESTED_SECTION_KEYS]);
  });

  it('describes every property, so VS Code can show a hover for each', () => {
    const properties = allProperties(schema);
    expect(properties.length).toBeGreaterThan(100);
    const undocumented = properties
      .filter(([, property]) => typeof property.description !== 'string' || property.description === '')
      .map(([pointer]) => pointer);
    expect(undocumented).toEqual([]);
  });

  it('closes handler objects so typos show in the editor', () => {
    const definitions = schema.definitions as Record<string, Schema>;
    for (const id of ['commandHandler', 'httpHandler', 'builtinHandler', 'rpcHandler', 'matcherGroup', 'server']) {
      expect(definitions[id].additionalProperties, id).toBe(false);
    }
    expect((definitions.commandHandler.required as string[]).sort()).toEqual(['command', 'type']);
  });

  it("bounds every timeout at 24 h, so the editor flags one that would overflow Node's timers", () => {
    const timeouts = allProperties(schema).filter(([pointer]) =>
      /\/properties\/(timeout|timeout_ms|\w+TimeoutMs|\w+_timeout_ms)$/.test(pointer),
    );
    expect(timeouts.length).toBeGreaterThan(10);
    for (const [pointer, property] of timeouts) {
      expect(property.maximum, pointer).toBe(pointer.endsWith('/timeout') ? 86_400 : 86_400_000);
    }
  });
});
