/** Whether `value` nests objects or arrays more than `max` levels deep, found without recursion. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    if (item.value === null || typeof item.value !== 'object') continue;
    if (item.depth > max) return true;
    for (const child of Object.values(item.value)) stack.push({ value: child, depth: item.depth + 1 });
  }
  return false;
}
