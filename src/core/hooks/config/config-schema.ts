import { z } from 'zod';
import { BUILTIN_HOOK_NAMES } from '../builtins/builtin-names';
import { EVENT_ALIASES, EVENT_INFO, HOOK_EVENTS, type HookEventName } from '../events';
import { MAX_TIMEOUT_MS, MAX_TIMEOUT_SECONDS } from './timeout-bounds';

/**
 * The hooks configuration document: `.vscode/hooks.json` and the `hookpilot.hooks`
 * setting share it. `hooks` is Claude Code's shape verbatim (event -> matcher group ->
 * handler) plus flat handler entries; `servers` is PicoClaw's `processes` (docs/design.md).
 *
 * The loader validates piece by piece (one handler, one server at a time) so a bad
 * entry never drops its siblings; the JSON Schema is generated from the same pieces.
 * Every property carries a description: VS Code shows them as hovers.
 */

/** Every key accepted under `hooks`: canonical names first, then aliases. */
export const EVENT_KEYS: readonly string[] = [...HOOK_EVENTS, ...Object.keys(EVENT_ALIASES)];

/** Known names are offered as completions; unknown ones get a did-you-mean warning from the loader. */
const eventNameSchema = z.union([z.enum(EVENT_KEYS as [string, ...string[]]), z.string()]);

const seconds = z.number().positive().max(MAX_TIMEOUT_SECONDS);
const milliseconds = z.number().int().positive().max(MAX_TIMEOUT_MS);
const failurePolicy = z
  .enum(['continue', 'block'])
  .describe("What a crash, timeout or unusable output means: `continue` (Claude Code's behaviour) or `block` the action.");
const stringMap = z.record(z.string(), z.string());

export const matcherSchema = z
  .string()
  .describe(
    'Which occurrences of the event run these hooks (Claude Code rules): empty or "*" for all; "Bash", "Write|Edit" or "Write,Edit" for exact names; "mcp__*" for a prefix; anything else is an unanchored regular expression in RE2 syntax (no lookaround or backreferences: matching takes linear time). What it is tested against depends on the event (tool_name for tool events).',
  );

const commonHandlerFields = {
  name: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Label in the Hook Manager, the timeline and `[Hook: name | Event]` context tags. Defaults to a label derived from the handler.',
    ),
  description: z.string().optional().describe('What this hook does; shown in the Hook Manager.'),
  enabled: z
    .boolean()
    .optional()
    .describe('Default enabled state (default true). Enable Hook… / Disable Hook… override it without editing this file.'),
  priority: z.number().int().optional().describe('Order within an event: ascending; hooks with equal priority run in parallel. Default 0.'),
  onFailure: failurePolicy.optional(),
  timeout: seconds.optional().describe("Timeout in seconds (Claude Code's unit), at most 86400 (24 h). Defaults come from `defaults`."),
  timeout_ms: milliseconds
    .optional()
    .describe('Timeout in milliseconds (the unit of other hook systems), at most 86400000 (24 h); wins over `timeout`.'),
  if: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Claude Code permission-rule filter such as "Bash(rm *)" or "Edit(*.ts)". Tool events only: on any other event a hook with `if` never runs.',
    ),
  contentPatterns: z
    .array(z.string().min(1))
    .optional()
    .describe(
      'Tool-argument filters: "key:substring" tests one tool_input field, a bare string tests the whole tool_input JSON; any match runs the hook.',
    ),
  statusMessage: z.string().optional().describe('Text shown while the hook runs.'),
  once: z.boolean().optional().describe('Run at most once per session (default false).'),
};

