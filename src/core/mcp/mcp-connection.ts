import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator, jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { GroupStdioTransport } from './group-stdio-transport';
import { CallElicitations, type Elicit } from './call-elicitations';
import type { McpServerConfig } from './mcp-config';
import { limitedFetch, MAX_RESULT_DEPTH, sizeText } from './mcp-limits';
import { mcpToolNames } from './mcp-names';
import { listedTool, MAX_LISTING_BYTES, MAX_SCHEMA_CHARS, shownToolName, type ListedTool } from './mcp-tool-listing';
import { errorMessage, toError } from '../error-message';
import { nestedDeeperThan } from '../json-depth';
import { withAgentWritablePathLast } from '../process/path-search-order';
import { untilAborted } from '../until-aborted';

export type McpServerState = 'starting' | 'connected' | 'failed' | 'disabled' | 'stopped';

export interface McpToolInfo {
  server: string;
  /** The tool's own name on its server, cut for showing (shownToolName). */
  name: string;
  /** The tool's whole name on its server: what a call sends. */
  callName: string;
  /** `mcp__<server>__<tool>`: what the model, rules and hooks see. */
  qualifiedName: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The server says the tool only reads (its `readOnlyHint`). */
  readOnly: boolean;
}

export interface ConnectionOptions {
  workspaceFolder: string;
  env: NodeJS.ProcessEnv;
  writableRoots?: () => readonly string[];
  /** Connecting and listing the tools, all pages together; each re-listing has as long. */
  startTimeoutMs: number;
  /** One message from the server (an SSE event, an HTTP body), and what may wait to be written to a stdio server. */
  maxMessageBytes: number;
  /** The least time between the end of one tool listing and a re-listing after tools/list_changed. */
  relistIntervalMs: number;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  onStateChange: () => void;
  /** Answers the server's requests for input (form mode); without it the client does not offer them. */
  elicit?: Elicit;
}

/** Tools listed from one server at most: a server cannot flood the model's tool list. */
const MAX_TOOLS_PER_SERVER = 200;
/** Pages of one tool listing at most: a server whose pages never end (empty ones included) cannot keep us listing. */
const MAX_TOOL_PAGES = 100;

/**
 * What checks a tool's `structuredContent` against its `outputSchema`: nothing. The SDK's
 * default compiles each listed schema with Ajv and runs its `pattern`s as backtracking JS
 * regexes on our thread, so a server's `^(a+)+$` and a crafted result would block the host for
 * minutes (no timeout can fire), and every re-listing compiled and kept more. Hookpilot relies
 * on no shape of `structuredContent`: the model reads it as JSON text, hooks get `content`.
 */
