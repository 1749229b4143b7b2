import path from 'node:path';
import { homedir } from 'node:os';
import { AuditLog } from '../audit/audit-log';
import { loadEnvFileSecrets, MAX_ENV_BYTES, MAX_ENV_VALUES } from '../audit/env-file-secrets';
import { configSecretValues, httpHookEnvVarNames } from '../config-secrets';
import type { AuditEntry, AuditSink } from '../audit/records';
import { Emitter, type Disposable } from '../events-emitter';
import { agentHookDefinitions } from '../hooks/agent-hook-definitions';
import type { AgentHook } from '../hooks/agent-hook';
import { BuiltinHooks } from '../hooks/builtins/builtin-hooks';
import { BUILTINS_OFF_BY_DEFAULT } from '../hooks/builtins/builtin-names';
import { claudeSettingsFiles } from '../hooks/config/claude-settings';
import type { ConfigProblem } from '../hooks/config/config-problems';
import { emptyConfig, type HookDefaults, type LoadedConfig } from '../hooks/config/loaded-config';
import { mergeConfigs } from '../hooks/config/merge-configs';
import { checkHookScripts } from '../hooks/config/script-diagnostics';
import { HookDispatcher } from '../hooks/dispatcher';
import type { TimeoutDefaults } from '../hooks/hook-timeouts';
import { BuiltinHookHandler } from '../hooks/handlers/builtin-handler';
import { CommandHookHandler } from '../hooks/handlers/command-handler';
import { HttpHookHandler } from '../hooks/handlers/http-handler';
import { McpToolHookHandler } from '../hooks/handlers/mcp-tool-handler';
import { ModelHookHandler, type HookJudge } from '../hooks/handlers/model-hook-handler';
import type { McpManager } from '../mcp/mcp-manager';
import { interceptsPerHandshake, rpcHookDefinitions } from '../hooks/handlers/rpc/rpc-hook-definitions';
import { RpcHookHandler } from '../hooks/handlers/rpc/rpc-hook-handler';
import { RpcServerPool } from '../hooks/handlers/rpc/rpc-server-pool';
import { HookRegistry } from '../hooks/registry';
import { LocalProcessRunner } from '../process/process-runner';
import { SpawnerPool } from '../process/spawner/spawner-pool';
import type { HandlerType, HookDefinition, HookHandler, HookOutcome, HookPayload, HookSource } from '../hooks/types';
import { HookScriptPins } from './hook-script-pins';
import { UntrustedFolder } from './untrusted-folder';
import { userSettingsFilesOf } from './user-settings-files';
import { protectedHookFiles } from './protected-files';
import { scopeHttpHandlers } from './scoped-http-handler';
import { errorMessage } from '../error-message';

export type EngineLogger = (level: 'info' | 'warn' | 'error', message: string) => void;

export interface HookEngineOptions {
  projectDir: string;
  /** audit/, transcripts/, spill/ and summaries/ live here. */
  storageDir: string;
  trusted: boolean;
  enabledOverrides?: Record<string, boolean>;
  env?: NodeJS.ProcessEnv;
  /** Where a hook's `if` rule reads `~/`; default: this process's home folder. */
  home?: string;
  /**
   * Folders besides projectDir the agent may write (the permissions' additional directories):
   * the processes of hooks search PATH folders in them last, as those in the project.
   */
  writableRoots?: () => readonly string[];
  log?: EngineLogger;
  /** Values that must never reach a log (the API key). */
  secretValues?: readonly string[];
  /**
   * The built process-spawner helper: command hooks are spawned from it instead of from this
   * (large) process. Without it they are spawned from this process.
   */
  spawnerModulePath?: string;
  /**
   * false: build the configuration and registry only, starting no process (no rpc server,
   * no spawner helper): read-only commands such as `hooks list`. Default true.
   */
  startProcesses?: boolean;
  /**
   * The user's settings file (VS Code's `User/settings.json`): it governs hooks and
   * permissions and applies live, so it is protected even where it configures nothing yet.
   */
  userSettingsFile?: string;
  /**
   * The empty folder the person's command hooks and rpc servers run in while the workspace is
   * untrusted, instead of the workspace folder; default `<storageDir>/hooks-untrusted-cwd`.
   */
  untrustedCwd?: string;
}

