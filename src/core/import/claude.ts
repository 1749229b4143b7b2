import type {
  AgentHandlerConfig,
  CommandHandlerConfig,
  HttpHandlerConfig,
  McpToolHandlerConfig,
  PromptHandlerConfig,
} from '../hooks/config/config-schema';
import { HOOK_EVENTS, type HookEventName } from '../hooks/events';
import { MODEL_HOOK_EVENTS } from '../hooks/handlers/model-verdict';
import {
  ConversionDraft,
  describeEntry,
  isPlainObject,
  isStringArray,
  isStringRecord,
  lookup,
  shown,
  unreadable,
  type Conversion,
} from './conversion';
import { claudeDefaultTimeout, hookpilotDefault } from './event-semantics';
import { missingVariables } from './handler-env';
import type { ConfigFileSource, FoundSource } from './import-types';
import { claudeMatcher } from './matcher-translation';
import { parseSourceJson } from './read-source';

/** Claude Code events Hookpilot has no counterpart for, and why. */
const CLAUDE_ONLY_EVENTS: Readonly<Record<string, string>> = {
  Setup: 'it runs only for `claude --init` / `--maintenance`; Hookpilot has no setup phase',
  UserPromptExpansion: 'Hookpilot has no slash commands or MCP prompts to expand',
  MessageDisplay: 'Hookpilot has no event to rewrite displayed text',
  TeammateIdle: 'Hookpilot has no agent teams',
  TaskCreated: 'Hookpilot has no shared task list (agent teams)',
  TaskCompleted: 'Hookpilot has no shared task list (agent teams)',
  CwdChanged: 'Hookpilot has no working-directory change event',
  DirectoryAdded: 'Hookpilot has no /add-dir',
  WorktreeCreate: 'Hookpilot does not create git worktrees',
  WorktreeRemove: 'Hookpilot does not create git worktrees',
  PreModelSwitch: 'switching models is not a hookable event in Hookpilot',
  PostModelSwitch: 'switching models is not a hookable event in Hookpilot',
};

const UNSUPPORTED_TYPES: Readonly<Record<string, string>> = {};

const COMMAND_FIELDS = new Set(['type', 'command', 'args', 'timeout', 'async', 'asyncRewake', 'shell', 'once', 'statusMessage', 'if']);
const HTTP_FIELDS = new Set(['type', 'url', 'headers', 'allowedEnvVars', 'timeout', 'once', 'statusMessage', 'if']);
const PROMPT_FIELDS = new Set(['type', 'prompt', 'model', 'continueOnBlock', 'timeout', 'once', 'statusMessage', 'if']);
const MCP_TOOL_FIELDS = new Set(['type', 'server', 'tool', 'input', 'timeout', 'once', 'statusMessage', 'if']);
const AGENT_FIELDS = new Set(['type', 'prompt', 'model', 'timeout', 'once', 'statusMessage', 'if']);
/** Claude's model names and aliases: an OpenAI-compatible endpoint does not serve them. */
const CLAUDE_MODEL = /^(claude|haiku|sonnet|opus)\b/i;

/** How one file's Claude-shaped hooks are imported. */
export interface ClaudeShapeOptions {
  /** Added to every hook of the file (personal file, user scope, ...). */
  fileNotes: string[];
  /** `disableAllHooks: true`: the hooks are imported disabled. */
  disabled: boolean;
  /** Checks specific to the agent that read this file (variables it sets, ...); may add `env`. */
  inspectCommand?: (
    command: string,
    event: HookEventName,
    env: Record<string, string> | undefined,
    draft: ConversionDraft,
  ) => Record<string, string> | undefined;
}

/** `.claude/settings.json`, `.claude/settings.local.json`, `~/.claude/settings.json`. */
export function convertClaudeSettings(source: ConfigFileSource): Conversion[] {
  const parsed = parseSourceJson(source);
  if (!parsed.ok) return [parsed.problem];
  if (parsed.value === undefined) return [];
  if (!isPlainObject(parsed.value)) return [unreadable('(file)', 'the settings file is not a JSON object')];
  const settings = parsed.value;
  if (settings.hooks === undefined) return [];
  const fileNotes: string[] = [];
  if (source.scope === 'local') {
    fileNotes.push(
      'from settings.local.json, a personal file that is not meant to be committed; .vscode/hooks.json usually is, so check that this hook belongs to everyone',
    );
  }
  if (source.scope === 'user') {
    fileNotes.push(
      'from your user settings, where it applied to every project; imported, it applies to this workspace only (its paths still point to your home directory)',
    );
  }
  const disabled = settings.disableAllHooks === true;
  if (disabled) fileNotes.push('"disableAllHooks": true in this file: imported with "enabled": false');
  return convertClaudeHooks(settings.hooks, { fileNotes, disabled });
}

