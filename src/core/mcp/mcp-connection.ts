import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';
import { GroupStdioTransport } from './group-stdio-transport';
import type { McpServerConfig } from './mcp-config';
import { mcpToolName } from './mcp-names';
import { errorMessage } from '../error-message';
import { withAgentWritablePathLast } from '../process/path-search-order';

export type McpServerState = 'starting' | 'connected' | 'failed' | 'disabled' | 'stopped';

export interface McpToolInfo {
  server: string;
  /** The tool's own name on its server. */
  name: string;
  /** `mcp__<server>__<tool>`: what the model, rules and hooks see. */
  qualifiedName: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ConnectionOptions {
  workspaceFolder: string;
  env: NodeJS.ProcessEnv;
  writableRoots?: () => readonly string[];
  startTimeoutMs: number;
  maxMessageBytes: number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  onStateChange: () => void;
}

/** Tools listed from one server at most: a server cannot flood the model's tool list. */
const MAX_TOOLS_PER_SERVER = 200;

/** One server: its SDK client, its state, its tools. */
export class McpConnection {
  state: McpServerState = 'stopped';
  error?: string;
  tools: McpToolInfo[] = [];
  private client?: Client;
  private transportInUse?: Transport;
  /** The server's last stderr lines, quoted when it fails. */
  private recentStderr: string[] = [];
  /** Settles once the tool list is re-listed after the latest tools/list_changed. */
  private toolsFresh: Promise<void> = Promise.resolve();
  private relistQueued = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {}

  get name(): string {
    return this.config.name;
  }

  /** Connects and lists the tools; a failure is the state `failed` with the reason, never a throw. */
  async start(resolved: () => Promise<McpServerConfig>): Promise<void> {
    if (this.config.disabled) return this.setState('disabled');
    this.setState('starting');
    this.recentStderr = [];
    let transport: Transport | undefined;
    try {
      const config = await resolved();
      transport = this.transport(config);
      this.transportInUse = transport;
      const client = new Client({ name: 'hookpilot', version: '0.1.0' }, { capabilities: {} });
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.fail('the server closed the connection (it exited or dropped the stream)');
      };
      this.client = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolListChanged(client));
      await client.connect(transport, { timeout: this.options.startTimeoutMs });
      this.tools = await this.listTools(client);
      this.setState('connected');
      this.options.log('info', `[mcp] ${this.name}: connected, ${this.tools.length} tool(s)`);
    } catch (error) {
      const client = this.client;
      this.client = undefined;
      this.fail(`could not start: ${errorMessage(error)}`);
      await (client ? client.close() : transport?.close())?.catch(() => undefined);
    }
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs: number },
  ): Promise<CallToolResult> {
    const client = this.client;
    if (!client || this.state !== 'connected')
      throw new Error(`MCP server "${this.name}" is not connected${this.error ? `: ${this.error}` : ''}`);
    // The SDK never removes its abort listener: each call gets its own signal, unlinked after.
    const call = new AbortController();
    const abort = () => call.abort(options.signal.reason);
    if (options.signal.aborted) abort();
    options.signal.addEventListener('abort', abort, { once: true });
    try {
      const request = { name: tool, arguments: args };
      const result = (await client.callTool(request, undefined, { signal: call.signal, timeout: options.timeoutMs })) as CallToolResult;
      // A call that changed the tool list announced it before its result: the next request offers the new list.
      await Promise.race([this.toolsFresh, new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true }))]);
      return result;
    } finally {
      options.signal.removeEventListener('abort', abort);
    }
  }

  async stop(state: McpServerState = 'stopped'): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.tools = [];
    this.error = undefined;
    this.setState(state);
    await client?.close().catch(() => undefined);
  }

  /** At process exit: a stdio server's process group is killed without waiting. */
  killNow(): void {
    if (this.transportInUse instanceof GroupStdioTransport) this.transportInUse.killNow();
  }

  private transport(config: McpServerConfig): Transport {
    if (config.transport === 'stdio') {
      return new GroupStdioTransport({
        command: config.command,
        args: config.args,
        // A server is the user's own program, like a hook: it gets the environment, with PATH
        // searching the folders the agent can write last, so that `npx` is not the model's.
        env: withAgentWritablePathLast({ ...this.options.env, ...config.env }, [
          this.options.workspaceFolder,
          ...(this.options.writableRoots?.() ?? []),
        ]),
        cwd: config.cwd ?? this.options.workspaceFolder,
        maxMessageBytes: this.options.maxMessageBytes,
        onStderr: (line) => {
          this.recentStderr = [...this.recentStderr, line.slice(0, 500)].slice(-3);
          this.options.log('info', `[mcp] ${this.name} stderr: ${line}`);
        },
      });
    }
    const requestInit = { headers: config.headers };
    const url = new URL(config.url);
    return config.transport === 'sse'
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit });
  }

  /**
   * notifications/tools/list_changed: the tools are listed again. At most one listing runs and
   * one waits, so a server that floods notifications costs one request at a time.
   */
  private toolListChanged(client: Client): void {
    if (this.relistQueued) return;
    this.relistQueued = true;
    this.toolsFresh = this.toolsFresh.then(async () => {
      this.relistQueued = false;
      if (this.client !== client || this.state !== 'connected') return;
      try {
        const tools = await this.listTools(client);
        if (this.client !== client || this.state !== 'connected') return;
        const before = this.tools.map((t) => t.name).join('\n');
        this.tools = tools;
        if (tools.map((t) => t.name).join('\n') === before) return;
        this.options.log('info', `[mcp] ${this.name}: the tool list changed, ${tools.length} tool(s)`);
        this.options.onStateChange();
      } catch (error) {
        this.options.log('warn', `[mcp] ${this.name}: could not list the changed tools (the earlier list stays): ${errorMessage(error)}`);
      }
    });
  }

  private async listTools(client: Client): Promise<McpToolInfo[]> {
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.options.startTimeoutMs });
      out.push(...page.tools.map((t) => this.toolInfo(t)));
      cursor = page.nextCursor;
    } while (cursor && out.length < MAX_TOOLS_PER_SERVER);
    if (out.length > MAX_TOOLS_PER_SERVER)
      this.options.log('warn', `[mcp] ${this.name}: only the first ${MAX_TOOLS_PER_SERVER} tools are offered`);
    return out.slice(0, MAX_TOOLS_PER_SERVER);
  }

  private toolInfo(tool: McpToolDefinition): McpToolInfo {
    return {
      server: this.name,
      name: tool.name,
      qualifiedName: mcpToolName(this.name, tool.name),
      description: tool.description ?? tool.title ?? tool.name,
      inputSchema: tool.inputSchema as Record<string, unknown>,
    };
  }

  private fail(reason: string): void {
    this.tools = [];
    this.error = this.recentStderr.length > 0 ? `${reason} (stderr: ${this.recentStderr.join(' | ')})` : reason;
    this.options.log('error', `[mcp] ${this.name}: ${this.error}`);
    this.setState('failed');
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.options.onStateChange();
  }
}
