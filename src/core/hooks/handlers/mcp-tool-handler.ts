import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpManager } from '../../mcp/mcp-manager';
import { resultText } from '../../mcp/mcp-tool';
import { sanitizeServerName } from '../../mcp/mcp-names';
import { noOutputResult } from '../../process/run-process';
import { interpretCommandResult } from '../protocol/interpret-command';
import { spillOutcome } from '../protocol/spill';
import type { HookHandler, HookInvocation, HookOutcome, HookPayload } from '../types';
import { errorMessage } from '../../error-message';

/** Claude Code's `mcp_tool` hook: `server`, `tool`, and an `input` whose strings may name payload fields. */
export const mcpToolHandlerSchema = z.strictObject({
  type: z.literal('mcp_tool'),
  server: z.string().min(1),
  tool: z.string().min(1),
  input: z.record(z.string(), z.unknown()).optional(),
});
export type McpToolHandlerSpec = z.infer<typeof mcpToolHandlerSchema>;

export interface McpToolHookHandlerOptions {
  /** Where answer texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
  /** The engine's redactor, applied to a long text before it is saved and cut. */
  redact?: (text: string) => string;
}

/**
 * Calls a tool on a connected MCP server with `input` templated from the event
 * (`"${tool_input.file_path}"`); the tool's text is read like a command hook's stdout, and its
 * long texts are cut as a command hook's are. A server that is not connected, or an `isError` result,
 * is a non-blocking error: the hook never starts or connects a server itself.
 */
export class McpToolHookHandler implements HookHandler {
  constructor(
    private readonly manager: () => McpManager | undefined,
    private readonly options: McpToolHookHandlerOptions = {},
  ) {}

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const started = performance.now();
    const trace = () => ({ durationMs: performance.now() - started });
    const spec = mcpToolHandlerSchema.safeParse(invocation.hook.spec);
    if (!spec.success) return { status: 'error', error: 'not an mcp_tool hook', trace: trace() };
    const { server, tool } = spec.data;
    const manager = this.manager();
    const name = sanitizeServerName(server);
    const status = manager?.statuses().find((s) => s.name === name);
    if (!manager || status?.state !== 'connected') {
      return {
        status: 'error',
        error: `MCP server "${server}" is not connected${status?.error ? `: ${status.error}` : ''}`,
        trace: trace(),
      };
    }
    const args = templated(spec.data.input ?? {}, invocation.payload) as Record<string, unknown>;
    try {
      const result = await manager.callTool(name, tool, args, invocation.signal, invocation.timeoutMs);
      const text = resultText(result);
      if (result.isError)
        return { status: 'error', error: `MCP tool "${tool}" on "${server}" reported an error: ${text.slice(0, 500)}`, trace: trace() };
      // Not capped as a command's stdout is: the MCP message cap bounds it, and a cut would make a
      // deny that quotes a long tool input unreadable, which the model could use to get past it.
      const outcome = interpretCommandResult(
        invocation.hook.event,
        noOutputResult(performance.now() - started, { exitCode: 0, stdout: text }),
        invocation.timeoutMs,
      );
      return spillOutcome(outcome, {
        dir: this.options.spillDir,
        redact: this.options.redact,
        sessionId: invocation.payload.session_id,
        label: invocation.hook.name,
      });
    } catch (error) {
      if (invocation.signal.aborted) return { status: 'cancelled', trace: trace() };
      const message = errorMessage(error);
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
        return { status: 'timeout', error: `MCP tool "${tool}" timed out after ${invocation.timeoutMs} ms`, trace: trace() };
      return { status: 'error', error: `MCP tool "${tool}" on "${server}" failed: ${message}`, trace: trace() };
    }
  }
}

const WHOLE = /^\$\{([A-Za-z0-9_.]+)\}$/;
const PART = /\$\{([A-Za-z0-9_.]+)\}/g;

/**
 * `${a.b}` in a string is the payload's value at that path: a string that is only the
 * reference keeps the value's type, inside a longer string it is its text. An unknown path is ''.
 */
export function templated(value: unknown, payload: HookPayload): unknown {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookup(payload, whole[1]) ?? '';
    return value.replace(PART, (_, path: string) => asText(lookup(payload, path)));
  }
  if (Array.isArray(value)) return value.map((v) => templated(v, payload));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, templated(v, payload)]));
  return value;
}

function lookup(payload: HookPayload, path: string): unknown {
  let current: unknown = payload;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
