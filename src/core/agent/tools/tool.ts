import { z } from 'zod';
import type { ToolCallOutcome } from '../tool-call-outcome';
import type { ToolCategory } from './tool-catalog';

export type { ToolCategory } from './tool-catalog';

export interface ToolContext {
  workspaceRoot: string;
  cwd: string;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  /** Directories outside the workspace that file tools may also touch. */
  additionalDirectories?: string[];
  sessionId: string;
  /** Secret-looking variables the user lets the Bash tool's shell inherit. */
  passEnv?: readonly string[];
  /** Variables that hold credentials whatever their names (those http hooks send): the shell goes without them too. */
  secretEnvNames?: readonly string[];
  /**
   * The text as the model may see it (the session's secret registry). Grep matches this, not
   * the file, so that a count or a file list says nothing about a hidden value.
   */
  redactForModel?: (text: string) => string;
  /** Drops the end of a text cut at a size cap when it is the start of a secret value (Redactor.withoutSecretStartAtEnd). */
  withoutSecretStartAtEnd?: (text: string) => string;
  /**
   * Hookpilot's storage folders (transcripts, audit logs), physical paths: Glob and Grep leave
   * them out of a search that starts outside them; the gate asks before one starts inside.
   */
  hiddenFolders?: readonly string[];
  /** Shell lines every Bash command runs after: what SessionStart hooks wrote to CLAUDE_ENV_FILE. */
  shellPrelude?: string;
  /**
   * The physical path the permission check resolved this call's target to: a file tool acts on
   * that file only, not on another one a link swapped since (while a person read the prompt) leads to.
   */
  checkedTarget?: string;
}

export type ToolResult =
  | {
      ok: true;
      /** What the model sees. */
      content: string;
      /** Claude-shaped `tool_response` for PostToolUse hooks. */
      response: unknown;
    }
  | {
      ok: false;
      /** What the model sees; the first line is `Exit code N` for Bash failures. */
      error: string;
      interrupted?: boolean;
      response?: unknown;
      /** A hook inside the tool (a Task subagent's) ended the turn or the session: so does this call. */
      halt?: Pick<ToolCallOutcome, 'stop' | 'abort'>;
    };

export interface Tool<I = Record<string, unknown>> {
  name: string;
  description: string;
  category: ToolCategory;
  /**
   * An MCP tool whose server says it only reads (`readOnlyHint`): its arguments are not checked
   * for protected files, which reading does not change. It is gated like any other call.
   */
  readsOnly?: boolean;
  /** Validates the model's arguments; also the source of the function's JSON Schema. */
  inputSchema: z.ZodType<I>;
  /** The function's JSON Schema when it comes from elsewhere (an MCP server's tool); default: from inputSchema. */
  parameters?: Record<string, unknown>;
  /** The path a file tool touches, for permission rules like Edit(src/**) and workspace checks. */
  target?(input: I): string | undefined;
  /**
   * Returns the input as hooks should see it: Claude Code hands hooks an absolute
   * `tool_input.file_path`, so relative paths are resolved against `ctx.cwd` here.
   */
  normalizeInput?(input: I, ctx: Pick<ToolContext, 'cwd'>): I;
  run(input: I, ctx: ToolContext): Promise<ToolResult>;
}

export interface ToolFunctionDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The OpenAI chat-completions function definition for a tool. */
export function toolFunctionDefinition(tool: Tool): ToolFunctionDefinition {
  if (tool.parameters)
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
  // `io: 'input'` describes what the model may send (optional fields stay optional).
  const { $schema: _schemaDialect, ...parameters } = z.toJSONSchema(tool.inputSchema, { io: 'input' });
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters } };
}

export function toolFailure(error: string, extra: { interrupted?: boolean; response?: unknown } = {}): ToolResult {
  return { ok: false, error, ...extra };
}
