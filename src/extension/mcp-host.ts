import { createHash } from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Tool } from '../core/agent/tools/tool';
import {
  loadMcpDocument,
  loadMcpSetting,
  type LoadedMcpConfig,
  type McpInput,
  type McpServerConfig,
  type McpSource,
} from '../core/mcp/mcp-config';
import { McpManager, type McpInputScope, type McpManagerOptions } from '../core/mcp/mcp-manager';
import { mcpProtectedFiles, WORKSPACE_MCP_FILES } from '../core/mcp/mcp-protected-files';
import { currentMcpTools } from '../core/mcp/mcp-tool';
import type { McpServerView } from '../shared/manager-views';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import { SHOW_MCP_SERVERS, showMcpServers } from './mcp-servers-command';
import { showInputBox } from './quick-inputs';
import type { SourceText } from './pending-config-guard';

/** `${input:id}` answers in SecretStorage: this prefix and a hash of where they were asked for. */
const SECRET_PREFIX = 'hookpilot.mcp.input.';
/** A person's on/off choice per server name, kept for the workspace like hook toggles. */
const OVERRIDES_KEY = 'hookpilot.mcpEnabledOverrides';
/** At most one change event per this many ms: a server churning its tool list cannot flood the Hook Manager. */
const CHANGE_INTERVAL_MS = 100;
/** Each tool's description is cut for the MCP tab: the model still gets it whole. */
const VIEW_DESCRIPTION_CHARS = 300;

export interface McpHostDeps {
  projectDir: () => string | undefined;
  /** The permissions' additional directories, which the agent may write like the workspace. */
  writableRoots: () => readonly string[];
  secrets: vscode.SecretStorage;
  /** The engine's secret registry: learns the servers' secrets and password answers before they start. */
  redactor: McpManagerOptions['secrets'];
  workspaceState: vscode.Memento;
  log: HookpilotLog;
  /** A server's request for input: the chat's session answers it (its hooks, then the person). */
  elicit: NonNullable<McpManagerOptions['elicit']>;
  /**
   * Where the person's servers run while the workspace is untrusted: an empty folder of
   * Hookpilot's private storage, not the home folder, which holds files no one placed for this
   * (and may be a folder the agent writes). npm looks up from it for a project, and the folders
   * above private storage are the person's own, unlike a folder in the shared temp directory.
   */
  untrustedCwd: string;
  /**
   * A workspace MCP file as applied (pending-config-guard.ts), never as on disk: a change no
   * person made is held there until a person applies it.
   */
  appliedText: (file: string) => SourceText;
  /** The applied configuration may have changed (a person applied or saved a change). */
  onDidChangeApplied: vscode.Event<void>;
}

/**
 * The window's MCP servers: the user setting `hookpilot.mcpServers`, and in a trusted
 * workspace `.mcp.json` and `.vscode/mcp.json`. An untrusted workspace starts none of its
 * servers (the MCP tab lists them as untrusted) and its folder is not the user servers' (see
 * McpManagerOptions.trust); granting trust restarts the servers. The workspace files are read
 * as applied: a change no person made is held until applied, and an applied change restarts the
 * servers; a change of the user setting applies from the next chat on. A person's on/off choice
 * is kept in workspace state; `${input:…}` values are asked once per workspace folder, file and
 * server destination and kept in SecretStorage. A workspace server of a user server's name is refused (McpManager.start).
 * Server stderr goes to the output channel.
 */