export const commandHandlerSchema = z
  .strictObject({
    type: z
      .literal('command')
      .describe("Run a command speaking Claude Code's hook protocol: JSON on stdin; exit code, stdout and stderr back."),
    command: z
      .string()
      .min(1)
      .describe('The command. Run with `sh -c` unless `args` is given; ${CLAUDE_PROJECT_DIR} is the workspace root.'),
    args: z.array(z.string()).optional().describe('Exec form: `command` is the program and these are its arguments; no shell is involved.'),
    cwd: z.string().min(1).optional().describe('Working directory, relative to the workspace root. Default: the workspace root.'),
    env: stringMap.optional().describe('Extra environment variables for the process.'),
    async: z.boolean().optional().describe('Fire and forget: the hook is started and not awaited; its decisions are ignored.'),
    asyncRewake: z
      .boolean()
      .optional()
      .describe(
        'Implies async: when the hook exits with code 2, its stderr reaches the model as a reminder at the next step (default false).',
      ),
    shell: z
      .enum(['sh', 'bash'])
      .optional()
      .describe('The shell of the shell form: sh (default) or bash. PowerShell is not supported. Ignored with `args`.'),
    stdoutJson: z
      .enum(['whole', 'lastLine'])
      .optional()
      .describe(
        'Where the JSON answer is on stdout: whole (default, Claude Code: stdout that starts with "{") or lastLine (AtomCode: the last non-empty line, so the script may log before it).',
      ),
    ...commonHandlerFields,
  })
  .meta({ id: 'commandHandler', title: 'command hook' });

export const httpHandlerSchema = z
  .strictObject({
    type: z.literal('http').describe('POST the hook input JSON to a URL; a 2xx JSON body is the answer.'),
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
      .describe('Where to POST. Must be allowed by `allowedHttpHookUrls` when that is set.'),
    method: z.enum(['POST', 'PUT', 'PATCH']).optional().describe('HTTP method of the request that carries the payload (default POST).'),
    headers: stringMap.optional().describe('Request headers; values may use $VAR or ${VAR} for variables listed in `allowedEnvVars`.'),
    allowedEnvVars: z
      .array(z.string().min(1))
      .optional()
      .describe('Environment variables that header values may interpolate; any other becomes an empty string.'),
    ...commonHandlerFields,
  })
  .meta({ id: 'httpHandler', title: 'http hook' });

export const builtinHandlerSchema = z
  .strictObject({
    type: z.literal('builtin').describe("Run one of Hookpilot's in-process hooks."),
    builtin: z
      .string()
      .min(1)
      .describe(`Name of the built-in hook: ${BUILTIN_HOOK_NAMES.join(', ')}.`),
    options: z.record(z.string(), z.unknown()).optional().describe('Options passed to the built-in hook.'),
    ...commonHandlerFields,
  })
  .meta({ id: 'builtinHandler', title: 'builtin hook' });

export const rpcHandlerSchema = z
  .strictObject({
    type: z.literal('rpc').describe('Send this event to a long-lived JSON-RPC server declared under `servers`.'),
    server: z.string().min(1).describe('Name of a server declared under `servers`.'),
    mode: z
      .enum(['observe', 'intercept'])
      .optional()
      .describe(
        "`observe`: a notification, never waited for. `intercept`: a request whose answer is a decision. Default: from the event's kind.",
      ),
    ...commonHandlerFields,
  })
  .meta({ id: 'rpcHandler', title: 'rpc hook' });

const modelField = z.string().min(1).optional().describe('Model to ask (default: the configured model).');

export const promptHandlerSchema = z
  .strictObject({
    type: z
      .literal('prompt')
      .describe('Ask the model once to judge the event; it answers {"ok", "reason"} (Claude Code\'s prompt hook). Default timeout 30 s.'),
    prompt: z
      .string()
      .min(1)
      .describe('What to check. $ARGUMENTS is replaced by the event JSON (appended when absent); \\$ is a literal $.'),
    model: modelField,
    continueOnBlock: z
      .boolean()
      .optional()
      .describe('On "ok": false in PreToolUse or PostToolUse, return the reason to the model instead of ending the turn.'),
    ...commonHandlerFields,
  })
  .meta({ id: 'promptHandler', title: 'prompt hook' });

