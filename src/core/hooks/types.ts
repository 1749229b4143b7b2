import type { ElicitationAction } from './payloads';
import type { HookEventName } from './events';

/**
 * Where a hook was defined. Workspace-sourced hooks run only in a trusted workspace. The
 * claude* kinds are Claude Code's settings files read in place; `managed` is the machine's policy.
 */
export const HOOK_SOURCE_KINDS = [
  'user',
  'workspace',
  'folder',
  'hooksJson',
  'builtin',
  'session',
  'cli',
  'claudeUser',
  'claudeProject',
  'claudeLocal',
  'managed',
] as const;
export type HookSourceKind = (typeof HOOK_SOURCE_KINDS)[number];

export interface HookSource {
  kind: HookSourceKind;
  /** File the hook came from, when it came from a file. */
  file?: string;
  /** 1-based position of the handler entry in that file. */
  line?: number;
  column?: number;
  /** JSON path of the entry, e.g. `hooks.PreToolUse[0].hooks[1]`; also for settings values. */
  path?: string;
}

/** Every handler type: the one list that schemas, records and views derive theirs from. */
export const HANDLER_TYPES = ['builtin', 'command', 'rpc', 'http', 'prompt', 'agent', 'mcp_tool'] as const;
export type HandlerType = (typeof HANDLER_TYPES)[number];
export type FailurePolicy = 'continue' | 'block';

export type HandlerSpec =
  | {
      type: 'command';
      /** Shell form (`sh -c`) unless `args` is given, then exec form without a shell. */
      command: string;
      args?: string[];
      cwd?: string;
      env?: Record<string, string>;
      /** Fire-and-forget: started, not awaited; decisions ignored, context delivered later. */
      async?: boolean;
      /** Claude Code's `asyncRewake` (implies async): exit 2 brings its stderr to the model at once. */
      asyncRewake?: boolean;
      /** `lastLine`: the JSON answer is stdout's last non-empty line (AtomCode); default: the whole of stdout. */
      stdoutJson?: 'whole' | 'lastLine';
    }
  | { type: 'http'; url: string; method?: 'POST' | 'PUT' | 'PATCH'; headers?: Record<string, string>; allowedEnvVars?: string[] }
  | {
      type: 'rpc';
      server: string;
      mode: 'observe' | 'intercept';
      /** Registered before the server's first handshake: waits for it, then does what it announced for the event. */
      provisional?: boolean;
    }
  | {
      type: 'builtin';
      builtin: string;
      options?: Record<string, unknown>;
      /** AstroResearch's AsyncAgentHook: fire-and-forget like an async command hook. */
      async?: boolean;
    }
  /** Claude Code's prompt hook: one model call judges the event; `$ARGUMENTS` is the payload JSON. */
  | { type: 'prompt'; prompt: string; model?: string; continueOnBlock?: boolean }
  /** Claude Code's agent hook: a subagent with read-only tools investigates, then judges. */
  | { type: 'agent'; prompt: string; model?: string }
  /** Claude Code's mcp_tool hook: a tool of a connected MCP server; `input` strings may name payload fields (`${tool_input.file_path}`). */
  | { type: 'mcp_tool'; server: string; tool: string; input?: Record<string, unknown> };

/** Claude Code's PermissionRequest `updatedPermissions` entry that adds rules (other kinds are kept as given). */
export interface PermissionUpdate {
  type: string;
  rules?: Array<{ toolName: string; ruleContent?: string }>;
  behavior?: 'allow' | 'deny' | 'ask';
  destination?: string;
}

/** One resolved, immutable hook: a handler bound to one event. */
export interface HookDefinition {
  /** Stable across reloads: derived from source, event and handler content. */
  id: string;
  name: string;
  description?: string;
  event: HookEventName;
  /** Group matcher (Claude Code rules): tool name, source, trigger, ... by event. */
  matcher?: string;
  /** Argument filters (AstroResearch's `content_patterns`): `key:substring` or a substring of the JSON. */
  contentPatterns?: string[];
  /** Claude Code's `if` permission-rule filter, e.g. `Bash(git *)`. */
  if?: string;
  /** Claude Code's spinner text while the hook runs. */
  statusMessage?: string;
  /** Claude Code's `once`: runs at most once per session. */
  once?: boolean;
  priority: number;
  onFailure?: FailurePolicy;
  /** Milliseconds; undefined means the default for the event kind and handler type. */
  timeoutMs?: number;
  /** Default enabled state from the config; the user's toggle overrides it. */
  enabled: boolean;
  source: HookSource;
  spec: HandlerSpec;
  /**
   * Registered as `approve_tool` (the PicoClaw-style approval interceptor): a PermissionRequest hook
   * consulted for every call that would run, not only when a person would be asked.
   */
  everyCall?: boolean;
}