/**
 * The hook engine of one host, wired once: configuration, registry, handlers of every type,
 * dispatcher, built-ins, rpc servers and the audit log. The CLI and the extension both
 * build exactly one of these in their composition root.
 */
export class HookEngine {
  readonly registry: HookRegistry;
  readonly dispatcher: HookDispatcher;
  readonly builtins: BuiltinHooks;
  readonly audit: AuditLog;
  readonly rpcPool: RpcServerPool;
  readonly auditSink: AuditSink;
  private readonly builtinHandler = new BuiltinHookHandler();
  private readonly handlers: Record<HandlerType, HookHandler>;
  private mcp: McpManager | undefined;
  private readonly log: EngineLogger;
  private readonly extraHooks = new Map<string, HookDefinition[]>();
  private config: LoadedConfig = emptyConfig();
  /** The sources as given to the last reload: a change of trust merges them again. */
  private sources: readonly LoadedConfig[] = [];
  private readonly pins: HookScriptPins;
  private protectedFiles: string[];
  private scriptProblems: ConfigProblem[] = [];
  private readonly reloaded = new Emitter<void>();
  private readonly disposables: Disposable[] = [];
  /** What the engine keeps on disk besides the audit log (spill files, summaries) is redacted like it. */
  private readonly redactAtRest = (text: string): string => this.audit.redactor.redactText(text);
  /** Spawns command hooks: through the helpers when there are some, else from here. */
  private readonly processes: SpawnerPool | LocalProcessRunner;
  /** The host's model for prompt and agent hooks; set once a model is configured. */
  private judge: HookJudge | undefined;
  /** Where the person's hooks and servers run while the workspace is untrusted. */
  private readonly untrusted: UntrustedFolder;

  constructor(readonly options: HookEngineOptions) {
    this.log = options.log ?? (() => undefined);
    this.pins = new HookScriptPins(options.projectDir);
    this.untrusted = new UntrustedFolder(
      options.projectDir,
      options.untrustedCwd ?? path.join(options.storageDir, 'hooks-untrusted-cwd'),
      () => this.options.trusted,
    );
    this.audit = new AuditLog({
      dir: path.join(options.storageDir, 'audit'),
      onError: (err, session) => this.log('error', `audit log of ${session}: ${err.message}`),
    });
    for (const secret of options.secretValues ?? []) this.audit.redactor.addSecretValue(secret);
    this.auditSink = { append: (entry: AuditEntry) => this.appendAudit(entry) };
    this.builtins = new BuiltinHooks({
      audit: this.auditSink,
      storageDir: path.join(options.storageDir, 'summaries'),
      redact: this.redactAtRest,
      reportError: (r) => this.log('warn', `[${r.type}] ${r.message}`),
      writableRoots: options.writableRoots,
      secretEnvNames: () => this.credentialEnvNames(),
    });
    this.protectedFiles = this.withUserSettings(protectedHookFiles(options.projectDir, []));
    this.rpcPool = new RpcServerPool({
      projectDir: options.projectDir,
      env: options.env,
      writableRoots: options.writableRoots,
      verifyServer: (server) => this.serverRefusal(server.name),
      logger: (level, message) => this.log(level === 'error' ? 'error' : level === 'warn' ? 'warn' : 'info', message),
    });
    this.processes = options.spawnerModulePath
      ? new SpawnerPool({ modulePath: options.spawnerModulePath, log: (level, message) => this.log(level, message) })
      : new LocalProcessRunner();
    this.handlers = {
      builtin: this.builtinHandler,
      command: new CommandHookHandler({
        spillDir: path.join(options.storageDir, 'spill'),
        redact: this.redactAtRest,
        env: options.env,
        writableRoots: options.writableRoots,
        runner: this.processes,
        verifyScript: (hook) => this.scriptChange(hook.id),
        untrustedCwd: () => this.untrusted.cwd(),
      }),
      rpc: new RpcHookHandler(this.rpcPool, {
        spillDir: path.join(options.storageDir, 'spill'),
        redact: this.redactAtRest,
        refusal: (server) => this.serverRefusal(server),
      }),
      http: new HttpHookHandler({ env: options.env, spillDir: path.join(options.storageDir, 'spill'), redact: this.redactAtRest }),
      prompt: new ModelHookHandler(() => this.judge),
      agent: new ModelHookHandler(() => this.judge),
      mcp_tool: new McpToolHookHandler(() => this.mcp, { spillDir: path.join(options.storageDir, 'spill'), redact: this.redactAtRest }),
    };
    this.registry = new HookRegistry({ trusted: options.trusted, enabledOverrides: options.enabledOverrides });
    this.dispatcher = new HookDispatcher({
      snapshot: () => this.registry.current(),
      handlers: this.handlers,
      projectDir: options.projectDir,
      home: options.home,
      audit: this.auditSink,
    });
    this.disposables.push(this.rpcPool.onDidChange(() => this.rebuild()));
  }