/** Keys of Claude Code's settings that bound http hooks while its files are read in place. */
const HTTP_BOUNDS = ['allowedHttpHookUrls', 'httpHookAllowedEnvVars'] as const;

/**
 * Why an imported http hook is bounded less than in place, when a Claude Code file read sets
 * HTTP_BOUNDS (`~/.claude/settings.json` bounds the repository's hooks too): an import writes
 * hooks, not those lists. Undefined when no file sets them.
 */
export function lostHttpBounds(sources: readonly FoundSource[]): string | undefined {
  const set = sources.flatMap((source) => {
    if (source.format !== 'claude-settings') return [];
    const parsed = parseSourceJson(source);
    if (!parsed.ok || !isPlainObject(parsed.value)) return [];
    const settings = parsed.value;
    return HTTP_BOUNDS.filter((key) => settings[key] !== undefined).map((key) => `${key} of ${source.displayPath}`);
  });
  if (set.length === 0) return undefined;
  return (
    `${set.join(' and ')} bound this http hook while Claude Code's files are read in place; the import does not carry them: ` +
    'set them in your user settings (hookpilot.hooks) before you set hookpilot.hooks.claudeSettings to "off"'
  );
}

/** The `hooks` object of Claude Code's settings: event → matcher groups → handlers. */
export function convertClaudeHooks(hooks: unknown, options: ClaudeShapeOptions): Conversion[] {
  if (!isPlainObject(hooks)) return [unreadable('hooks', '"hooks" is not an object keyed by event name')];
  const out: Conversion[] = [];
  for (const [key, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      out.push(unreadable(key, `"${key}" is not a list of matcher groups, so Claude Code does not load it either`));
      continue;
    }
    groups.forEach((group: unknown, gi) => {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
        out.push(unreadable(key, `${key}[${gi}] is not a matcher group { "matcher", "hooks": [...] }`));
        return;
      }
      group.hooks.forEach((handler: unknown) => out.push(convertGroupHandler(key, group.matcher, handler, options)));
    });
  }
  return out;
}

function handlerSummary(handler: unknown): string {
  if (!isPlainObject(handler)) return shown(handler);
  const type = typeof handler.type === 'string' ? handler.type : 'handler';
  const what = handler.command ?? handler.url ?? handler.prompt ?? handler.tool;
  return what === undefined ? `${type} hook` : `${type} ${shown(what)}`;
}

function convertGroupHandler(key: string, rawMatcher: unknown, handler: unknown, options: ClaudeShapeOptions): Conversion {
  const draft = new ConversionDraft(key, describeEntry(key, rawMatcher, handlerSummary(handler)));
  for (const note of options.fileNotes) draft.note(note);
  const claudeOnly = lookup(CLAUDE_ONLY_EVENTS, key);
  if (claudeOnly) return draft.unsupported(`Hookpilot has no ${key} event: ${claudeOnly}`);
  let event: HookEventName;
  const matcherSource = rawMatcher;
  if ((HOOK_EVENTS as readonly string[]).includes(key)) {
    event = key as HookEventName;
  } else {
    return draft.unsupported(`"${key}" is not a Claude Code event Hookpilot knows`);
  }
  if (rawMatcher !== undefined && typeof rawMatcher !== 'string') return draft.unsupported('the matcher is not a string');
  const matcher = claudeMatcher(event, typeof matcherSource === 'string' ? matcherSource : undefined);
  if (matcher.unsupported) return draft.unsupported(matcher.unsupported);
  draft.absorb(matcher);
  if (event === 'ConfigChange') {
    draft.note(
      'in VS Code it runs before a change to the workspace configuration applies (a save from the editor, or Apply on a held change) and can block it; ' +
        'the CLI reads its configuration once per run, so there it only reports a change made during the run',
    );
  }
  if (event === 'PermissionDenied') {
    draft.change(
      "Hookpilot's PermissionDenied is observe-only: hookSpecificOutput.retry is ignored, and it also fires for denials by rules, hooks and the user",
    );
  }
  if (!isPlainObject(handler)) return draft.unsupported('the handler is not an object');
  const type = handler.type;
  if (type === 'command') return commandHandler(handler, event, matcher.matcher, draft, options);
  if (type === 'http') return httpHandler(handler, event, matcher.matcher, draft, options);
  if (type === 'prompt' || type === 'agent') return modelHandler(type, handler, event, matcher.matcher, draft, options);
  if (type === 'mcp_tool') return mcpToolHandler(handler, event, matcher.matcher, draft, options);
  const unsupportedType = typeof type === 'string' ? lookup(UNSUPPORTED_TYPES, type) : undefined;
  if (unsupportedType) return draft.unsupported(unsupportedType);
  return draft.unsupported(`unknown handler type ${shown(type)}`);
}

