/** Replaces the options of a vscode-single-select: [value, label] pairs, `value` selected. */
export function fillSelect(
  select: HTMLElement & { value: string },
  options: ReadonlyArray<readonly [string, string]>,
  value: string,
): void {
  const children = options.map(([optionValue, label]) => {
    const option = document.createElement('vscode-option');
    option.value = optionValue;
    option.textContent = label;
    option.selected = optionValue === value;
    return option;
  });
  select.replaceChildren(...children);
  select.value = value;
}