  get problems(): readonly ConfigProblem[] {
    return [...this.config.problems, ...this.scriptProblems];
  }

  get loadedConfig(): LoadedConfig {
    return this.config;
  }

  onDidReload(listener: () => void): Disposable {
    return this.reloaded.on(listener);
  }

  /** Applies configuration sources (user first, then workspace, then hooks.json): one atomic swap. */
  async reload(configs: readonly LoadedConfig[]): Promise<void> {
    // Values in the workspace's .env files are secrets: never written to the audit log.
    const envFiles = await loadEnvFileSecrets(this.options.projectDir, this.audit.redactor).catch((err: unknown) =>
      this.log('warn', `reading .env files: ${String(err)}`),
    );
    if (envFiles && envFiles.cut.length > 0)
      this.log(
        'warn',
        `.env files: past ${MAX_ENV_BYTES / 1024 / 1024} MiB or ${MAX_ENV_VALUES.toLocaleString('en-US')} secret values in all, ${envFiles.cut.map((f) => path.basename(f)).join(', ')} were not read whole: their values are not all redacted from what the model reads`,
      );
    this.sources = [...configs];
    // An untrusted workspace's sources contribute nothing: not even defaults or allowlists.
    this.config = mergeConfigs(configs, { trusted: this.options.trusted });
    // Hooks and servers run as the user, where the model could read what they are given: before any starts.
    for (const secret of configSecretValues(this.config, this.options.env ?? process.env)) this.audit.redactor.addSecretValue(secret);
    this.scriptProblems = [...checkHookScripts(this.config.hooks, this.options.projectDir), ...this.unknownBuiltins()];
    this.pinScripts();
    const config = this.config;
    this.dispatcher.setTimeouts(timeoutsOf(config.defaults), timeoutsOf(config.workspaceDefaults ?? {}));
    // The URL and env allowlists come from configuration, so the http handlers follow it.
    const http = (allowedUrls: string[] | undefined, allowedEnvVars: string[] | undefined) =>
      new HttpHookHandler({
        env: this.options.env,
        allowedUrls,
        allowedEnvVars,
        spillDir: path.join(this.options.storageDir, 'spill'),
        redact: this.redactAtRest,
      });
    const ownVars = config.httpHookAllowedEnvVars;
    this.handlers.http = scopeHttpHandlers(
      {
        managed: http(config.managedHttpHookUrls, config.managedHttpHookAllowedEnvVars),
        own: http(config.allowedHttpHookUrls, ownVars),
        workspace: http(config.allowedHttpHookUrls, config.workspaceHttpHookAllowedEnvVars ?? ownVars),
      },
      config.workspaceHttpHookUrls,
    );
    if (this.startsProcesses) await this.rpcPool.sync(this.untrusted.servers(this.config.servers));
    this.rebuild();
    const commandHooks = this.registry.current().states.some((s) => s.active && s.hook.spec.type === 'command');
    if (commandHooks && this.startsProcesses && this.processes instanceof SpawnerPool) this.processes.warmUp();
    // Errors, and a workspace's value that does not reach the user's hooks: a run must say so.
    for (const p of this.problems.filter((x) => x.severity === 'error' || x.code === 'workspace-only'))
      this.log('warn', `${p.file ?? p.sourceKind}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.message}`);
  }

