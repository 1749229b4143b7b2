import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigurationTarget, Disposable, EventEmitter, Uri, type Diagnostic, type Listener, type ThemeColor } from './vscode-stub-values';
import type * as vscode from 'vscode';

/**
 * A small hand-written stand-in for the `vscode` module (aliased in vitest.config.mts):
 * the part of the API the extension host uses, backed by plain objects that tests drive
 * through `stub` (answer dialogs, change settings or trust, play the webview).
 */

export * from './vscode-stub-values';

/**
 * What a stub of a `vscode` namespace may contain: only members the real API has.
 * `satisfies` makes a member that @types/vscode renamed or removed a type error, instead of a
 * stub that tests pass against and VS Code does not have. (Signatures stay loose: the fakes
 * take the few arguments the extension passes.)
 */
type ApiStub<T> = { [K in keyof T]?: unknown };

export interface MessageItemLike {
  title: string;
}
export type MessageAnswer = string | MessageItemLike | undefined;

/** A withProgress notification while its task runs; `cancel` is the person pressing Cancel. */
export interface ShownProgress {
  title?: string;
  cancellable: boolean;
  done: boolean;
  cancel(): void;
}

export interface ShownMessage {
  level: 'info' | 'warning' | 'error';
  message: string;
  modal: boolean;
  detail?: string;
  items: (string | MessageItemLike)[];
}

export class FakeWebview {
  options: unknown = {};
  html = '';
  readonly cspSource = 'vscode-webview://stub';
  readonly posted: unknown[] = [];
  private readonly received = new EventEmitter<unknown>();
  readonly onDidReceiveMessage = this.received.event;
  postMessage(message: unknown): Promise<boolean> {
    this.posted.push(structuredClone(message));
    return Promise.resolve(true);
  }
  asWebviewUri(uri: Uri): Uri {
    return Uri.from({ scheme: 'vscode-webview-resource', path: uri.path });
  }
  /** Plays the webview sending `message` to the host. */
  send(message: unknown): void {
    this.received.fire(message);
  }
  /** Messages posted so far of one type. */
  ofType<T extends { type: string }>(type: T['type']): T[] {
    return this.posted.filter((m): m is T => typeof m === 'object' && m !== null && (m as { type?: unknown }).type === type);
  }
}

export class FakeWebviewView {
  readonly webview = new FakeWebview();
  private readonly disposed = new EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  visible = true;
  dispose(): void {
    this.disposed.fire();
  }
}

export class FakeWebviewPanel {
  readonly webview = new FakeWebview();
  iconPath: unknown;
  active = true;
  revealed = 0;
  private readonly disposed = new EventEmitter<void>();
  readonly onDidDispose = this.disposed.event;
  private readonly viewState = new EventEmitter<unknown>();
  readonly onDidChangeViewState = this.viewState.event;
  disposedFlag = false;
  constructor(
    readonly viewType: string,
    readonly title: string,
    readonly options: unknown,
  ) {}
  reveal(): void {
    this.revealed++;
  }
  dispose(): void {
    if (this.disposedFlag) return;
    this.disposedFlag = true;
    this.disposed.fire();
  }
}

export class FakeDiagnosticCollection {
  readonly entries = new Map<string, Diagnostic[]>();
  disposed = false;
  constructor(readonly name: string) {}
  set(entries: [Uri, Diagnostic[]][]): void {
    for (const [uri, list] of entries) this.entries.set(uri.fsPath, list);
  }
  get(uri: Uri): Diagnostic[] | undefined {
    return this.entries.get(uri.fsPath);
  }
  clear(): void {
    this.entries.clear();
  }
  dispose(): void {
    this.disposed = true;
  }
}

export class FakeStatusBarItem {
  name = '';
  text = '';
  tooltip: string | undefined;
  command: string | undefined;
  backgroundColor: ThemeColor | undefined;
  visible = false;
  disposed = false;
  constructor(readonly id: string) {}
  show(): void {
    this.visible = true;
  }
  dispose(): void {
    this.disposed = true;
  }
}

export class FakeFileSystemWatcher {
  readonly changed = new EventEmitter<Uri>();
  readonly created = new EventEmitter<Uri>();
  readonly deleted = new EventEmitter<Uri>();
  readonly onDidChange = this.changed.event;
  readonly onDidCreate = this.created.event;
  readonly onDidDelete = this.deleted.event;
  disposed = false;
  constructor(readonly pattern: unknown) {}
  dispose(): void {
    this.disposed = true;
  }
}