function unknownFields(handler: Record<string, unknown>, known: ReadonlySet<string>, draft: ConversionDraft): void {
  for (const key of Object.keys(handler)) {
    if (!known.has(key)) draft.change(`"${key}" is not a field Hookpilot knows: left out`);
  }
}

/** `timeout`, `if`, `statusMessage`, `once` and the default timeout: shared by command and http. */
function commonFields(
  handler: Record<string, unknown>,
  event: HookEventName,
  draft: ConversionDraft,
  out: { type: 'command' | 'http'; timeout?: number; if?: string; statusMessage?: string },
): void {
  if (typeof handler.timeout === 'number' && handler.timeout > 0) {
    out.timeout = handler.timeout;
  } else {
    if (handler.timeout !== undefined) draft.change(`timeout ${shown(handler.timeout)} is not a positive number of seconds: left out`);
    const fallback = claudeDefaultTimeout(event);
    if (fallback !== undefined) {
      out.timeout = fallback;
      draft.note(`no timeout: Claude Code's default of ${fallback} s is written out (${hookpilotDefault(out.type, event)})`);
    } else {
      draft.note(
        `no timeout: the end of a session waits 1.5 s for SessionEnd hooks without one, as Claude Code's does (${hookpilotDefault(out.type, event)})`,
      );
    }
  }
  if (typeof handler.if === 'string' && handler.if !== '') out.if = handler.if;
  if (typeof handler.statusMessage === 'string') out.statusMessage = handler.statusMessage;
  if (handler.once !== undefined) draft.note('"once" is honoured only in skill frontmatter, so Claude Code ignores it here too: left out');
}

function commandHandler(
  handler: Record<string, unknown>,
  event: HookEventName,
  matcher: string | undefined,
  draft: ConversionDraft,
  options: ClaudeShapeOptions,
): Conversion {
  if (typeof handler.command !== 'string' || handler.command === '') return draft.unsupported('the command hook has no "command"');
  unknownFields(handler, COMMAND_FIELDS, draft);
  const out: CommandHandlerConfig = { type: 'command', command: handler.command };
  if (isStringArray(handler.args)) out.args = handler.args;
  else if (handler.args !== undefined) draft.change('"args" is not a list of strings: left out, so the command runs through the shell');
  if (handler.shell === 'powershell')
    return draft.unsupported('it runs in PowerShell ("shell": "powershell"); Hookpilot runs shell-form hooks with sh');
  if (handler.shell === 'bash' && out.args === undefined) {
    out.args = ['-c', out.command];
    out.command = 'bash';
    draft.note('"shell": "bash" written in exec form (bash -c ...), so it still runs in bash');
  }
  commonFields(handler, event, draft, out);
  if (handler.async === true) out.async = true;
  if (handler.asyncRewake === true) {
    out.asyncRewake = true;
    draft.note(
      '"asyncRewake": exit code 2 brings its stderr to the model at the next step; an agent waiting for a prompt hears it with the next one',
    );
  }
  if (options.disabled) out.enabled = false;
  const text = [out.command, ...(out.args ?? [])].join(' ');
  draft.absorb(
    missingVariables(text, {
      CLAUDE_PLUGIN_ROOT: 'it only exists for plugin hooks',
      CLAUDE_PLUGIN_DATA: 'it only exists for plugin hooks',
    }),
  );
  let env = out.env;
  if (options.inspectCommand) env = options.inspectCommand(text, event, env, draft);
  if (env) out.env = env;
  return draft.to(event, matcher, out);
}

