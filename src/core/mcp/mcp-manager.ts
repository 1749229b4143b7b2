import { mkdirSync } from 'node:fs';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Emitter, type Disposable } from '../events-emitter';
import { serversByPrecedence, type LoadedMcpConfig, type McpInput, type McpServerConfig, type McpSource } from './mcp-config';
import { McpConnection, type McpServerState, type McpToolInfo } from './mcp-connection';
import type { Elicit } from './call-elicitations';
import { DEFAULT_MAX_MESSAGE_BYTES } from './mcp-limits';
import { expandServer, inputDestination } from './mcp-variables';
import { mcpServerSecretValues } from '../config-secrets';

export interface McpManagerOptions {
  workspaceFolder: string;
  env: NodeJS.ProcessEnv;
  /** Folders besides the workspace the agent may write (additional directories). */
  writableRoots?: () => readonly string[];
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  /**
   * Asks a person for an `${input:id}` value (VS Code); the CLI has none. `scope` says which
   * server it is for: an answer is kept for that, not for every server or file with the id.
   */
  resolveInput?: (input: McpInput, scope: McpInputScope) => Promise<string | undefined>;
  /** Connecting and listing tools, per server; default 30 s. */
  startTimeoutMs?: number;
  /** One tool call, unless the server sets its own `timeout`; default 120 s. */
  callTimeoutMs?: number;
  /**
   * Most bytes of one message from a server (a stdio line, an SSE event, an HTTP body) and of
   * messages waiting to be written to a stdio server; past it that server is closed. Default 16 MiB.
   */
  maxMessageBytes?: number;
  /** The least time between tool listings of one server after tools/list_changed; default 1 s. */
  relistIntervalMs?: number;
  /**
   * The host's secret registry: learns each server's secrets (config-secrets.ts) and the answers to
   * `password` inputs before the server starts, since the model could read them from the running
   * process (`/proc/<pid>/environ`, `ps`).
   */
  secrets?: { addSecretValue(value: string): void };
  /**
   * Answers a server's request for input (MCP elicitation, form mode): the host's session runs
   * its Elicitation hooks and asks a person. Without it servers are told the client cannot.
   */
  elicit?: Elicit;
  /**
   * Whether the workspace is trusted now (VS Code's Restricted Mode); without this it always is
   * (the CLI trusts its workspace). While it is not, it contributes nothing to the servers (the
   * person's own; an untrusted workspace's are not given): one without an absolute `cwd` runs in
   * `untrustedCwd`, and `${workspaceFolder}` or a relative `cwd` or `envFile` fails it.
   */
  trust?: { isTrusted: () => boolean; untrustedCwd: string };
}

/** The server an `${input:id}` answer is for: the file defining it and what the answer is sent to (inputDestination). */
export interface McpInputScope {
  source: McpSource;
  destination: string;
}

export interface McpServerStatus {
  name: string;
  source: McpSource;
  transport: McpServerConfig['transport'];
  state: McpServerState;
  error?: string;
  tools: McpToolInfo[];
}

/**
 * The session's MCP servers: starts them through the SDK's client, lists their tools, calls
 * them with a timeout, and stops them (stdio servers with their whole process group).
 */