/** What showQuickPick and showInputBox were given to show. */
export interface ShownPickItem {
  label: string;
  description?: string;
  detail?: string;
}
export interface ShownPickOptions {
  title?: string;
  placeHolder?: string;
}
export interface ShownInputBox {
  title?: string;
  prompt?: string;
  placeHolder?: string;
  password?: boolean;
  validateInput?: (value: string) => unknown;
}

type ConfigLayers = { globalValue?: unknown; workspaceValue?: unknown; workspaceFolderValue?: unknown };

class StubState {
  folders: { uri: Uri; name: string; index: number }[] = [];
  workspaceFile: Uri | undefined;
  trusted = true;
  readonly config = new Map<string, ConfigLayers>();
  readonly commands = new Map<string, (...args: unknown[]) => unknown>();
  readonly executed: { id: string; args: unknown[] }[] = [];
  readonly messages: ShownMessage[] = [];
  readonly logLines: { level: string; message: string }[] = [];
  readonly viewProviders = new Map<string, { resolveWebviewView(view: FakeWebviewView): unknown }>();
  readonly panels: FakeWebviewPanel[] = [];
  readonly diagnostics: FakeDiagnosticCollection[] = [];
  readonly statusBarItems: FakeStatusBarItem[] = [];
  readonly watchers: FakeFileSystemWatcher[] = [];
  readonly contentProviders = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
  readonly openedDocuments: string[] = [];
  /** The text of each untitled document opened from content (a report shown before a question). */
  readonly untitledContents: string[] = [];
  readonly progress: ShownProgress[] = [];
  readonly registrations = { active: 0 };
  /** Answers showInformation/Warning/ErrorMessage; default: no answer (dismissed). */
  answerMessage: (shown: ShownMessage) => MessageAnswer | Promise<MessageAnswer> = () => undefined;
  /** Answers showQuickPick with one of the items (by label); default: dismissed. */
  answerQuickPick: (items: ShownPickItem[], options: ShownPickOptions) => string | undefined | Promise<string | undefined> = () =>
    undefined;
  answerInputBox: (options: ShownInputBox) => string | undefined = () => undefined;
  answerSaveDialog: () => Uri | undefined = () => undefined;
  readonly configChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  readonly trustGranted = new EventEmitter<void>();
  readonly foldersChanged = new EventEmitter<unknown>();
  readonly documentSaved = new EventEmitter<{ uri: Uri; getText(): string }>();
}

let state = new StubState();

/** Counts what is registered and not yet disposed, to prove deactivate cleans up. */
function tracked(dispose: () => unknown): Disposable {
  state.registrations.active++;
  let done = false;
  return new Disposable(() => {
    if (done) return;
    done = true;
    state.registrations.active--;
    dispose();
  });
}

function layerValue(layers: ConfigLayers | undefined): unknown {
  if (!layers) return undefined;
  return layers.workspaceFolderValue ?? layers.workspaceValue ?? layers.globalValue;
}

function showMessage(level: ShownMessage['level'], message: string, ...rest: unknown[]): Promise<MessageAnswer> {
  const first = rest[0];
  const options =
    typeof first === 'object' && first !== null && !('title' in first) ? (first as { modal?: boolean; detail?: string }) : undefined;
  const items = (options ? rest.slice(1) : rest) as (string | MessageItemLike)[];
  const shown: ShownMessage = { level, message, modal: options?.modal ?? false, detail: options?.detail, items };
  state.messages.push(shown);
  return Promise.resolve(state.answerMessage(shown));
}

