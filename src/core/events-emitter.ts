export interface Disposable {
  dispose(): void;
}

/**
 * A minimal typed event emitter; listeners are removed by disposing what `on` returns. A
 * listener that throws is reported and the others still run: whoever fired (a turn, a
 * reload) never fails because of what a listener (a view, an exporter) did with the event.
 */
export class Emitter<T> {
  private listeners: Array<(value: T) => void> = [];

  constructor(private readonly onListenerError: (error: unknown) => void = reportListenerError) {}

  on(listener: (value: T) => void): Disposable {
    this.listeners = [...this.listeners, listener];
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  fire(value: T): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        this.onListenerError(error);
      }
    }
  }

  get size(): number {
    return this.listeners.length;
  }
}

function reportListenerError(error: unknown): void {
  console.error('hookpilot: an event listener failed:', error);
}
