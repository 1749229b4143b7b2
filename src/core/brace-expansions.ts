import braces from 'braces';

/**
 * An upper bound of the number of texts the braces of `pattern` expand to: alternatives add up
 * within a group, groups multiply. A range such as `{1..20}` counts its members.
 */
export function braceExpansionCount(pattern: string): number {
  const groups: Array<{ done: number; current: number; start: number }> = [];
  let current = 1;
  for (let i = 0; i < pattern.length; i += 1) {
    const char = pattern[i];
    if (char === '\\') i += 1;
    else if (char === '{') {
      groups.push({ done: 0, current, start: i + 1 });
      current = 1;
    } else if (char === ',' && groups.length > 0) {
      groups[groups.length - 1].done += current;
      current = 1;
    } else if (char === '}' && groups.length > 0) {
      const group = groups.pop()!;
      const alternatives = group.done === 0 ? rangeSize(pattern.slice(group.start, i)) * current : group.done + current;
      current = group.current * alternatives;
    }
  }
  // Unclosed groups stay literal; counting them as closed only overestimates.
  return groups.reduceRight((count, group) => group.current * (group.done + count), current);
}

function rangeSize(body: string): number {
  const range = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.-?\d+)?$/.exec(body);
  // A `..` in any other form (`{1..300..}`) may still be a range to a reader: no bound is known.
  if (range === null) return body.includes('..') ? Infinity : 1;
  const bound = (end: string) => (/\d/.test(end) ? Number(end) : end.charCodeAt(0));
  return Math.abs(bound(range[2]) - bound(range[1])) + 1;
}

/**
 * The texts a brace expansion (`a{b,c}`, `x{1..3}`) makes of `text`, or undefined when it may
 * make more than `limit`: the count is bounded before anything is expanded.
 */
export function expandBraces(text: string, limit: number): string[] | undefined {
  if (braceExpansionCount(text) > limit) return undefined;
  try {
    const expanded = braces.expand(text);
    return expanded.length > limit ? undefined : expanded;
  } catch {
    // The library refuses some inputs (over its length limit): no expansion is known.
    return undefined;
  }
}