export const window = {
  createOutputChannel: (name: string) => {
    const line = (level: string) => (message: string) => state.logLines.push({ level, message });
    const registration = tracked(() => undefined);
    return {
      name,
      info: line('info'),
      warn: line('warn'),
      error: line('error'),
      debug: line('debug'),
      trace: line('trace'),
      appendLine: line('info'),
      show: () => undefined,
      dispose: () => registration.dispose(),
    };
  },
  createStatusBarItem: (id: string) => {
    const item = new FakeStatusBarItem(id);
    state.statusBarItems.push(item);
    const registration = tracked(() => (item.disposed = true));
    return Object.assign(item, { dispose: () => registration.dispose() });
  },
  showInformationMessage: (message: string, ...rest: unknown[]) => showMessage('info', message, ...rest),
  showWarningMessage: (message: string, ...rest: unknown[]) => showMessage('warning', message, ...rest),
  showErrorMessage: (message: string, ...rest: unknown[]) => showMessage('error', message, ...rest),
  showQuickPick: async <T extends ShownPickItem>(items: T[] | Promise<T[]>, options: ShownPickOptions = {}): Promise<T | undefined> => {
    const list = await items;
    const label = await state.answerQuickPick(list, options);
    return list.find((i) => i.label === label);
  },
  showInputBox: (options: ShownInputBox) => Promise.resolve(state.answerInputBox(options)),
  showSaveDialog: () => Promise.resolve(state.answerSaveDialog()),
  showTextDocument: (document: { uri: Uri }) => {
    state.openedDocuments.push(document.uri.fsPath);
    return Promise.resolve({ document });
  },
  registerWebviewViewProvider: (id: string, provider: { resolveWebviewView(view: FakeWebviewView): unknown }) => {
    state.viewProviders.set(id, provider);
    return tracked(() => state.viewProviders.delete(id));
  },
  withProgress: async <R>(
    options: { title?: string; cancellable?: boolean },
    task: (
      progress: { report(value: unknown): void },
      token: { isCancellationRequested: boolean; onCancellationRequested: (listener: Listener<void>) => Disposable },
    ) => Promise<R>,
  ): Promise<R> => {
    const cancelled = new EventEmitter<void>();
    const token = { isCancellationRequested: false, onCancellationRequested: cancelled.event };
    const shown: ShownProgress = {
      title: options.title,
      cancellable: options.cancellable ?? false,
      done: false,
      cancel: () => {
        if (!shown.cancellable || token.isCancellationRequested) return;
        token.isCancellationRequested = true;
        cancelled.fire(undefined);
      },
    };
    state.progress.push(shown);
    try {
      return await task({ report: () => undefined }, token);
    } finally {
      shown.done = true;
    }
  },
  createWebviewPanel: (viewType: string, title: string, _column: unknown, options: unknown) => {
    const panel = new FakeWebviewPanel(viewType, title, options);
    state.panels.push(panel);
    return panel;
  },
} satisfies ApiStub<typeof vscode.window>;

export const workspace = {
  get workspaceFolders() {
    return state.folders.length > 0 ? state.folders : undefined;
  },
  get workspaceFile() {
    return state.workspaceFile;
  },
  get isTrusted() {
    return state.trusted;
  },
  onDidGrantWorkspaceTrust: (listener: Listener<void>) => trackedEvent(state.trustGranted, listener),
  onDidChangeConfiguration: (listener: Listener<{ affectsConfiguration(section: string): boolean }>) =>
    trackedEvent(state.configChanged, listener),
  onDidChangeWorkspaceFolders: (listener: Listener<unknown>) => trackedEvent(state.foldersChanged, listener),
  onDidSaveTextDocument: (listener: Listener<{ uri: Uri; getText(): string }>) => trackedEvent(state.documentSaved, listener),
  getConfiguration: (section: string) => ({
    get: <T>(key: string, fallback?: T): T | undefined => (layerValue(state.config.get(`${section}.${key}`)) as T | undefined) ?? fallback,
    inspect: (key: string) => ({ key: `${section}.${key}`, ...state.config.get(`${section}.${key}`) }),
    update: (key: string, value: unknown, target: ConfigurationTarget) => {
      stub.setConfig(
        `${section}.${key}`,
        value,
        target === ConfigurationTarget.Global
          ? 'globalValue'
          : target === ConfigurationTarget.Workspace
            ? 'workspaceValue'
            : 'workspaceFolderValue',
      );
      return Promise.resolve();
    },
  }),
  createFileSystemWatcher: (pattern: unknown) => {
    const watcher = new FakeFileSystemWatcher(pattern);
    state.watchers.push(watcher);
    const registration = tracked(() => (watcher.disposed = true));
    return Object.assign(watcher, { dispose: () => registration.dispose() });
  },
  registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) => {
    state.contentProviders.set(scheme, provider);
    return tracked(() => state.contentProviders.delete(scheme));
  },
  openTextDocument: (target: Uri | { content: string; language?: string }) => {
    if (target instanceof Uri) return Promise.resolve({ uri: target });
    state.untitledContents.push(target.content);
    return Promise.resolve({ uri: Uri.from({ scheme: 'untitled', path: `Untitled-${state.untitledContents.length}` }) });
  },
  asRelativePath: (file: string) => {
    const folder = state.folders.find((f) => file.startsWith(`${f.uri.fsPath}${path.sep}`));
    return folder ? path.relative(folder.uri.fsPath, file) : file;
  },
} satisfies ApiStub<typeof vscode.workspace>;

