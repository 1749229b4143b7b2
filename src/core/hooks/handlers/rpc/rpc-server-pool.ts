import packageJson from '../../../../../package.json';
import type { HookEventName } from '../../events';
import type { HookPayload, ServerDefinition } from '../../types';
import { narrowedEvents, rpcEventModes } from './rpc-hook-definitions';
import { RPC_PROTOCOL_VERSION } from './rpc-protocol';
import { serverEnvironment } from './rpc-server-env';
import { RpcServerSupervisor } from './rpc-server-supervisor';
import {
  DEFAULT_BACKOFF,
  type RpcBackoff,
  type RpcCallFailure,
  type RpcCallResult,
  type RpcCapabilities,
  type RpcLogger,
  type RpcServerStatus,
} from './rpc-types';
import type { Disposable } from '../../../events-emitter';
import { errorMessage } from '../../../error-message';

export interface RpcServerPoolOptions {
  projectDir: string;
  /** Base environment for servers (default: this process's), passed whole as to command hooks. */
  env?: NodeJS.ProcessEnv;
  /** Folders besides the project the agent may write (additional directories). */
  writableRoots?: () => readonly string[];
  logger?: RpcLogger;
  backoff?: Partial<RpcBackoff>;
  /** How long a server may take to answer `initialize`; default 10 s. */
  handshakeTimeoutMs?: number;
  /** Sent in `initialize`. */
  sessionId?: string;
  /** Why the server must not be (re)started (its script changed since it was approved), if so. */
  verifyServer?: (server: ServerDefinition) => string | undefined;
}

export interface RpcServerChange {
  server: string;
  status: RpcServerStatus;
}

const DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;
/** `shutdown` + `exit` get this long before the process group is killed. */
const STOP_GRACE_MS = 1_000;

/** What makes a different process: anything else (events, priority) needs no restart. */
function processKey(server: ServerDefinition): string {
  return JSON.stringify([server.command, server.cwd ?? null, Object.entries(server.env ?? {}).sort()]);
}

interface PoolEntry {
  key: string;
  supervisor: RpcServerSupervisor;
  /** The latest config of the server: its event lists change without a restart. */
  server: ServerDefinition;
}

/**
 * All rpc hook servers of one host, keyed by name. `sync` reconciles them with the config;
 * listeners hear about every status or capability change so the registry can rebuild.
 */
export class RpcServerPool {
  private readonly supervisors = new Map<string, PoolEntry>();
  private readonly listeners = new Set<(change: RpcServerChange) => void>();
  private readonly log: RpcLogger;
  private readonly killOnHostExit = (): void => {
    for (const { supervisor } of this.supervisors.values()) supervisor.killNow();
  };
  private disposed = false;
  private syncing: Promise<void> = Promise.resolve();

  constructor(private readonly options: RpcServerPoolOptions) {
    this.log = options.logger ?? (() => undefined);
    // Detached servers would outlive a host that dies without disposing the pool.
    process.on('exit', this.killOnHostExit);
  }

  /**
   * Starts new, changed or failed enabled servers; stops removed and disabled ones. Calls
   * run one after another, so a reload that overlaps another sees a settled pool.
   */
  sync(servers: ServerDefinition[]): Promise<void> {
    if (this.disposed) return Promise.reject(new Error('RpcServerPool is disposed'));
    const next = this.syncing.then(() => this.reconcile(servers));
    this.syncing = next.catch(() => undefined);
    return next;
  }

  private async reconcile(servers: ServerDefinition[]): Promise<void> {
    if (this.disposed) return;
    const wanted = new Map(servers.map((s) => [s.name, s]));
    const stopping: Array<Promise<void>> = [];
    for (const [name, entry] of this.supervisors) {
      const next = wanted.get(name);
      if (!next || processKey(next) !== entry.key) {
        this.supervisors.delete(name);
        stopping.push(entry.supervisor.stop());
      }
    }
    await Promise.all(stopping);
    for (const server of servers) {
      const entry = this.supervisors.get(server.name) ?? this.add(server);
      entry.server = server;
      if (server.enabled) entry.supervisor.start();
      else await entry.supervisor.stop();
    }
  }

  capabilities(name: string): RpcCapabilities | undefined {
    return this.supervisors.get(name)?.supervisor.capabilities();
  }