export const agentHandlerSchema = z
  .strictObject({
    type: z
      .literal('agent')
      .describe(
        'A subagent with Read, Grep and Glob investigates, then answers {"ok", "reason"} (Claude Code\'s agent hook). Default timeout 60 s.',
      ),
    prompt: z
      .string()
      .min(1)
      .describe('What to check. $ARGUMENTS is replaced by the event JSON (appended when absent); \\$ is a literal $.'),
    model: modelField,
    ...commonHandlerFields,
  })
  .meta({ id: 'agentHandler', title: 'agent hook' });

export const mcpToolHandlerSchema = z
  .strictObject({
    type: z
      .literal('mcp_tool')
      .describe(
        "Call a tool on a connected MCP server (Claude Code's mcp_tool hook); its text answer is read like a command hook's stdout.",
      ),
    server: z
      .string()
      .min(1)
      .describe("The MCP server's name, as in .mcp.json or .vscode/mcp.json. A server that is not connected is a non-blocking error."),
    tool: z.string().min(1).describe('The tool to call on that server.'),
    input: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('The tool\'s arguments; a string may name event fields, e.g. "${tool_input.file_path}".'),
    ...commonHandlerFields,
  })
  .meta({ id: 'mcpToolHandler', title: 'mcp_tool hook' });

export const HANDLER_SCHEMAS = {
  command: commandHandlerSchema,
  http: httpHandlerSchema,
  builtin: builtinHandlerSchema,
  rpc: rpcHandlerSchema,
  prompt: promptHandlerSchema,
  agent: agentHandlerSchema,
  mcp_tool: mcpToolHandlerSchema,
} as const;

export type ConfigHandlerType = keyof typeof HANDLER_SCHEMAS;
export type CommandHandlerConfig = z.infer<typeof commandHandlerSchema>;
export type HttpHandlerConfig = z.infer<typeof httpHandlerSchema>;
export type BuiltinHandlerConfig = z.infer<typeof builtinHandlerSchema>;
export type RpcHandlerConfig = z.infer<typeof rpcHandlerSchema>;
export type PromptHandlerConfig = z.infer<typeof promptHandlerSchema>;
export type AgentHandlerConfig = z.infer<typeof agentHandlerSchema>;
export type McpToolHandlerConfig = z.infer<typeof mcpToolHandlerSchema>;
export type HandlerConfig =
  | CommandHandlerConfig
  | HttpHandlerConfig
  | BuiltinHandlerConfig
  | RpcHandlerConfig
  | PromptHandlerConfig
  | AgentHandlerConfig
  | McpToolHandlerConfig;

export const handlerSchema = z
  .discriminatedUnion('type', [
    commandHandlerSchema,
    httpHandlerSchema,
    builtinHandlerSchema,
    rpcHandlerSchema,
    promptHandlerSchema,
    agentHandlerSchema,
    mcpToolHandlerSchema,
  ])
  .meta({ id: 'handler', description: 'One hook handler.' });

const flatMatcher = { matcher: matcherSchema.optional() };

/** A handler written directly under the event, with its matcher on itself. */
export const flatHandlerSchema = z
  .discriminatedUnion('type', [
    commandHandlerSchema.extend(flatMatcher),
    httpHandlerSchema.extend(flatMatcher),
    builtinHandlerSchema.extend(flatMatcher),
    rpcHandlerSchema.extend(flatMatcher),
    promptHandlerSchema.extend(flatMatcher),
    agentHandlerSchema.extend(flatMatcher),
    mcpToolHandlerSchema.extend(flatMatcher),
  ])
  .meta({ id: 'flatHandler', description: 'A handler written directly under the event, with its own `matcher`.' });

export const matcherGroupSchema = z
  .strictObject({
    matcher: matcherSchema.optional(),
    hooks: z.array(handlerSchema).describe('Handlers that run when the matcher matches.'),
  })
  .meta({ id: 'matcherGroup', description: "Claude Code's matcher group: a matcher and the handlers it selects." });