function httpHandler(
  handler: Record<string, unknown>,
  event: HookEventName,
  matcher: string | undefined,
  draft: ConversionDraft,
  options: ClaudeShapeOptions,
): Conversion {
  if (typeof handler.url !== 'string' || handler.url === '') return draft.unsupported('the http hook has no "url"');
  unknownFields(handler, HTTP_FIELDS, draft);
  const out: HttpHandlerConfig = { type: 'http', url: handler.url };
  if (isStringRecord(handler.headers)) out.headers = handler.headers;
  else if (handler.headers !== undefined) draft.change('"headers" is not an object of strings: left out');
  if (isStringArray(handler.allowedEnvVars)) out.allowedEnvVars = handler.allowedEnvVars;
  commonFields(handler, event, draft, out);
  if (options.disabled) out.enabled = false;
  return draft.to(event, matcher, out);
}

/** mcp_tool hooks: the same server, tool and templated input, called on Hookpilot's own connection. */
function mcpToolHandler(
  handler: Record<string, unknown>,
  event: HookEventName,
  matcher: string | undefined,
  draft: ConversionDraft,
  options: ClaudeShapeOptions,
): Conversion {
  if (typeof handler.server !== 'string' || handler.server === '') return draft.unsupported('the mcp_tool hook has no "server"');
  if (typeof handler.tool !== 'string' || handler.tool === '') return draft.unsupported('the mcp_tool hook has no "tool"');
  unknownFields(handler, MCP_TOOL_FIELDS, draft);
  const out: McpToolHandlerConfig = { type: 'mcp_tool', server: handler.server, tool: handler.tool };
  if (isPlainObject(handler.input)) out.input = handler.input;
  else if (handler.input !== undefined) draft.change('"input" is not an object: left out, so the tool is called without arguments');
  if (typeof handler.timeout === 'number' && handler.timeout > 0) out.timeout = handler.timeout;
  else if (handler.timeout !== undefined) draft.change(`timeout ${shown(handler.timeout)} is not a positive number of seconds: left out`);
  if (typeof handler.if === 'string' && handler.if !== '') out.if = handler.if;
  if (typeof handler.statusMessage === 'string') out.statusMessage = handler.statusMessage;
  draft.note(
    `it runs while an MCP server named ${shown(handler.server)} is configured for Hookpilot (.mcp.json, .vscode/mcp.json or hookpilot.mcpServers) and connected, as in Claude Code`,
  );
  if (options.disabled) out.enabled = false;
  return draft.to(event, matcher, out);
}

/** prompt and agent hooks: the same fields, asked of the configured model. */
function modelHandler(
  type: 'prompt' | 'agent',
  handler: Record<string, unknown>,
  event: HookEventName,
  matcher: string | undefined,
  draft: ConversionDraft,
  options: ClaudeShapeOptions,
): Conversion {
  if (!MODEL_HOOK_EVENTS.has(event))
    return draft.unsupported(
      `${type} hooks run only on ${[...MODEL_HOOK_EVENTS].join(', ')} (Claude Code has the same limit), not on ${event}`,
    );
  if (typeof handler.prompt !== 'string' || handler.prompt === '') return draft.unsupported(`the ${type} hook has no "prompt"`);
  unknownFields(handler, type === 'prompt' ? PROMPT_FIELDS : AGENT_FIELDS, draft);
  const out: PromptHandlerConfig | AgentHandlerConfig = { type, prompt: handler.prompt };
  if (typeof handler.model === 'string' && handler.model !== '') {
    if (CLAUDE_MODEL.test(handler.model))
      draft.change(`"model": ${shown(handler.model)} is a Claude model: left out, so the model configured for Hookpilot answers`);
    else out.model = handler.model;
  }
  if (out.type === 'prompt' && typeof handler.continueOnBlock === 'boolean') out.continueOnBlock = handler.continueOnBlock;
  if (typeof handler.timeout === 'number' && handler.timeout > 0) out.timeout = handler.timeout;
  else if (handler.timeout !== undefined)
    draft.change(
      `timeout ${shown(handler.timeout)} is not a positive number of seconds: left out (default ${type === 'prompt' ? 30 : 60} s, as in Claude Code)`,
    );
  if (typeof handler.if === 'string' && handler.if !== '') out.if = handler.if;
  if (typeof handler.statusMessage === 'string') out.statusMessage = handler.statusMessage;
  if (handler.once !== undefined) draft.note('"once" is honoured only in skill frontmatter, so Claude Code ignores it here too: left out');
  draft.note(
    `the model configured for Hookpilot answers it (Claude Code asks ${type === 'prompt' ? 'a fast Claude model' : 'a Claude subagent'})`,
  );
  if (options.disabled) out.enabled = false;
  return draft.to(event, matcher, out);
}
