import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '../../src/core/agent/tools/tool';
import { toolDefinitions } from '../../src/core/agent/tools/tool-definitions';

function tool(name: string): Tool<{ x?: string }> {
  return {
    name,
    description: `the ${name} tool`,
    category: 'read',
    inputSchema: z.object({ x: z.string().optional() }),
    run: () => Promise.resolve({ ok: true, content: '', response: {} }),
  };
}

describe('toolDefinitions', () => {
  it('gives the same frozen list while the tools stay the same, and a new one when they change', () => {
    const a = tool('A');
    const b = tool('B');
    const first = toolDefinitions([a, b]);
    expect(first.map((d) => d.function.name)).toEqual(['A', 'B']);
    expect(toolDefinitions([a, b])).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    const changed = toolDefinitions([a, b, tool('C')]);
    expect(changed).not.toBe(first);
    expect(changed.map((d) => d.function.name)).toEqual(['A', 'B', 'C']);
    expect(toolDefinitions([b, a]).map((d) => d.function.name)).toEqual(['B', 'A']);
    // Each tool's definition is built once, whatever list it is in.
    expect(toolDefinitions([a])[0]).toBe(first[0]);
  });
});
