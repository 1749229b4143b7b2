import { randomUUID } from 'node:crypto';
import {
  killMarkedProcesses,
  killMarkedProcessesAtExit,
  markerEntry,
  RunGroups,
  SESSION_MARKER_VARIABLE,
} from '../process/marked-processes';
import type { AgentEvent } from './agent-events';
import type { AgentSessionOptions } from './agent-session-options';
import type { Compactor } from './compaction';
import type { ChatModel } from './llm/chat-model';
import type { ModelRedactor } from './llm/redacting-chat-model';
import { PermissionGate } from './permissions/permission-gate';
import { physicalOrSelf } from './permissions/protected-targets';
import type { SessionEnvFile } from './session-env-file';
import type { SessionHooks } from './session-hooks';
import { SubagentRunner } from './subagent-runner';
import { baseSystemPrompt } from './system-prompt';
import { createTaskTool } from './task-tool';
import { ToolExecutor } from './tool-executor';
import { BASH_SHELLS_ARG } from '../process/spawner/spawner-protocol';
import { SpawnerProcessRunner } from '../process/spawner/spawner-process-runner';
import { createBuiltinTools } from './tools/builtin-tools';
import type { Transcript } from './transcript';
import type { TodoStore } from './tools/todo-store';
import type { Tool } from './tools/tool';
import { SUBAGENT_TOOL_NAMES } from './tools/tool-catalog';

export interface SessionToolsDeps {
  options: AgentSessionOptions;
  sessionId: string;
  cwd: string;
  /** Where a permission rule's `~/` starts. */
  home: string;
  hooks: SessionHooks;
  /** The model behind the secret boundary: subagents talk to it too. */
  model: ChatModel;
  compactor: Compactor;
  todos: TodoStore;
  envFile: SessionEnvFile;
  redactor: ModelRedactor;
  /** Hears each "Deny for this session" rule (the session keeps it in its transcript). */
  onSessionDeny?: (rule: string) => void;
  /** A subagent's own transcript (see Transcript.subagent). */
  subagentTranscript?: (agentId: string) => Transcript;
  emit: (event: AgentEvent) => void;
}

/**
 * The tools of one session and what runs them: the built-ins, Task (with its subagents) and
 * the host's extra (MCP) tools, minus the withheld ones, through one permission gate.
 */
export class SessionTools {
  /** Runs the main agent's tool calls. */
  readonly executor: ToolExecutor;
  /** Built-ins and Task; `current()` adds the extra tools. */
  private readonly baseTools: Tool[];
  /** What the executor looks calls up in, kept equal to `current()`. */
  private readonly toolsByName = new Map<string, Tool>();
  private readonly withheld: ReadonlySet<string>;
  private readonly bashRunner: SpawnerProcessRunner | undefined;
  /** Every process of the session's Bash calls carries it: they end with the session, or as the host exits. */
  private readonly bashMarker = randomUUID();
  private readonly bashProcesses = markerEntry(SESSION_MARKER_VARIABLE, this.bashMarker);
  /** The process group of each Bash call: what stays in it ends with the session, however fast it forks. */
  private readonly bashGroups = new RunGroups(this.bashProcesses);
  private readonly bashProcessesAtExit = killMarkedProcessesAtExit(this.bashProcesses, this.bashGroups);
  /** The session's permission gate: a resume gives it back the session's deny rules. */
  readonly gate: PermissionGate;

