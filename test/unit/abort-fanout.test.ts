import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/core/hooks/abort-fanout';
import { MAX_TIMER_DELAY_MS, timerDelay } from '../../src/core/timer-delay';

describe('onAbort', () => {
  it('puts one listener on the signal for any number of subscribers, and none once they all left', () => {
    const controller = new AbortController();
    const unsubscribe = Array.from({ length: 20 }, () => onAbort(controller.signal, () => undefined));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const leave of unsubscribe) leave();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('calls every subscriber still there when the signal aborts', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const leaves = [0, 1, 2].map((i) => onAbort(controller.signal, () => called.push(i)));
    leaves[1]();
    controller.abort();
    expect(called).toEqual([0, 2]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('timerDelay', () => {
  it('never gives setTimeout more than 2^31-1 ms, which it would turn into 1 ms', () => {
    expect(timerDelay(2_592_000_000)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(Number.NaN)).toBe(MAX_TIMER_DELAY_MS);
    expect(timerDelay(30_000)).toBe(30_000);
    expect(timerDelay(-5)).toBe(0);
  });
});
