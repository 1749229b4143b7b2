import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/core/events-emitter';

describe('Emitter', () => {
  it('reports a listener that throws, runs the others, and fire returns normally', () => {
    const errors: unknown[] = [];
    const seen: string[] = [];
    const emitter = new Emitter<number>((error) => errors.push(error));
    emitter.on((n) => seen.push(`first ${n}`));
    emitter.on(() => {
      throw new Error('listener bug');
    });
    emitter.on((n) => seen.push(`last ${n}`));
    expect(() => emitter.fire(1)).not.toThrow();
    expect(seen).toEqual(['first 1', 'last 1']);
    expect(errors).toEqual([new Error('listener bug')]);
  });
});