/** A long-lived JSON-RPC hook process (PicoClaw's `processes`). */
export interface ServerDefinition {
  name: string;
  command: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Events declared in config; the handshake may narrow them. Empty = take the handshake's. */
  observe: HookEventName[];
  intercept: HookEventName[];
  timeoutMs?: number;
  enabled: boolean;
  priority: number;
  /** Its `intercept` list names `approve_tool`: its PermissionRequest hook sees every call (HookDefinition.everyCall). */
  approveEveryCall?: boolean;
  onFailure?: FailurePolicy;
  source: HookSource;
}

/** The JSON a hook receives, in Claude Code's snake_case form. */
export interface HookPayload {
  hook_event_name: HookEventName;
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode?: string;
  [key: string]: unknown;
}

export interface HookInvocation {
  hook: HookDefinition;
  payload: HookPayload;
  /** Aborted when the hook times out or the turn is cancelled. */
  signal: AbortSignal;
  timeoutMs: number;
  /** The workspace root, exported as CLAUDE_PROJECT_DIR and HOOKPILOT_PROJECT_DIR. */
  projectDir: string;
  /** Variables the dispatch adds for command hooks (SessionStart's CLAUDE_ENV_FILE). */
  env?: Readonly<Record<string, string>>;
}

/** What a hook asked for, normalized from any handler type. */
export interface HookEffects {
  /** PreToolUse: allow | deny | ask | defer. Block-style events: block. */
  decision?: 'allow' | 'deny' | 'ask' | 'defer' | 'block';
  reason?: string;
  /** `continue: false`: end the session after this hook. */
  stop?: { reason?: string };
  systemMessage?: string;
  additionalContext?: string;
  updatedInput?: Record<string, unknown>;
  updatedToolOutput?: unknown;
  /** PermissionRequest answer (Claude Code `hookSpecificOutput.decision`). */
  permission?: {
    behavior: 'allow' | 'deny' | 'ask';
    updatedInput?: Record<string, unknown>;
    message?: string;
    interrupt?: boolean;
    updatedPermissions?: PermissionUpdate[];
  };
  /** PermissionDenied: ask the model to retry. */
  retry?: boolean;
  /** BeforeLLM / AfterLLM rewrites (PicoClaw's `modify`). */
  llmRequest?: Record<string, unknown>;
  llmResponse?: Record<string, unknown>;
  /** PicoClaw's abort: the turn, or a hard abort of the session. */
  abort?: 'turn' | 'hard';
  metadata?: Record<string, unknown>;
  warnings?: string[];
  /** PostToolUse / PostToolUseFailure (AstroResearch's Warning `truncate_output`): the model sees a shortened output. */
  truncateOutput?: boolean;
  /** PostToolUse (AstroResearch's PermissionRequired): the call that ran needed this permission; advisory. */
  permissionRequired?: { permission: string; toolName?: string };
  /** SessionStart / FileChanged (Claude Code): the files FileChanged watches besides its matchers' names. */
  watchPaths?: string[];
  /** Elicitation / ElicitationResult (Claude Code): the answer to an MCP server's request for input, or a change to it. */
  elicitation?: { action?: ElicitationAction; content?: Record<string, unknown> };
}

export interface HookTrace {
  durationMs: number;
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  signal?: string | null;
  /** Output was cut at the cap. */
  truncated?: boolean;
  /** prompt and agent hooks: the model asked and the tokens it used. */
  model?: string;
  tokens?: { prompt: number; completion: number; total: number };
}

export type HookOutcome =
  | { status: 'success'; effects: HookEffects; trace: HookTrace }
  /** Exit 2 (or an explicit blocking error): blocks where the event allows it. */
  | { status: 'blocking-error'; reason: string; effects: HookEffects; trace: HookTrace }
  /** Crash, bad output, non-zero exit without valid JSON, spawn failure, non-2xx. */
  | { status: 'error'; error: string; trace: HookTrace }
  | { status: 'timeout'; error: string; trace: HookTrace }
  | { status: 'cancelled'; trace: HookTrace };

/** Runs hooks of one handler type. */
export interface HookHandler {
  run(invocation: HookInvocation): Promise<HookOutcome>;
  /**
   * In-process fast path: the outcome at once when the hook answers synchronously, else the
   * running call. `signal` is created only if the hook asks for it, so a synchronous hook
   * costs no timer and no AbortController.
   */
  start?(hook: HookDefinition, payload: HookPayload, signal: () => AbortSignal): HookOutcome | Promise<HookOutcome>;
}