export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  private inputs: McpInput[] = [];
  private readonly changed = new Emitter<void>();
  /** start, restart and setEnabled run one at a time, in the order called. */
  private queue: Promise<void> = Promise.resolve();
  /** Counts start() and stop() calls: a start queued behind a later one of them does nothing. */
  private generation = 0;

  constructor(private readonly options: McpManagerOptions) {}

  onDidChange(listener: () => void): Disposable {
    return this.changed.on(listener);
  }

  /**
   * Replaces the servers with these sources' (one per name, by serversByPrecedence: the
   * person's definition of a name is kept, a workspace's of the same name refused) and waits
   * until each is connected or failed.
   */
  start(sources: readonly LoadedMcpConfig[]): Promise<void> {
    // The servers running or still starting stop now: an earlier start waiting for an
    // `${input:…}` answer ends instead of holding this one up.
    const stopped = this.stop();
    const generation = this.generation;
    return this.serially(async () => {
      await stopped;
      if (generation === this.generation) await this.startNow(sources);
    });
  }

  private async startNow(sources: readonly LoadedMcpConfig[]): Promise<void> {
    const { servers, refused } = serversByPrecedence(sources);
    for (const { server, kept } of refused)
      this.options.log(
        'warn',
        `[mcp] Server "${server.name}" is already defined in ${where(kept.source)}; its definition in ${where(server.source)} is ignored.`,
      );
    this.inputs = sources.flatMap((s) => s.inputs);
    // What a file spells out is a secret whether or not its server starts (disabled, or a name
    // taken): the model can read the file. References (`${env:X}`) are registered once expanded.
    for (const server of sources.flatMap((s) => s.servers))
      for (const secret of mcpServerSecretValues(server, this.options.env)) if (!secret.includes('${')) this.addSecret(secret);
    for (const server of servers) this.connections.set(server.name, this.connection(server));
    await Promise.all([...this.connections.values()].map((c) => c.start(() => this.resolve(c.config))));
  }

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => ({
      name: c.name,
      source: c.config.source,
      transport: c.config.transport,
      state: c.state,
      ...(c.error ? { error: c.error } : {}),
      tools: c.tools,
    }));
  }

  /**
   * The tools of every connected server. Names cut at 64 characters may meet: the first keeps
   * its name, so no server's tool can stand in for another's.
   */
  tools(): McpToolInfo[] {
    const seen = new Set<string>();
    return [...this.connections.values()]
      .flatMap((c) => (c.state === 'connected' ? c.tools : []))
      .filter((tool) => {
        if (seen.has(tool.qualifiedName)) return false;
        seen.add(tool.qualifiedName);
        return true;
      });
  }

  async callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    timeoutMs?: number,
  ): Promise<CallToolResult> {
    const connection = this.connections.get(server);
    if (!connection) throw new Error(`no MCP server "${server}" is configured`);
    const timeout = timeoutMs ?? connection.config.timeoutMs ?? this.options.callTimeoutMs ?? 120_000;
    return connection.callTool(tool, args, { signal, timeoutMs: timeout });
  }

  restart(name: string): Promise<void> {
    return this.serially(async () => {
      const connection = this.connections.get(name);
      if (!connection) return;
      await connection.stop();
      // stop() meanwhile took it out: it is no one's to start.
      if (this.connections.get(name) === connection) await connection.start(() => this.resolve(connection.config));
    });
  }

  /** Off stays off across restart (the server's config is replaced); on starts it. */
  setEnabled(name: string, enabled: boolean): Promise<void> {
    return this.serially(async () => {
      const connection = this.connections.get(name);
      if (!connection) return;
      await connection.stop();
      if (this.connections.get(name) !== connection) return;
      const fresh = this.connection({ ...connection.config, disabled: !enabled });
      this.connections.set(name, fresh);
      await fresh.start(() => this.resolve(fresh.config));
    });
  }

  /**
   * Stops every server (and its process group), those still starting too; the manager may be
   * started again. Not queued: it ends a start that waits (for a person's answer, a slow server).
   */
  async stop(): Promise<void> {
    this.generation++;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.stop()));
  }

  /** For a process about to exit (a second Ctrl-C): every stdio server's group is killed now. */
  killNow(): void {
    for (const c of this.connections.values()) c.killNow();
  }

  private serially(work: () => Promise<void>): Promise<void> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private connection(server: McpServerConfig): McpConnection {
    return new McpConnection(server, {
      workspaceFolder: this.options.workspaceFolder,
      env: this.options.env,
      writableRoots: this.options.writableRoots,
      startTimeoutMs: this.options.startTimeoutMs ?? 30_000,
      maxMessageBytes: this.options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
      relistIntervalMs: this.options.relistIntervalMs ?? 1_000,
      log: this.options.log,
      onStateChange: () => this.changed.fire(),
      elicit: this.options.elicit,
    });
  }

  private async resolve(server: McpServerConfig): Promise<McpServerConfig> {
    const ask = this.options.resolveInput;
    const trust = this.options.trust;
    const trusted = trust?.isTrusted() ?? true;
    const known = { workspaceFolder: this.options.workspaceFolder, env: this.options.env };
    const scope = (): McpInputScope => ({ source: server.source, destination: inputDestination(server, known) });
    const answer = async (input: McpInput): Promise<string | undefined> => {
      const value = await ask?.(input, scope());
      if (input.password && value !== undefined) this.addSecret(value);
      return value;
    };
    const workspaceFolder = trusted ? known.workspaceFolder : undefined;
    const expanded = await expandServer(server, { ...known, workspaceFolder, inputs: this.inputs, resolveInput: ask && answer });
    for (const secret of mcpServerSecretValues(expanded)) this.addSecret(secret);
    if (!trust || trusted || expanded.transport !== 'stdio' || expanded.cwd !== undefined) return expanded;
    // Not the workspace folder: there `python -m x` imports the repository's x.py, npx runs its
    // node_modules/.bin and reads its .npmrc.
    mkdirSync(trust.untrustedCwd, { recursive: true, mode: 0o700 });
    return { ...expanded, cwd: trust.untrustedCwd };
  }

  private addSecret(value: string): void {
    this.options.secrets?.addSecretValue(value);
  }
}

function where(source: McpSource): string {
  return source.file ?? `${source.kind} settings`;
}
