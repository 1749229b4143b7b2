import { fillSelect } from './select-options';

/** What each select was last filled with (a select belongs to one tab, so its element is the key). */
const filledWith = new WeakMap<HTMLElement, string>();

/**
 * Refills a select only when its options or value changed: the select reads each option's
 * text back, which costs a layout per option while the rows below are new.
 */
export function refillSelect(
  select: HTMLElement & { value: string },
  options: ReadonlyArray<readonly [string, string]>,
  value: string,
): void {
  const key = JSON.stringify([options, value]);
  if (filledWith.get(select) === key && select.value === value) return;
  filledWith.set(select, key);
  fillSelect(select, options, value);
}
