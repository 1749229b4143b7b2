import type { JsonPath, ProblemList } from './config-problems';

/** The longest timeout a configuration may give: a day. Longer is a typo, and overflows Node's timers. */
export const MAX_TIMEOUT_SECONDS = 86_400;
export const MAX_TIMEOUT_MS = MAX_TIMEOUT_SECONDS * 1000;

export type TimeoutUnit = 'seconds' | 'ms';

const MAXIMUM: Record<TimeoutUnit, number> = { seconds: MAX_TIMEOUT_SECONDS, ms: MAX_TIMEOUT_MS };

/**
 * `entry` with every timeout over the maximum lowered to it, each reported as an error.
 * The hook still loads: dropping a guard over its timeout would skip the check it makes.
 */
export function clampTimeouts(
  entry: unknown,
  fields: Readonly<Record<string, TimeoutUnit>>,
  path: JsonPath,
  problems: ProblemList,
): unknown {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return entry;
  let copy: Record<string, unknown> | undefined;
  for (const [field, unit] of Object.entries(fields)) {
    const value = (entry as Record<string, unknown>)[field];
    const max = MAXIMUM[unit];
    if (typeof value !== 'number' || !(value > max)) continue;
    copy ??= { ...(entry as Record<string, unknown>) };
    copy[field] = max;
    const written = unit === 'seconds' ? `${max} s (24 h)` : `${max} ms (24 h)`;
    problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: `"${field}" ${value} is over the maximum of ${written}; ${written} is used instead.`,
      path: [...path, field],
    });
  }
  return copy ?? entry;
}