  status(name: string): RpcServerStatus | undefined {
    return this.supervisors.get(name)?.supervisor.status();
  }

  /** Recent stderr of the server's newest process, for diagnostics. */
  stderrTail(name: string): string | undefined {
    return this.supervisors.get(name)?.supervisor.stderrTail();
  }

  onDidChange(listener: (change: RpcServerChange) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** How the server takes `event` after its handshake (undefined: not at all, or no handshake yet). */
  modeAfterHandshake(name: string, event: HookEventName): 'intercept' | 'observe' | undefined {
    const entry = this.supervisors.get(name);
    const caps = entry?.supervisor.capabilities();
    if (!entry || !caps) return undefined;
    const { intercept, observe } = rpcEventModes(entry.server, caps);
    if (intercept.includes(event)) return 'intercept';
    return observe.includes(event) ? 'observe' : undefined;
  }

  /** Waits for a (re)starting server's handshake within the deadline. */
  whenReady(server: string, limits: { timeoutMs: number; signal?: AbortSignal }): Promise<{ status: 'ok' } | RpcCallFailure> {
    const entry = this.supervisors.get(server);
    if (!entry) return Promise.resolve({ status: 'error', error: `rpc server "${server}" is not configured` });
    return entry.supervisor.whenReady(limits);
  }

  /** Sends `hook/observe`; returns an error message if the server cannot take it now. */
  notify(server: string, event: HookEventName, payload: HookPayload): string | undefined {
    const entry = this.supervisors.get(server);
    if (!entry) return `rpc server "${server}" is not configured`;
    return entry.supervisor.notify(event, payload);
  }

  /** Sends `hook/intercept`, waiting for a (re)starting server within the same deadline. */
  intercept(
    server: string,
    event: HookEventName,
    payload: HookPayload,
    limits: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<RpcCallResult> {
    const entry = this.supervisors.get(server);
    if (!entry) return Promise.resolve({ status: 'error', error: `rpc server "${server}" is not configured` });
    return entry.supervisor.intercept(event, payload, limits);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.syncing;
    const all = [...this.supervisors.values()];
    this.supervisors.clear();
    await Promise.all(all.map(({ supervisor }) => supervisor.stop()));
    this.listeners.clear();
    process.off('exit', this.killOnHostExit);
  }

  private add(server: ServerDefinition): PoolEntry {
    const supervisor = new RpcServerSupervisor(server, {
      projectDir: this.options.projectDir,
      env: serverEnvironment(this.options.env ?? process.env, server, this.options.projectDir, this.options.writableRoots?.() ?? []),
      log: this.log,
      backoff: { ...DEFAULT_BACKOFF, ...this.options.backoff },
      handshakeTimeoutMs: this.options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS,
      stopGraceMs: STOP_GRACE_MS,
      verify: this.options.verifyServer && (() => this.options.verifyServer?.(server)),
      initialize: {
        protocolVersion: RPC_PROTOCOL_VERSION,
        client: { name: 'hookpilot', version: packageJson.version },
        sessionId: this.options.sessionId,
      },
      onChange: () => this.emit(server.name, supervisor),
      onHandshake: (caps) => this.warnNarrowed(entry.server, caps),
    });
    const entry: PoolEntry = { key: processKey(server), supervisor, server };
    this.supervisors.set(server.name, entry);
    return entry;
  }

  /** A handshake that takes away events the config lists would otherwise unguard them silently. */
  private warnNarrowed(server: ServerDefinition, caps: RpcCapabilities): void {
    const label = `rpc server "${server.name}"`;
    const { dropped, observedOnly } = narrowedEvents(server, caps);
    if (dropped.length > 0)
      this.log('warn', `${label} does not take ${dropped.join(', ')}, which the config lists: those events are not sent to it`);
    if (observedOnly.length > 0)
      this.log(
        'warn',
        `${label} only observes ${observedOnly.join(', ')}, which the config lists to intercept: its answers to those events are not asked for`,
      );
  }

  private emit(name: string, supervisor: RpcServerSupervisor): void {
    const change: RpcServerChange = { server: name, status: supervisor.status() };
    for (const listener of [...this.listeners]) {
      try {
        listener(change);
      } catch (error) {
        this.log('error', `rpc pool listener failed: ${errorMessage(error)}`);
      }
    }
  }
}
