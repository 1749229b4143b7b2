import { describe, expect, it } from 'vitest';
import { MiddleCutLines, truncateMiddle } from '../../src/core/agent/tools/output-limits';

describe('MiddleCutLines', () => {
  it('shows exactly what truncateMiddle shows of the joined lines, at every size around the cap', () => {
    for (const lineLength of [0, 1, 7, 40, 120]) {
      for (let count = 0; count < 60; count += 1) {
        const lines = Array.from({ length: count }, (_, i) => `${i}`.padEnd(lineLength, 'x'));
        const cut = new MiddleCutLines(200);
        for (const line of lines) cut.add(line);
        expect(cut.text()).toBe(truncateMiddle(lines.join('\n'), 200));
        expect(cut.count).toBe(count);
        expect(cut.cut).toBe(lines.join('\n').length > 200);
      }
    }
  });

  it('keeps the tail right across many dropped lines', () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `line ${i}`);
    const cut = new MiddleCutLines();
    for (const line of lines) cut.add(line);
    expect(cut.text()).toBe(truncateMiddle(lines.join('\n')));
  });
});
