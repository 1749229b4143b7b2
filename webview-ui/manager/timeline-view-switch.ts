import { h } from '../common/dom';

export type TimelineView = 'trace' | 'table';

const VIEWS: ReadonlyArray<[TimelineView, string]> = [
  ['trace', 'Trace'],
  ['table', 'Table'],
];

/** The timeline's Trace / Table buttons: a group of toggle buttons, the pressed one the view shown. */
export class TimelineViewSwitch {
  readonly el = h('div', { class: 'tl-views', attrs: { role: 'group', 'aria-label': 'Timeline view' } });
  private readonly buttons = new Map<TimelineView, HTMLElement>();

  constructor(onPick: (view: TimelineView) => void) {
    for (const [view, label] of VIEWS) {
      const viewButton = h('button', {
        class: 'tl-view-button',
        text: label,
        attrs: { type: 'button', 'data-testid': `timeline-view-${view}` },
        on: { click: () => onPick(view) },
      });
      this.buttons.set(view, viewButton);
      this.el.append(viewButton);
    }
  }

  /** Shows `view`'s button pressed and the others not. */
  mark(shown: TimelineView): void {
    for (const [view, viewButton] of this.buttons) {
      viewButton.setAttribute('aria-pressed', String(view === shown));
      viewButton.classList.toggle('is-active', view === shown);
    }
  }
}