  setTrusted(trusted: boolean): Promise<void> {
    this.options.trusted = trusted;
    this.registry.setTrusted(trusted);
    // The pins stay: a script the agent changed while the folder was untrusted still needs a person.
    return this.reload(this.sources);
  }

  /**
   * For an engine built with `startProcesses: false` (`hooks test`): starts only the rpc
   * servers that could answer this payload, those with a hook it selects and those that
   * list no intercept events (only their handshake says which), and waits for the latter to answer.
   */
  async startServersFor(payload: HookPayload): Promise<void> {
    const selected = this.registry
      .current()
      .subscribers(payload.hook_event_name, payload.session_id)
      .filter((hook) => this.dispatcher.selects(hook, payload));
    const names = new Set(selected.flatMap((hook) => (hook.spec.type === 'rpc' ? [hook.spec.server] : [])));
    const undeclared = this.config.servers.filter((s) => s.enabled && interceptsPerHandshake(s));
    for (const server of undeclared) names.add(server.name);
    if (names.size === 0) return;
    const settled = () =>
      undeclared.every((s) => ['ready', 'failed', 'stopped'].includes(this.rpcPool.status(s.name)?.state ?? 'not added yet'));
    let listening: Disposable | undefined;
    let timer: NodeJS.Timeout | undefined;
    const handshakes = new Promise<void>((resolve) => {
      listening = this.rpcPool.onDidChange(() => settled() && resolve());
      // A server that keeps crashing is given up on by its supervisor; this only bounds the wait.
      timer = setTimeout(resolve, HANDSHAKE_WAIT_MS);
    });
    try {
      await this.rpcPool.sync(this.untrusted.servers(this.config.servers.filter((server) => names.has(server.name))));
      if (!settled()) await handshakes;
    } finally {
      listening?.dispose();
      clearTimeout(timer);
    }
    this.rebuild();
  }

  /** The file of this hook (or of its rpc server) that changed since it was approved, if any. */
  scriptChange(hookId: string): string | undefined {
    const key = this.pinKeyOf(hookId);
    return key === undefined ? undefined : this.pins.change(key);
  }

  /**
   * The files of this hook (or of its rpc server) that changed since they were approved, relative
   * to the workspace, and the fingerprint `approveScripts` takes; undefined while none changed.
   */
  scriptReview(hookId: string): { files: string[]; fingerprint: string } | undefined {
    const key = this.pinKeyOf(hookId);
    return key === undefined ? undefined : this.pins.review(key);
  }

  /**
   * A person approves the hook's scripts as the Hook Manager listed them ("Re-approve"):
   * refused if they changed since, `fingerprint` being scriptReview's.
   */
  async approveScripts(hookId: string, fingerprint: string): Promise<void> {
    const key = this.pinKeyOf(hookId);
    if (key === undefined) throw new Error(`no command or rpc hook with id ${hookId}`);
    if (!this.pins.approve(key, fingerprint)) {
      const name = this.registry.current().find(hookId)?.hook.name ?? hookId;
      throw new Error(
        `the scripts of "${name}" changed after the Hook Manager listed them, so nothing was approved: read the files it lists now, then re-approve`,
      );
    }
    this.log('info', `scripts of ${hookId} approved as listed: ${this.pins.files(key).join(', ') || '(none)'}`);
    // A server refused for its changed script starts again (sync retries failed servers).
    if (HookScriptPins.isServerKey(key) && this.startsProcesses) await this.rpcPool.sync(this.untrusted.servers(this.config.servers));
    this.rebuild();
  }

