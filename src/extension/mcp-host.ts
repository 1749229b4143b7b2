import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { Tool } from '../core/agent/tools/tool';
import { loadMcpDocument, loadMcpSetting, type LoadedMcpConfig, type McpInput } from '../core/mcp/mcp-config';
import { McpManager, type McpServerStatus } from '../core/mcp/mcp-manager';
import { currentMcpTools } from '../core/mcp/mcp-tool';
import { Disposable } from './lifecycle';
import type { HookpilotLog } from './log';
import { SHOW_MCP_SERVERS, showMcpServers } from './mcp-servers-command';

/** The workspace's MCP files: Claude Code's, then VS Code's. */
const WORKSPACE_FILES = ['.mcp.json', path.join('.vscode', 'mcp.json')];
const SECRET_PREFIX = 'hookpilot.mcp.input.';

export interface McpHostDeps {
  projectDir: () => string | undefined;
  secrets: vscode.SecretStorage;
  log: HookpilotLog;
}

/**
 * The window's MCP servers: the user setting `hookpilot.mcpServers`, and in a trusted
 * workspace `.mcp.json` and `.vscode/mcp.json`. An untrusted workspace starts none of its
 * servers. A change of configuration or trust applies from the next chat on; `${input:…}`
 * values are asked once and kept in SecretStorage. Server stderr goes to the output channel.
 */
export class McpHost extends Disposable {
  /** Also what mcp_tool hooks call. */
  readonly manager: McpManager;
  private started: Promise<void> | undefined;
  private configs: LoadedMcpConfig[] = [];
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly deps: McpHostDeps) {
    super();
    this.manager = new McpManager({
      workspaceFolder: deps.projectDir() ?? process.cwd(),
      env: process.env,
      log: (level, message) => deps.log[level](message),
      resolveInput: (input) => this.resolveInput(input),
    });
    const stale = () => {
      this.started = undefined;
    };
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(stale));
    this._register(vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('hookpilot.mcpServers') && stale()));
    this._register(this.manager.onDidChange(() => this.changed.fire()));
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

  statuses(): McpServerStatus[] {
    return this.manager.statuses();
  }

  restart(name: string): Promise<void> {
    return this.manager.restart(name);
  }

  setEnabled(name: string, enabled: boolean): Promise<void> {
    return this.manager.setEnabled(name, enabled);
  }

  /** The MCP files (even while missing) and the workspace scripts stdio servers run: only a person changes them. */
  protectedPaths(): string[] {
    const dir = this.deps.projectDir();
    const files = dir ? WORKSPACE_FILES.map((f) => path.join(dir, f)) : [];
    for (const config of this.configs) {
      for (const server of config.servers) {
        if (server.transport !== 'stdio' || !dir) continue;
        for (const word of [server.command, ...server.args]) {
          const candidate = path.resolve(dir, word.replaceAll('${workspaceFolder}', dir));
          if (candidate.startsWith(dir + path.sep) && existsSync(candidate)) files.push(candidate);
        }
      }
    }
    return files;
  }

  override dispose(): void {
    super.dispose();
    void this.manager.stop();
  }

  /** Waits until every server is stopped with its process group (window close, deactivate). */
  stop(): Promise<void> {
    return this.manager.stop();
  }

  private async start(): Promise<void> {
    this.configs = this.load();
    for (const problem of this.configs.flatMap((c) => c.problems)) {
      const at = problem.file ? `${problem.file}${problem.line !== undefined ? `:${problem.line}:${problem.column ?? 1}` : ''}` : 'hookpilot.mcpServers';
      this.deps.log.warn(`[mcp] ${at}: ${problem.message}`);
    }
    await this.manager.start(this.configs);
  }

  private load(): LoadedMcpConfig[] {
    // The user's own value only: a workspace's settings cannot add servers.
    const user = vscode.workspace.getConfiguration('hookpilot').inspect<unknown>('mcpServers')?.globalValue;
    const configs = user === undefined ? [] : [loadMcpSetting(user, { kind: 'user' })];
    const dir = this.deps.projectDir();
    if (!dir || !vscode.workspace.isTrusted) return configs;
    for (const file of WORKSPACE_FILES.map((f) => path.join(dir, f))) {
      if (existsSync(file)) configs.push(loadMcpDocument(readFileSync(file, 'utf8'), { kind: 'workspace', file }));
    }
    return configs;
  }

  private async resolveInput(input: McpInput): Promise<string | undefined> {
    const key = SECRET_PREFIX + input.id;
    const stored = await this.deps.secrets.get(key);
    if (stored !== undefined) return stored;
    const value = await vscode.window.showInputBox({
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