/** Keys a matcher group may have (checked by hand: its handlers are validated one by one). */
export const MATCHER_GROUP_KEYS: readonly string[] = Object.keys(matcherGroupSchema.shape);

const eventEntrySchema = z
  .union([matcherGroupSchema, flatHandlerSchema])
  .meta({ id: 'eventEntry', description: 'A matcher group ({ "matcher", "hooks" }) or a handler with its own `matcher`.' });

function eventDescription(event: HookEventName): string {
  const info = EVENT_INFO[event];
  const matcher = info.matchField ? `The matcher is tested against \`${info.matchField}\`.` : 'Matchers are ignored for this event.';
  return `${event} (${info.kind}): ${info.description} ${matcher}`;
}

const hooksShape: Record<string, z.ZodOptional<z.ZodArray<typeof eventEntrySchema>>> = {};
for (const event of HOOK_EVENTS) {
  hooksShape[event] = z.array(eventEntrySchema).describe(eventDescription(event)).optional();
}
for (const [alias, event] of Object.entries(EVENT_ALIASES)) {
  hooksShape[alias] = z
    .array(eventEntrySchema)
    .describe(`Alias of ${event}. ${eventDescription(event)}`)
    .optional();
}

export const serverSchema = z
  .strictObject({
    command: z
      .union([z.array(z.string().min(1)).min(1), z.string().min(1)])
      .describe(
        'Program and arguments, e.g. ["node", "hooks/server.js"]. A string is split into words like a shell would, without running a shell.',
      ),
    transport: z.literal('stdio').optional().describe("JSON-RPC 2.0 over the process's stdin/stdout (the only transport)."),
    cwd: z.string().min(1).optional().describe('Working directory, relative to the workspace root. Default: the workspace root.'),
    env: stringMap.optional().describe('Extra environment variables for the process.'),
    observe: z
      .array(eventNameSchema)
      .optional()
      .describe('Events sent as notifications (never waited for). The handshake may narrow the list.'),
    intercept: z
      .array(eventNameSchema)
      .optional()
      .describe('Events sent as requests whose answers are decisions. The handshake may narrow the list.'),
    timeout: seconds.optional().describe('Per-request timeout in seconds.'),
    timeout_ms: milliseconds.optional().describe("Per-request timeout in milliseconds (PicoClaw's spelling); wins over `timeout`."),
    enabled: z.boolean().optional().describe('Default enabled state (default true).'),
    priority: z.number().int().optional().describe('Order among process-based hooks of an event: ascending. Default 0.'),
    onFailure: failurePolicy.optional(),
    description: z.string().optional().describe('What this server does; shown in the Hook Manager.'),
  })
  .meta({ id: 'server', description: "A long-lived hook process speaking JSON-RPC 2.0 over stdio (PicoClaw's `processes`)." });

export type ServerConfig = z.infer<typeof serverSchema>;

export const builtinSettingObjectSchema = z.strictObject({
  enabled: z.boolean().optional().describe('Whether this built-in hook runs (default true).'),
  options: z.record(z.string(), z.unknown()).optional().describe('Options passed to the built-in hook.'),
});

const builtinSettingSchema = z.union([z.boolean(), builtinSettingObjectSchema]).describe('true / false, or { "enabled", "options" }.');

export const defaultsSchema = z
  .strictObject({
    observerTimeoutMs: milliseconds.optional().describe('Timeout for observe hooks, in milliseconds.'),
    interceptorTimeoutMs: milliseconds.optional().describe('Timeout for intercept hooks (rpc, builtin), in milliseconds.'),
    approvalTimeoutMs: milliseconds
      .optional()
      .describe(
        'Default timeout of in-process and rpc hooks on PermissionRequest, in milliseconds; a hook that does not answer in time denies (the time a person gets is a host setting).',
      ),
    commandTimeoutMs: milliseconds
      .optional()
      .describe(
        "Timeout for command and http hooks without their own `timeout`, in milliseconds. Default: Claude Code's, 600000 (30000 on UserPromptSubmit).",
      ),
  })
  .describe("Default timeouts. A workspace's apply to the workspace's own hooks only.");