  /** The session's MCP servers, which mcp_tool hooks call (they never start one themselves). */
  useMcp(manager: McpManager | undefined): void {
    this.mcp = manager;
  }

  /** The model prompt and agent hooks ask (the host's, behind its secret boundary). */
  useJudge(judge: HookJudge | undefined): void {
    this.judge = judge;
  }

  /** An in-process TypeScript hook from the host or another extension; dispose to remove. */
  addInProcessHook(hook: AgentHook, source: HookSource = { kind: 'builtin' }): Disposable {
    const key = `inproc:${hook.name}:${this.extraHooks.size}`;
    const defs = agentHookDefinitions(hook, { idPrefix: key, source });
    for (const d of defs) this.builtinHandler.register(d.id, hook);
    this.extraHooks.set(key, defs);
    this.rebuild();
    return {
      dispose: () => {
        for (const d of defs) this.builtinHandler.unregister(d.id);
        this.extraHooks.delete(key);
        this.rebuild();
      },
    };
  }

  /** A hook for one session only; gone when the session is cleared. */
  addSessionHook(sessionId: string, hook: AgentHook): void {
    for (const d of agentHookDefinitions(hook, { idPrefix: `session:${sessionId}:${hook.name}`, source: { kind: 'session' } })) {
      this.builtinHandler.register(d.id, hook);
      this.registry.addSessionHook(sessionId, d);
    }
  }

  /** The session ended: its own hooks go, with their in-process code, what the dispatcher kept for it, and its open audit file. */
  clearSession(sessionId: string): void {
    for (const hook of this.registry.clearSession(sessionId)) this.builtinHandler.unregister(hook.id);
    this.dispatcher.forgetSession(sessionId);
    void this.audit.closeSession(sessionId);
  }

  /** The variables http hooks send as credentials: the Bash tool's shell goes without them. */
  credentialEnvNames(): string[] {
    return httpHookEnvVarNames(this.config.hooks);
  }

  /** Files whose change would change the guards: the agent may edit them only with approval. */
  protectedPaths(): string[] {
    return this.protectedFiles;
  }

  /** Test-fire one hook with a sample payload. Untrusted workspace hooks still never run. */
  async testFire(hookId: string, payload: HookPayload, signal?: AbortSignal): Promise<{ hook: HookDefinition; outcome: HookOutcome }> {
    const state = this.registry.current().find(hookId);
    if (!state) throw new Error(`no hook with id ${hookId}`);
    if (!state.trusted)
      throw new Error(`"${state.hook.name}" comes from this workspace, which is not trusted: it does not run in Restricted Mode`);
    const { outcome } = await this.dispatcher.runOne(state.hook, { ...payload, hook_event_name: state.hook.event }, signal);
    return { hook: state.hook, outcome };
  }

  async dispose(): Promise<void> {
    for (const d of this.disposables) d.dispose();
    // Async hooks do not outlive the engine: their process groups are killed, their records kept.
    await this.dispatcher.cancelAsync('the engine stopped');
    // Bounded by AutoCommit's own timeout, unlike the other observers' short drain below.
    await this.builtins.autoCommit.settled();
    this.dispatcher.stopWaitingObservers();
    await this.dispatcher.drain(1_500);
    // After the drain: async hooks still finishing run through it.
    this.processes.dispose();
    await this.rpcPool.dispose();
    await this.audit.close();
  }

