import type { AuditSink } from '../audit/records';
import type { CancellationHook } from '../hooks/builtins/cancellation-hook';
import type { HookDispatcher } from '../hooks/dispatcher';
import type { ChatModel } from './llm/chat-model';
import type { ModelRedactor } from './llm/redacting-chat-model';
import type { PermissionSettings, Approver } from './permissions/permission-settings';
import type { SubagentDefinition } from './subagent-definitions';
import type { Tool } from './tools/tool';

/** What a host gives an `AgentSession` (src/cli/composition.ts, src/extension/composition-root.ts). */
export interface AgentSessionOptions {
  sessionId?: string;
  workspaceRoot: string;
  cwd?: string;
  /** The user's home folder, where a permission rule's `~/` starts; default: this process's (os.homedir()). */
  home?: string;
  model: ChatModel;
  modelName: string;
  dispatcher: HookDispatcher;
  approver: Approver;
  permissions: () => PermissionSettings;
  /** Files only a person may let the agent change (hook configs and their scripts). */
  protectedPaths?: () => readonly string[];
  /** Hookpilot's storage folders (with a trailing separator): the agent neither reads nor changes them without a person. */
  privatePaths?: () => readonly string[];
  transcriptDir: string;
  env?: NodeJS.ProcessEnv;
  /** Tools the model is offered; default: all built-ins plus Task. Names listed here are withheld. */
  disallowedTools?: readonly string[];
  maxSteps?: number;
  contextBudgetTokens?: number;
  /** Consecutive Stop blocks honoured before the agent stops anyway (Claude Code: 8). */
  stopHookCap?: number;
  todoGuardCap?: number;
  approvalTimeoutMs?: number;
  persistAllowRule?: (rule: string) => Promise<void>;
  /** Where permission decisions are recorded; default: the dispatcher's audit sink. */
  audit?: AuditSink;
  systemPrompt?: string;
  cancellation?: CancellationHook;
  /**
   * The host's secret registry (the engine's audit redactor): what the model reads and the
   * transcript are redacted with it, and it learns the secrets SessionStart hooks export.
   * Default: token shapes only.
   */
  redactor?: ModelRedactor & { addSecretValue(value: string): void };
  /** Secret-looking variables the Bash tool's shell still inherits (`hookpilot.tools.bash.passEnv`, `--pass-env`). */
  passEnv?: readonly string[];
  /** Variables the user's configuration sends as credentials (http hooks' `allowedEnvVars`), asked at each tool call. */
  secretEnvNames?: () => readonly string[];
  /**
   * More tools for the main agent (MCP servers' tools); subagents do not get them. A function is
   * asked again before each model request: a server's tool list may change mid-session.
   */
  extraTools?: readonly Tool[] | (() => readonly Tool[]);
  /**
   * Custom subagents (`.claude/agents/*.md`) the Task tool offers by `subagent_type`; one is
   * offered an extra (MCP) tool only when its `tools` list names it.
   */
  subagents?: readonly SubagentDefinition[];
  /**
   * The built process-spawner helper: the Bash tool's commands are forked from it (from bash
   * shells it starts ahead of need) instead of from this process, whose forks get slower as
   * a long session grows its memory. Without it, they are forked from here.
   */
  spawnerModulePath?: string;
  /**
   * Load AGENTS.md and CLAUDE.md from the workspace root into the system prompt (InstructionsLoaded
   * fires for each). Default true; an untrusted workspace contributes nothing, so the host says false there.
   */
  projectInstructions?: boolean;
  /**
   * Where a person types the next prompt (the chat): after a turn, once the prompt has waited
   * this long, Notification `idle_prompt` fires (Claude Code: 60 s). Unset: never (a one-shot run).
   */
  idlePromptMs?: number;
}
