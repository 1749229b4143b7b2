export interface Disposable {
  dispose(): void;
}

/** A minimal typed event emitter; listeners are removed by disposing what `on` returns. */
export class Emitter<T> {
  private listeners: Array<(value: T) => void> = [];

  on(listener: (value: T) => void): Disposable {
    this.listeners = [...this.listeners, listener];
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  }

  fire(value: T): void {
    for (const listener of this.listeners) listener(value);
  }

  get size(): number {
    return this.listeners.length;
  }
}
