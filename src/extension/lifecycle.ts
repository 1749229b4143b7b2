import type * as vscode from 'vscode';

/** Anything with a dispose(); the VS Code and the core Disposable both fit. */
export interface IDisposable {
  dispose(): unknown;
}

export function toDisposable(dispose: () => unknown): IDisposable {
  return { dispose };
}

/** Disposes every item, newest first, even when one of them throws; rethrows the first error. */
export function disposeAll(items: IDisposable[]): void {
  let first: unknown;
  while (items.length > 0) {
    const item = items.pop();
    try {
      item?.dispose();
    } catch (error) {
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
}

/**
 * A base class that owns what it registers: every listener, provider and child service is
 * passed through `_register` and disposed with its owner, so nothing outlives the host.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: IDisposable[] = [];
  private disposedFlag = false;

  protected get isDisposed(): boolean {
    return this.disposedFlag;
  }

  protected _register<T extends IDisposable>(value: T): T {
    if (this.disposedFlag) {
      value.dispose();
    } else {
      this.disposables.push(value);
    }
    return value;
  }

  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    disposeAll(this.disposables);
  }
}