export type HookDefaults = z.infer<typeof defaultsSchema>;

/** PicoClaw's spelling of `defaults`, as it nests inside `hooks`. */
export const SNAKE_CASE_DEFAULTS: Readonly<Record<string, keyof HookDefaults>> = {
  observer_timeout_ms: 'observerTimeoutMs',
  interceptor_timeout_ms: 'interceptorTimeoutMs',
  approval_timeout_ms: 'approvalTimeoutMs',
  command_timeout_ms: 'commandTimeoutMs',
};

const nestedDefaultsSchema = z
  .strictObject({
    ...defaultsSchema.shape,
    ...Object.fromEntries(Object.entries(SNAKE_CASE_DEFAULTS).map(([snake, camel]) => [snake, defaultsSchema.shape[camel]])),
  })
  .describe("PicoClaw's place for `defaults` (snake_case keys accepted): the same as the top-level `defaults`.");

/** PicoClaw nests these inside `hooks`; they mean what the top-level sections mean. */
export const NESTED_SECTION_KEYS = ['processes', 'builtins', 'defaults', 'enabled'] as const;

/** Loose: an unknown event key is reported by the loader with a did-you-mean, not by the schema. */
const hooksSchema = z
  .looseObject({
    ...hooksShape,
    processes: z.record(z.string(), serverSchema).optional().describe("PicoClaw's place for `servers`: JSON-RPC hook processes by name."),
    builtins: z.record(z.string(), builtinSettingSchema).optional().describe("PicoClaw's place for `builtins`."),
    defaults: nestedDefaultsSchema.optional(),
    enabled: z.boolean().optional().describe('PicoClaw: false turns every hook off (the top-level `disableAllHooks`).'),
  })
  .describe(
    "Hooks by event. Keys are event names (Claude Code's, or an alias); values are lists of matcher groups or handlers. PicoClaw's `processes`, `builtins`, `defaults` and `enabled` may nest here too.",
  );

export const hooksDocumentSchema = z
  .strictObject({
    $schema: z.string().optional().describe('JSON Schema reference for editors.'),
    description: z.string().optional().describe('What this set of hooks is for.'),
    hooks: hooksSchema.optional(),
    servers: z
      .record(z.string(), serverSchema)
      .optional()
      .describe(
        'JSON-RPC hook servers by name; bind events with `observe` / `intercept` or with { "type": "rpc", "server": name } handlers.',
      ),
    builtins: z
      .record(z.string(), builtinSettingSchema)
      .optional()
      .describe(
        'Built-in hooks to turn on or off, by name, with their options. A workspace may turn one on, not off one that your settings or the defaults turn on.',
      ),
    defaults: defaultsSchema.optional(),
    disableAllHooks: z
      .boolean()
      .optional()
      .describe(
        "Turn hooks off: from your user settings every hook but the managed policy's; from a workspace source the workspace's hooks only. Within each, a later source overrides an earlier one.",
      ),
    allowedHttpHookUrls: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "URL patterns http hooks may call, scheme://host[:port][/path] matched part by part: host exact, `*.domain` (whole labels) or `*`; port exact, `*` or the default; path a glob whose `*` stays in the path. Unset: any URL. A workspace's list limits only the workspace's http hooks, within yours.",
      ),
    httpHookAllowedEnvVars: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Outer limit on the environment variables http hooks' headers may interpolate, intersected with each hook's `allowedEnvVars`. A workspace's list limits only the workspace's http hooks.",
      ),
  })
  .meta({ title: 'Hookpilot hooks', description: "Hooks for the Hookpilot agent (Claude Code's hook format plus Hookpilot's extras)." });

/** Top-level keys of a document (checked by hand: sections are validated entry by entry). */
export const DOCUMENT_KEYS: readonly string[] = Object.keys(hooksDocumentSchema.shape);