export class McpHost extends Disposable {
  /** Also what mcp_tool hooks call. */
  readonly manager: McpManager;
  private started: Promise<void> | undefined;
  private configs: LoadedMcpConfig[] = [];
  /** The workspace's servers while it is untrusted: listed, never started. */
  private untrusted: McpServerConfig[] = [];
  /** The applied texts of the workspace MCP files the servers were last loaded from. */
  private loadedTexts = '';
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires at once, then at most every CHANGE_INTERVAL_MS while changes keep coming (the last one always fires). */
  readonly onDidChange = this.changed.event;
  private lastChange = 0;
  private changeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: McpHostDeps) {
    super();
    this.manager = new McpManager({
      workspaceFolder: deps.projectDir() ?? process.cwd(),
      env: process.env,
      writableRoots: deps.writableRoots,
      log: (level, message) => deps.log[level](message),
      resolveInput: (input, scope) => this.resolveInput(input, scope),
      secrets: deps.redactor,
      elicit: deps.elicit,
      trust: { isTrusted: () => vscode.workspace.isTrusted, untrustedCwd: deps.untrustedCwd },
    });
    const stale = () => {
      this.started = undefined;
    };
    // Servers already running restart with the workspace's own; otherwise they start with the next chat.
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void (this.started && (this.started = this.start()))));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('hookpilot.mcpServers') && stale()));
    this._register(this.manager.onDidChange(() => this.changedSoon()));
    // An applied change to the MCP files restarts servers already running, as a trust grant does.
    this._register(
      deps.onDidChangeApplied(() => void (this.started && this.appliedTexts() !== this.loadedTexts && (this.started = this.start()))),
    );
    this._register(vscode.commands.registerCommand(SHOW_MCP_SERVERS, () => showMcpServers(this, deps.log)));
  }

  /** Starts the servers if the configuration changed since (or nothing started yet); a new chat waits for it. */
  ensureStarted(): Promise<void> {
    this.started ??= this.start();
    return this.started;
  }

  /** The connected servers' tools as listed now (a server may change its list mid-session). */
  tools(): Tool[] {
    return currentMcpTools(this.manager);
  }

  restart(name: string): Promise<void> {
    return this.manager.restart(name);
  }

  /** Turns a server on or off and keeps the choice for this workspace; a workspace server stays off while untrusted. */
  async setEnabled(name: string, enabled: boolean): Promise<void> {
    await this.deps.workspaceState.update(OVERRIDES_KEY, { ...this.overrides(), [name]: enabled });
    if (this.manager.statuses().some((s) => s.name === name)) await this.manager.setEnabled(name, enabled);
    else this.changedSoon();
  }

  /** What the Hook Manager's MCP tab shows: the servers, then an untrusted workspace's that do not run. */
  views(): McpServerView[] {
    const running = this.manager.statuses().map((s): McpServerView => ({
      name: s.name,
      sourceKind: s.source.kind,
      ...(s.source.file ? { file: s.source.file } : {}),
      transport: s.transport,
      state: s.state,
      enabled: s.state !== 'disabled',
      ...(s.error ? { error: s.error } : {}),
      tools: s.tools.map(toolView),
    }));
    const names = new Set(running.map((s) => s.name));
    const overrides = this.overrides();
    const untrusted = this.untrusted
      .filter((s) => !names.has(s.name))
      .map((s): McpServerView => ({
        name: s.name,
        sourceKind: s.source.kind,
        ...(s.source.file ? { file: s.source.file } : {}),
        transport: s.transport,
        state: 'untrusted',
        enabled: overrides[s.name] ?? !s.disabled,
        tools: [],
      }));
    return [...running, ...untrusted];
  }

  /**
   * What decides what the servers run (mcp-protected-files.ts): only a person changes it. An
   * untrusted workspace's servers count too: granting trust starts them as the files then are.
   */
  protectedPaths(): string[] {
    const dir = this.deps.projectDir();
    return dir ? mcpProtectedFiles(dir, [...this.configs.flatMap((config) => config.servers), ...this.untrusted], process.env) : [];
  }

  override dispose(): void {
    clearTimeout(this.changeTimer);
    super.dispose();
    void this.manager.stop();
  }

  /** Waits until every server is stopped with its process group (window close, deactivate). */
  stop(): Promise<void> {
    return this.manager.stop();
  }

  private changedSoon(): void {
    if (this.changeTimer) return;
    const wait = this.lastChange + CHANGE_INTERVAL_MS - Date.now();
    const fire = () => {
      this.changeTimer = undefined;
      this.lastChange = Date.now();
      this.changed.fire();
    };
    if (wait <= 0) fire();
    else this.changeTimer = setTimeout(fire, wait);
  }

  private async start(): Promise<void> {
    this.configs = this.load();
    for (const problem of this.configs.flatMap((c) => c.problems)) {
      const at = problem.file
        ? `${problem.file}${problem.line !== undefined ? `:${problem.line}:${problem.column ?? 1}` : ''}`
        : 'hookpilot.mcpServers';
      this.deps.log.warn(`[mcp] ${at}: ${problem.message}`);
    }
    await this.manager.start(this.configs);
  }

  private load(): LoadedMcpConfig[] {
    // The user's own value only: a workspace's settings cannot add servers.
    const user = vscode.workspace.getConfiguration('hookpilot').inspect<unknown>('mcpServers')?.globalValue;
    const configs = user === undefined ? [] : [loadMcpSetting(user, { kind: 'user' })];
    const workspace: LoadedMcpConfig[] = [];
    for (const file of this.workspaceFiles()) {
      const text = this.deps.appliedText(file);
      if (text !== undefined) workspace.push(loadMcpDocument(text, { kind: 'workspace', file }));
    }
    this.loadedTexts = this.appliedTexts();
    // Untrusted: the files are only read to list their servers; nothing of them starts.
    this.untrusted = vscode.workspace.isTrusted ? [] : workspace.flatMap((c) => c.servers);
    const overrides = this.overrides();
    const enabled = (s: McpServerConfig) => overrides[s.name] ?? !s.disabled;
    const chosen = (c: LoadedMcpConfig): LoadedMcpConfig => ({ ...c, servers: c.servers.map((s) => ({ ...s, disabled: !enabled(s) })) });
    return [...configs, ...(vscode.workspace.isTrusted ? workspace : [])].map(chosen);
  }

  private workspaceFiles(): string[] {
    const dir = this.deps.projectDir();
    return dir ? WORKSPACE_MCP_FILES.map((f) => path.join(dir, f)) : [];
  }

  /** What the servers are loaded from, as one comparable value. */
  private appliedTexts(): string {
    return JSON.stringify(this.workspaceFiles().map((file) => [file, this.deps.appliedText(file) ?? null]));
  }

  private overrides(): Record<string, boolean> {
    const stored = this.deps.workspaceState.get<unknown>(OVERRIDES_KEY);
    if (stored === null || typeof stored !== 'object' || Array.isArray(stored)) return {};
    return Object.fromEntries(Object.entries(stored).filter((entry): entry is [string, boolean] => typeof entry[1] === 'boolean'));
  }

  /**
   * An `${input:id}` answer is kept for the workspace folder, the file that uses it, the id
   * (VS Code scopes its MCP inputs the same way) and what the server sends it to: another
   * workspace or file that declares the same id, or the same file once it points the server
   * elsewhere (a URL, a command), is asked anew and never receives this answer.
   */
  private async resolveInput(input: McpInput, scope: McpInputScope): Promise<string | undefined> {
    const folder = this.deps.projectDir() ?? '';
    const key = inputSecretKey(folder, scope.source, input.id, scope.destination);
    const stored = await this.deps.secrets.get(key);
    if (stored !== undefined) return stored;
    // Kept by id alone, then by folder, file and id: for which server is not known, so neither is handed out.
    await this.deps.secrets.delete(SECRET_PREFIX + input.id);
    await this.deps.secrets.delete(inputSecretKey(folder, scope.source, input.id));
    const value = await showInputBox({
      title: `MCP server input: ${input.id}`,
      prompt: input.description || `A value for \${input:${input.id}}`,
      password: input.password,
      value: input.default,
      ignoreFocusOut: true,
    });
    if (value !== undefined) await this.deps.secrets.store(key, value);
    return value;
  }
}

/**
 * The SecretStorage key of an input's answer: the folder, the file (or the settings kind), the id
 * and the server's destination, hashed. Without a destination it is the key answers were kept
 * under before, which is only ever deleted.
 */
function inputSecretKey(folder: string, source: McpSource, id: string, destination?: string): string {
  const scope = [folder, source.file ?? `${source.kind} settings`, id, ...(destination === undefined ? [] : [destination])];
  return `${SECRET_PREFIX}${createHash('sha256').update(JSON.stringify(scope)).digest('hex')}`;
}

function toolView(tool: { name: string; qualifiedName: string; description: string }): McpServerView['tools'][number] {
  return { name: tool.name, qualifiedName: tool.qualifiedName, description: tool.description.slice(0, VIEW_DESCRIPTION_CHARS) };
}