  constructor(private readonly deps: SessionToolsDeps) {
    const { options, cwd, redactor } = deps;
    const gate = new PermissionGate(options.permissions, deps.onSessionDeny);
    this.gate = gate;
    const withheld = new Set(options.disallowedTools ?? []);
    if (options.spawnerModulePath) {
      this.bashRunner = new SpawnerProcessRunner({ modulePath: options.spawnerModulePath, args: [BASH_SHELLS_ARG] });
      this.bashRunner.warmUp();
    }
    const bashSession = {
      marker: this.bashMarker,
      onRunStarted: (pgid: number) => this.bashGroups.started(pgid),
      onRunEnded: (pgid: number) => this.bashGroups.ended(pgid),
    };
    const builtins: Tool[] = createBuiltinTools(deps.todos, this.bashRunner, bashSession);
    const executorFor = (hooks: SessionHooks, tools: ReadonlyMap<string, Tool>) =>
      new ToolExecutor({
        tools,
        hooks,
        gate,
        approver: options.approver,
        gateContext: () => {
          const privatePaths = options.privatePaths?.() ?? [];
          return {
            workspaceRoot: options.workspaceRoot,
            cwd,
            home: deps.home,
            protectedPaths: [...(options.protectedPaths?.() ?? []), ...privatePaths],
            privatePaths,
          };
        },
        toolContext: (signal) => ({
          workspaceRoot: options.workspaceRoot,
          cwd,
          signal,
          env: options.env ?? process.env,
          sessionId: deps.sessionId,
          additionalDirectories: options.permissions().additionalDirectories,
          passEnv: options.passEnv,
          secretEnvNames: options.secretEnvNames?.(),
          redactForModel: (text) => redactor.redactForModel(text),
          withoutSecretStartAtEnd: (text) => redactor.withoutSecretStartAtEnd?.(text) ?? text,
          hiddenFolders: options.privatePaths?.().map((folder) => physicalOrSelf(folder)),
          shellPrelude: deps.envFile.prelude,
        }),
        emit: deps.emit,
        persistAllowRule: options.persistAllowRule,
        approvalTimeoutMs: options.approvalTimeoutMs ?? 10 * 60_000,
        audit: options.audit ?? options.dispatcher.auditSink,
      });
    const subagentTools = builtins.filter((t) => !withheld.has(t.name));
    const subagents = new SubagentRunner({
      parentHooks: deps.hooks,
      model: deps.model,
      modelName: options.modelName,
      tools: subagentTools,
      mcpTools: () => this.extraToolsNow(),
      definitions: options.subagents,
      executorFor,
      compactor: deps.compactor,
      emit: deps.emit,
      maxSteps: options.maxSteps ?? 50,
      stopHookCap: options.stopHookCap ?? 8,
      transcriptFor: deps.subagentTranscript,
      systemPrompt: (tools, instructions) =>
        baseSystemPrompt({
          workspaceRoot: options.workspaceRoot,
          tools,
          extra: ['You are a subagent: do the task you are given and answer with the result.', instructions ?? '']
            .filter(Boolean)
            .join('\n\n'),
        }),
    });
    const task = SUBAGENT_TOOL_NAMES.some((name) => withheld.has(name))
      ? []
      : [createTaskTool((input, signal) => subagents.run(input, signal), options.subagents) as unknown as Tool];
    this.baseTools = [...subagentTools, ...task];
    this.withheld = withheld;
    this.executor = executorFor(deps.hooks, this.toolsByName);
    this.current();
  }

  /** The tools offered now; the executor's lookup follows, so a tool no longer listed cannot be called. */
  current(): readonly Tool[] {
    const tools = [...this.baseTools, ...this.extraToolsNow()];
    this.toolsByName.clear();
    for (const tool of tools) this.toolsByName.set(tool.name, tool);
    return tools;
  }

  /** Stops the Bash tool's spawner helper, if any, and every process the session's Bash calls left running. */
  dispose(): void {
    this.bashRunner?.dispose();
    this.bashGroups.killAll();
    killMarkedProcesses(this.bashProcesses);
    this.bashProcessesAtExit.dispose();
  }

  private extraToolsNow(): readonly Tool[] {
    const extra = this.deps.options.extraTools;
    return (typeof extra === 'function' ? extra() : (extra ?? [])).filter((t) => !this.withheld.has(t.name));
  }
}
