/** A small element builder: the UIs are plain DOM, so rows stay cheap to create and update. */

type Child = Node | string | null | undefined | false;

export interface ElementProps {
  class?: string;
  text?: string;
  title?: string;
  attrs?: Record<string, string | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined) el.textContent = props.text;
  if (props.title) el.title = props.title;
  if (props.attrs) for (const [name, value] of Object.entries(props.attrs)) if (value !== undefined) el.setAttribute(name, value);
  if (props.on) {
    for (const [name, listener] of Object.entries(props.on)) el.addEventListener(name, listener as EventListener);
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) el.append(child);
  return el;
}

/** A codicon glyph (the host links codicon.css). */
export function icon(name: string, extraClass = ''): HTMLSpanElement {
  return h('span', { class: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A vscode-button with a label and an optional codicon. */
export function button(
  label: string,
  onClick: () => void,
  options: { icon?: string; secondary?: boolean; title?: string; testId?: string } = {},
): HTMLElement {
  const el = document.createElement('vscode-button');
  el.textContent = label;
  if (options.icon) el.setAttribute('icon', options.icon);
  if (options.secondary) el.setAttribute('secondary', '');
  if (options.title) el.title = options.title;
  if (options.testId) el.dataset.testid = options.testId;
  el.addEventListener('click', () => {
    if (!el.hasAttribute('disabled')) onClick();
  });
  return el;
}

/** An icon-only toolbar button, like those in VS Code's view title bars. */
export function toolbarButton(iconName: string, label: string, onClick: () => void, testId?: string): HTMLElement {
  const el = document.createElement('vscode-toolbar-button');
  el.setAttribute('icon', iconName);
  el.setAttribute('label', label);
  el.title = label;
  if (testId) el.dataset.testid = testId;
  el.addEventListener('click', onClick);
  return el;
}

export function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  return `${Math.floor(ms / 60_000)} m ${Math.round((ms % 60_000) / 1000)} s`;
}

export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