function trackedEvent<T>(emitter: EventEmitter<T>, listener: Listener<T>): Disposable {
  const registration = emitter.event(listener);
  return tracked(() => registration.dispose());
}

export const languages = {
  createDiagnosticCollection: (name: string) => {
    const collection = new FakeDiagnosticCollection(name);
    state.diagnostics.push(collection);
    const registration = tracked(() => (collection.disposed = true));
    return Object.assign(collection, { dispose: () => registration.dispose() });
  },
} satisfies ApiStub<typeof vscode.languages>;

export const commands = {
  registerCommand: (id: string, handler: (...args: unknown[]) => unknown) => {
    if (state.commands.has(id)) throw new Error(`command ${id} already registered`);
    state.commands.set(id, handler);
    return tracked(() => state.commands.delete(id));
  },
  executeCommand: async (id: string, ...args: unknown[]): Promise<unknown> => {
    state.executed.push({ id, args });
    const handler = state.commands.get(id);
    return handler ? await handler(...args) : undefined;
  },
  getCommands: () => Promise.resolve([...state.commands.keys()]),
} satisfies ApiStub<typeof vscode.commands>;

/** An in-memory SecretStorage. */
export class FakeSecretStorage {
  readonly values = new Map<string, string>();
  private readonly changed = new EventEmitter<{ key: string }>();
  readonly onDidChange = this.changed.event;
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.values.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.values.set(key, value);
    this.changed.fire({ key });
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.values.delete(key);
    this.changed.fire({ key });
    return Promise.resolve();
  }
}

export class FakeMemento {
  readonly values = new Map<string, unknown>();
  get<T>(key: string, fallback?: T): T | undefined {
    return (this.values.has(key) ? (structuredClone(this.values.get(key)) as T) : undefined) ?? fallback;
  }
  update(key: string, value: unknown): Promise<void> {
    this.values.set(key, structuredClone(value));
    return Promise.resolve();
  }
  keys(): string[] {
    return [...this.values.keys()];
  }
}

/** What tests use to drive the fake VS Code. */
export const stub = {
  get state(): StubState {
    return state;
  },
  reset(): void {
    state = new StubState();
  },
  setWorkspaceFolders(folders: string[]): void {
    state.folders = folders.map((f, index) => ({ uri: Uri.file(f), name: path.basename(f), index }));
  },
  setConfig(key: string, value: unknown, layer: keyof ConfigLayers = 'globalValue'): void {
    state.config.set(key, { ...state.config.get(key), [layer]: value });
    state.configChanged.fire({
      affectsConfiguration: (section) => key === section || key.startsWith(`${section}.`) || section.startsWith(`${key}.`),
    });
  },
  /** The editor saves `text` to `file`: written to disk, then onDidSaveTextDocument (the watcher is the test's to fire). */
  saveDocument(file: string, text: string): void {
    writeFileSync(file, text);
    state.documentSaved.fire({ uri: Uri.file(file), getText: () => text });
  },
  setTrusted(trusted: boolean): void {
    state.trusted = trusted;
    if (trusted) state.trustGranted.fire();
  },
  /** Resolves the webview view registered as `id`, as VS Code does when it is first shown. */
  async resolveView(id: string): Promise<FakeWebviewView> {
    const provider = state.viewProviders.get(id);
    if (!provider) throw new Error(`no webview view provider for ${id}`);
    const view = new FakeWebviewView();
    await provider.resolveWebviewView(view);
    return view;
  },
  /** A fresh ExtensionContext over temp dirs; `subscriptions` are disposed by `disposeContext`. */
  context(storageDir: string, extensionDir: string) {
    return {
      subscriptions: [] as { dispose(): unknown }[],
      secrets: new FakeSecretStorage(),
      workspaceState: new FakeMemento(),
      globalState: new FakeMemento(),
      storageUri: Uri.file(storageDir),
      globalStorageUri: Uri.file(path.join(storageDir, 'global')),
      extensionUri: Uri.file(extensionDir),
      extensionPath: extensionDir,
    };
  },
};
