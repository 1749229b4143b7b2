import { describe, expect, it } from 'vitest';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { canonicalJson, withHookIds } from '../../src/core/hooks/config/hook-ids';

const load = (text: string, file = '.vscode/hooks.json') => loadHooksDocument(text, { kind: 'hooksJson', file });

function idsByCommand(text: string, file?: string): Record<string, string> {
  const config = load(text, file);
  expect(config.problems).toEqual([]);
  return Object.fromEntries(config.hooks.map((h) => [h.spec.type === 'command' ? h.spec.command : h.name, h.id]));
}

describe('hook ids', () => {
  const original = `{ "hooks": {
    "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "a" }, { "type": "command", "command": "b" } ] } ],
    "Stop": [ { "type": "command", "command": "c" } ]
  } }`;

  it('are 12 hex digits and survive reordering of events, groups and handlers', () => {
    const before = idsByCommand(original);
    const reordered = idsByCommand(`{ "hooks": {
      // a comment moves every line
      "Stop": [ { "type": "command", "command": "c" } ],
      "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "b" }, { "type": "command", "command": "a" } ] } ]
    } }`);
    expect(Object.values(before).every((id) => /^[0-9a-f]{12}$/.test(id))).toBe(true);
    expect(new Set(Object.values(before)).size).toBe(3);
    expect(reordered).toEqual(before);
  });

  it('survive toggling `enabled` in the file', () => {
    const before = idsByCommand(original);
    const toggled = idsByCommand(original.replace('"command": "a" }', '"command": "a", "enabled": false }'));
    expect(toggled).toEqual(before);
  });

  it('change with the content, the matcher, the event, the source file', () => {
    const before = idsByCommand(original);
    expect(idsByCommand(original.replace('"command": "a"', '"command": "a2"')).a2).not.toBe(before.a);
    expect(idsByCommand(original.replace('"Bash"', '"Write"')).a).not.toBe(before.a);
    expect(idsByCommand(original.replace('"Stop"', '"SessionEnd"')).c).not.toBe(before.c);
    expect(idsByCommand(original, 'other/hooks.json').a).not.toBe(before.a);
  });

  it('are the same for a hook written as a group or as a flat entry', () => {
    const group = load(`{ "hooks": { "PostToolUse": [ { "matcher": "Edit", "hooks": [ { "type": "command", "command": "fmt" } ] } ] } }`);
    const flat = load(`{ "hooks": { "PostToolUse": [ { "type": "command", "matcher": "Edit", "command": "fmt" } ] } }`);
    expect(flat.hooks[0].id).toBe(group.hooks[0].id);
  });

  it('give identical duplicates in one source -2, -3 suffixes in document order', () => {
    const config = load(`{ "hooks": { "Stop": [
      { "type": "command", "command": "same" },
      { "type": "command", "command": "other" },
      { "type": "command", "command": "same" },
      { "type": "command", "command": "same", "enabled": false }
    ] } }`);
    const [first, other, second, third] = config.hooks.map((h) => h.id);
    expect(second).toBe(`${first}-2`);
    expect(third).toBe(`${first}-3`);
    expect(other).not.toContain(first);
  });

  it('are given to hooks built in code with the same rules', () => {
    const draft = {
      name: 'x',
      event: 'Stop' as const,
      priority: 0,
      enabled: true,
      source: { kind: 'session' as const },
      spec: { type: 'command' as const, command: 'x' },
    };
    const [a, b] = withHookIds([draft, { ...draft, enabled: false }]);
    expect(b.id).toBe(`${a.id}-2`);
  });

  it('hash canonical JSON: key order and undefined members do not matter', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: undefined }], c: 3 } })).toBe('{"a":{"c":3,"d":[2,{"f":1}]},"b":1}');
  });
});
