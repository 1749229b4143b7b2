import path from 'node:path';
import type * as vscode from 'vscode';

/** The value types of the `vscode` stub (see vscode-stub.ts): plain classes and enums. */

export type Listener<T> = (value: T) => unknown;

export class Disposable {
  constructor(private readonly callOnDispose: () => unknown) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.callOnDispose();
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => (this.listeners = this.listeners.filter((l) => l !== listener)));
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  get listenerCount(): number {
    return this.listeners.length;
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
  ) {}
  static file(fsPath: string): Uri {
    return new Uri('file', path.resolve(fsPath));
  }
  static from(parts: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(parts.scheme, parts.path ?? '', parts.query ?? '');
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments), base.query);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}://${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: number | Position, b: number | Position, c?: number, d?: number) {
    this.start = typeof a === 'number' ? new Position(a, b as number) : a;
    this.end = typeof a === 'number' ? new Position(c ?? 0, d ?? 0) : (b as Position);
  }
}

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class RelativePattern {
  constructor(
    readonly base: unknown,
    readonly pattern: string,
  ) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}
export enum ViewColumn {
  Active = -1,
  One = 1,
}
export enum ProgressLocation {
  Notification = 15,
}

/** True when every member of a stub enum exists in the real one with the same value. */
type SameMember<S, R> = `${S & number}` extends `${R & number}` ? true : false;
type SameMembers<Stub, Real> = { [K in keyof Stub]: K extends keyof Real ? SameMember<Stub[K], Real[K]> : false }[keyof Stub];
type Assert<T extends true> = T;
/** A stub enum that drifted from @types/vscode (renamed member, other value) fails tsc here. */
export type StubEnumsMatchTheApi = Assert<
  | SameMembers<typeof StatusBarAlignment, typeof vscode.StatusBarAlignment>
  | SameMembers<typeof ConfigurationTarget, typeof vscode.ConfigurationTarget>
  | SameMembers<typeof QuickPickItemKind, typeof vscode.QuickPickItemKind>
  | SameMembers<typeof ViewColumn, typeof vscode.ViewColumn>
  | SameMembers<typeof ProgressLocation, typeof vscode.ProgressLocation>
  | SameMembers<typeof DiagnosticSeverity, typeof vscode.DiagnosticSeverity>
>;

/** The public members a stub class has that the real class lacks, besides test-only helpers named here. */
type ExtraMembers<Stub, Real, Helpers extends PropertyKey = never> = Exclude<keyof Stub, keyof Real | Helpers>;
type AssertNone<T extends never> = T;
/** A stub class member (instance or static) that @types/vscode renamed or removed fails tsc here. */
export type StubClassesMatchTheApi = [
  AssertNone<ExtraMembers<Disposable, vscode.Disposable>>,
  AssertNone<ExtraMembers<typeof Disposable, typeof vscode.Disposable, 'prototype'>>,
  AssertNone<ExtraMembers<EventEmitter<unknown>, vscode.EventEmitter<unknown>, 'listenerCount'>>,
  AssertNone<ExtraMembers<Uri, vscode.Uri>>,
  AssertNone<ExtraMembers<typeof Uri, typeof vscode.Uri, 'prototype'>>,
  AssertNone<ExtraMembers<Position, vscode.Position>>,
  AssertNone<ExtraMembers<Range, vscode.Range>>,
  AssertNone<ExtraMembers<Diagnostic, vscode.Diagnostic>>,
  AssertNone<ExtraMembers<ThemeColor, vscode.ThemeColor>>,
  AssertNone<ExtraMembers<ThemeIcon, vscode.ThemeIcon>>,
  AssertNone<ExtraMembers<RelativePattern, vscode.RelativePattern>>,
];

export class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.cancelled.event };

  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }

  dispose(): void {
    this.cancelled.dispose();
  }
}