  private rebuild(): void {
    const builtinDefs = this.builtins.all().flatMap((hook) => {
      const setting = this.config.builtins[hook.name];
      const enabled = setting?.enabled ?? !BUILTINS_OFF_BY_DEFAULT.has(hook.name);
      const defs = agentHookDefinitions(hook, { idPrefix: `builtin:${hook.name}`, source: { kind: 'builtin' }, enabled });
      for (const d of defs) this.builtinHandler.register(d.id, hook);
      return defs;
    });
    // A config entry `{ "type": "builtin", "builtin": "AuditLog" }` binds that built-in to its event and matcher.
    for (const def of this.config.hooks) {
      if (def.spec.type !== 'builtin') continue;
      const builtin = this.builtins.all().find((h) => h.name === (def.spec as { builtin: string }).builtin);
      if (builtin) this.builtinHandler.register(def.id, builtin);
    }
    const rpcDefs = this.config.servers.flatMap((server) => rpcHookDefinitions(server, this.rpcPool.capabilities(server.name)));
    this.registry.load([...builtinDefs, ...[...this.extraHooks.values()].flat(), ...this.config.hooks, ...rpcDefs], this.config.switches);
    this.reloaded.fire();
  }

  private get startsProcesses(): boolean {
    return this.options.startProcesses ?? true;
  }

  /** Why rpc server `name` must not run now: the untrusted workspace it would run, or its script changed since approved. */
  private serverRefusal(name: string): string | undefined {
    return this.untrusted.refusal(this.config.servers.find((s) => s.name === name)) ?? this.pins.change(HookScriptPins.serverKey(name));
  }

  private pinKeyOf(hookId: string): string | undefined {
    const spec = this.registry.current().find(hookId)?.hook.spec ?? this.config.hooks.find((h) => h.id === hookId)?.spec;
    return HookScriptPins.keyOf(hookId, spec);
  }

  /** The moment a person's configuration is applied: pin what each hook and server runs. */
  private pinScripts(): void {
    const { projectDir } = this.options;
    this.scriptProblems.push(...this.pins.pinAll(this.config.hooks, this.config.servers));
    const configFiles = this.sources.flatMap((config) => (config.source?.file ? [config.source.file] : []));
    this.protectedFiles = this.withUserSettings(protectedHookFiles(projectDir, this.config.hooks, this.config.servers, configFiles));
  }

  /** The user's own configuration applies in every workspace, and live: protected even before it exists. */
  private withUserSettings(files: string[]): string[] {
    const claudeUser = claudeSettingsFiles(undefined, this.options.env?.HOME || homedir()).map((source) => source.file);
    const user = [
      ...(this.options.userSettingsFile === undefined ? [] : userSettingsFilesOf(this.options.userSettingsFile)),
      ...claudeUser,
    ];
    return [...new Set([...files, ...user])];
  }

  /** A `{ "type": "builtin" }` entry naming no built-in would fail on every run: say so now. */
  private unknownBuiltins(): ConfigProblem[] {
    const known = new Set(this.builtins.all().map((h) => h.name));
    return this.config.hooks.flatMap((hook): ConfigProblem[] => {
      if (hook.spec.type !== 'builtin' || known.has(hook.spec.builtin)) return [];
      return [
        {
          severity: 'error',
          code: 'invalid-value',
          message: `there is no built-in hook "${hook.spec.builtin}"; known: ${[...known].join(', ')}`,
          path: hook.source.path ?? '',
          sourceKind: hook.source.kind,
          file: hook.source.file,
          line: hook.source.line,
          column: hook.source.column,
          hookId: hook.id,
        },
      ];
    });
  }

  private appendAudit(entry: AuditEntry): void {
    try {
      this.audit.writerFor(entry.session_id).append(entry);
    } catch (err) {
      this.log('error', `audit: ${errorMessage(err)}`);
    }
  }
}

function timeoutsOf(defaults: HookDefaults): Partial<TimeoutDefaults> {
  return {
    observerMs: defaults.observerTimeoutMs,
    interceptorMs: defaults.interceptorTimeoutMs,
    approvalMs: defaults.approvalTimeoutMs,
    commandMs: defaults.commandTimeoutMs,
  };
}

/** How long `startServersFor` waits for servers that list no intercept events to answer their handshake. */
const HANDSHAKE_WAIT_MS = 15_000;