const acceptAnyOutput: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

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
  /** When the latest tool listing ended (performance.now()). */
  private lastListed = 0;
  /** Why we closed the server ourselves (a message over the limit, stdin not read). */
  private fatal?: string;
  private readonly elicitations: CallElicitations;
  /** Aborted by stop() (or a newer start()): the start under way ends and closes what it made. */
  private starting?: AbortController;
  /** The latest start, which stop() waits for. */
  private running: Promise<void> = Promise.resolve();

  constructor(
    readonly config: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.elicitations = new CallElicitations(config.name, (message) => options.log('warn', `[mcp] ${config.name}: ${message}`));
  }

  get name(): string {
    return this.config.name;
  }

  /**
   * Connects and lists the tools; a failure is the state `failed` with the reason, never a throw.
   * stop() ends it wherever it waits (an `${input:…}` answer, the server) and closes what it made.
   */
  start(resolved: () => Promise<McpServerConfig>): Promise<void> {
    this.starting?.abort();
    const stopped = new AbortController();
    this.starting = stopped;
    this.running = this.run(resolved, stopped.signal);
    return this.running;
  }

  private async run(resolved: () => Promise<McpServerConfig>, stopped: AbortSignal): Promise<void> {
    if (this.config.disabled) return this.setState('disabled');
    this.setState('starting');
    this.recentStderr = [];
    this.fatal = undefined;
    let transport: Transport | undefined;
    let made: Client | undefined;
    // Asking a person for an input is not the server's time: the deadline starts after.
    let deadline: Deadline | undefined;
    try {
      const config = await untilAborted(resolved(), stopped, () => toError(stopped.reason));
      stopped.throwIfAborted();
      const timeoutMs = this.options.startTimeoutMs;
      deadline = startDeadline(timeoutMs, `timed out after ${timeoutMs} ms connecting and listing its tools`, stopped);
      transport = this.transport(config);
      this.transportInUse = transport;
      const elicit = this.options.elicit;
      const capabilities = elicit ? { elicitation: { form: {} } } : {};
      const client = new Client({ name: 'hookpilot', version: '0.1.0' }, { capabilities, jsonSchemaValidator: acceptAnyOutput });
      made = client;
      if (elicit)
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => this.elicitations.answer(elicit, request, extra.signal));
      client.onclose = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.fail(this.failureReason() ?? 'the server closed the connection (it exited or dropped the stream)');
      };
      this.client = client;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.toolListChanged(client));
      // One deadline for connecting (an SSE server may never send its endpoint) and every page of
      // the listing; stop() ends it too.
      const signal = deadline.signal;
      await untilAborted(client.connect(transport, { timeout: timeoutMs, signal }), signal, () => toError(signal.reason));
      const listing = await untilAborted(this.listTools(client, signal), signal, () => toError(signal.reason));
      stopped.throwIfAborted();
      this.tools = listing.tools;
      this.error = listing.cut;
      this.lastListed = performance.now();
      this.setState('connected');
      this.options.log('info', `[mcp] ${this.name}: connected, ${this.tools.length} tool(s)`);
    } catch (error) {
      // Stopped: stop() has set the state, and a later start() may own this.client by now.
      if (!stopped.aborted) {
        if (this.client === made) this.client = undefined;
        this.fail(`could not start: ${this.failureReason() ?? errorMessage(error)}`);
      }
      await (made ? made.close() : transport?.close())?.catch(() => undefined);
    } finally {
      deadline?.clear();
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
    const started = performance.now();
    let late: NodeJS.Timeout | undefined;
    this.elicitations.callStarted();
    try {
      const request = { name: tool, arguments: args };
      const result = (await client.callTool(request, undefined, { signal: call.signal, timeout: options.timeoutMs })) as CallToolResult;
      if (nestedDeeperThan(result, MAX_RESULT_DEPTH)) throw new Error(`its result is nested more than ${MAX_RESULT_DEPTH} levels deep`);
      // A call that changed the tool list announced it before its result: the next request offers
      // the new list. The wait has what is left of the call's time; a listing later than that
      // leaves the earlier list for the next request.
      const left = options.timeoutMs - (performance.now() - started);
      await Promise.race([
        this.toolsFresh,
        new Promise((resolve) => call.signal.addEventListener('abort', resolve, { once: true })),
        new Promise((resolve) => (late = setTimeout(resolve, Math.max(0, left)))),
      ]);
      return this.elicitations.shown(result);
    } catch (error) {
      throw this.elicitations.shownError(error);
    } finally {
      this.elicitations.callEnded();
      clearTimeout(late);
      options.signal.removeEventListener('abort', abort);
    }
  }

  /** Stops the server, and a start still under way: once this settles, nothing of either runs. */
  async stop(state: McpServerState = 'stopped'): Promise<void> {
    this.starting?.abort(new Error('stopped while starting'));
    this.starting = undefined;
    this.elicitations.withdraw('the server stopped');
    const client = this.client;
    this.client = undefined;
    this.tools = [];
    this.error = undefined;
    this.fatal = undefined;
    this.setState(state);
    await client?.close().catch(() => undefined);
    await this.running;
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
        maxPendingWriteBytes: this.options.maxMessageBytes,
        onStderr: (line) => {
          this.recentStderr = [...this.recentStderr, line.slice(0, 500)].slice(-3);
          this.options.log('info', `[mcp] ${this.name} stderr: ${line}`);
        },
      });
    }
    const requestInit = { headers: config.headers };
    const url = new URL(config.url);
    let transport: Transport | undefined = undefined;
    // A response over the limit errors its stream, and the server is closed with the reason.
    const fetch = limitedFetch(this.options.maxMessageBytes, (reason) => {
      if (transport) this.closeFor(reason, transport);
    });
    transport =
      config.transport === 'sse'
        ? new SSEClientTransport(url, { requestInit, fetch })
        : new StreamableHTTPClientTransport(url, { requestInit, fetch });
    return transport;
  }

  /** Closes the server for a reason of ours: its state is failed with that reason. */
  private closeFor(reason: string, transport: Transport): void {
    if (this.transportInUse !== transport || this.fatal !== undefined) return;
    this.fatal = reason;
    this.options.log('warn', `[mcp] ${this.name}: ${reason}; closing it`);
    const client = this.client;
    void (client ? client.close() : transport.close()).catch(() => undefined);
  }

  /** Why the server was closed by us rather than by itself, if it was. */
  private failureReason(): string | undefined {
    if (this.fatal !== undefined) return this.fatal;
    return this.transportInUse instanceof GroupStdioTransport ? this.transportInUse.failure : undefined;
  }

  /**
   * notifications/tools/list_changed: the tools are listed again. At most one listing runs and
   * one waits, so a server that floods notifications costs one request at a time; and a
   * re-listing starts no sooner than relistIntervalMs after the last listing ended (the
   * notifications meanwhile are one), so a server that answers each listing with another change
   * cannot keep us busy listing.
   */
  private toolListChanged(client: Client): void {
    if (this.relistQueued) return;
    this.relistQueued = true;
    this.toolsFresh = this.toolsFresh.then(async () => {
      const wait = this.lastListed + this.options.relistIntervalMs - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait).unref());
      this.relistQueued = false;
      if (this.client !== client || this.state !== 'connected') return;
      const timeoutMs = this.options.startTimeoutMs;
      const deadline = startDeadline(timeoutMs, `timed out after ${timeoutMs} ms`);
      try {
        const listing = await untilAborted(this.listTools(client, deadline.signal), deadline.signal, () => toError(deadline.signal.reason));
        if (this.client !== client || this.state !== 'connected') return;
        const { tools, cut } = listing;
        const before = [...this.tools.map((t) => t.qualifiedName), this.error].join('\n');
        this.tools = tools;
        this.error = cut;
        if ([...tools.map((t) => t.qualifiedName), cut].join('\n') === before) return;
        this.options.log('info', `[mcp] ${this.name}: the tool list changed, ${tools.length} tool(s)`);
        this.options.onStateChange();
      } catch (error) {
        this.options.log('warn', `[mcp] ${this.name}: could not list the changed tools (the earlier list stays): ${errorMessage(error)}`);
      } finally {
        deadline.clear();
        this.lastListed = performance.now();
      }
    });
  }

  /**
   * Every page of the tool list, until the server gives no cursor; it stops (with a warning)
   * at MAX_TOOLS_PER_SERVER tools, at MAX_TOOL_PAGES pages, or at a cursor given before. Each
   * tool is cut as its page arrives (listedTool) and the page let go; past MAX_LISTING_BYTES
   * kept the listing stops, and `cut` says so (the server's status shows it).
   */
  private async listTools(client: Client, signal: AbortSignal): Promise<{ tools: McpToolInfo[]; cut?: string }> {
    const listed: ListedTool[] = [];
    let kept = 0;
    let cut: string | undefined;
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      if (pages === MAX_TOOL_PAGES) {
        this.options.log('warn', `[mcp] ${this.name}: its tool list goes on past ${MAX_TOOL_PAGES} pages; the tools of those are offered`);
        break;
      }
      const page = await linked(signal, (pageSignal) =>
        client.listTools(cursor ? { cursor } : undefined, { signal: pageSignal, timeout: this.options.startTimeoutMs }),
      );
      for (const tool of page.tools.slice(0, MAX_TOOLS_PER_SERVER + 1 - listed.length)) {
        const entry = listedTool(tool);
        if (kept + entry.bytes > MAX_LISTING_BYTES) {
          cut = `its tool list is over ${sizeText(MAX_LISTING_BYTES)}: only the ${listed.length} tool(s) listed before that are offered`;
          break;
        }
        kept += entry.bytes;
        listed.push(entry);
      }
      cursor = page.nextCursor;
      if (cut !== undefined || !cursor || listed.length > MAX_TOOLS_PER_SERVER) break;
      if (cursors.has(cursor)) {
        this.options.log('warn', `[mcp] ${this.name}: its tool list gave a page cursor twice; the tools listed until then are offered`);
        break;
      }
      cursors.add(cursor);
    }
    if (cut !== undefined) this.options.log('warn', `[mcp] ${this.name}: ${cut}`);
    if (listed.length > MAX_TOOLS_PER_SERVER)
      this.options.log('warn', `[mcp] ${this.name}: only the first ${MAX_TOOLS_PER_SERVER} tools are offered`);
    const tools = listed.slice(0, MAX_TOOLS_PER_SERVER);
    const bigSchemas = tools.filter((t) => t.schemaReplaced).map((t) => `"${t.name}"`);
    if (bigSchemas.length > 0)
      this.options.log(
        'warn',
        `[mcp] ${this.name}: the input schema of tool(s) ${bigSchemas.join(', ')} is over ${MAX_SCHEMA_CHARS} characters; the model is offered an open object instead`,
      );
    const names = mcpToolNames(
      this.name,
      tools.map((t) => t.callName),
      (tool, name) =>
        this.options.log(
          'warn',
          `[mcp] ${this.name}: tool "${shownToolName(tool)}" has the name of an earlier tool once sanitised; it is offered as ${name}`,
        ),
    );
    const infos = tools.map((t, i): McpToolInfo => ({
      server: this.name,
      name: t.name,
      callName: t.callName,
      qualifiedName: names[i],
      description: t.description,
      inputSchema: t.inputSchema,
      readOnly: t.readOnly,
    }));
    return { tools: infos, cut };
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

/**
 * `request` with a signal of its own that `signal` aborts: the SDK never removes the abort
 * listener it adds, so a listing of many pages would otherwise pile them up on one signal.
 */
async function linked<T>(signal: AbortSignal, request: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const own = new AbortController();
  const abort = () => own.abort(signal.reason);
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  try {
    return await request(own.signal);
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

interface Deadline {
  signal: AbortSignal;
  clear: () => void;
}

/** A signal that aborts with `message` after `ms`, or when `stopped` aborts, unless cleared first. */
function startDeadline(ms: number, message: string, stopped?: AbortSignal): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(message)), ms);
  const stop = () => controller.abort(stopped?.reason);
  stopped?.addEventListener('abort', stop, { once: true });
  const clear = () => {
    clearTimeout(timer);
    stopped?.removeEventListener('abort', stop);
  };
  return { signal: controller.signal, clear };
}
