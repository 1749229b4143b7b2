import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MAX_TOOL_OUTPUT_CHARS, truncateRedacted } from '../agent/tools/output-limits';
import { errorMessage } from '../error-message';
import { toolFailure, type Tool, type ToolResult } from '../agent/tools/tool';
import type { McpToolInfo } from './mcp-connection';
import type { McpManager } from './mcp-manager';

type McpContent = CallToolResult['content'][number];

const made = new WeakMap<McpToolInfo, Tool>();

/** The connected servers' tools as agent tools, made once per listing (a re-listed tool is made anew). */
export function currentMcpTools(manager: McpManager): Tool[] {
  return manager.tools().map((info) => {
    let tool = made.get(info);
    if (!tool) made.set(info, (tool = createMcpTool(info, manager)));
    return tool;
  });
}

/**
 * An MCP server's tool as an agent tool named `mcp__<server>__<tool>`. It is gated like a
 * command (`execute`): a call needs a rule, a hook or a person to allow it, as in Claude Code.
 * The server checks the arguments against its own schema.
 */
export function createMcpTool(info: McpToolInfo, manager: McpManager): Tool {
  return {
    name: info.qualifiedName,
    // The listing cut the description and the name (mcp-tool-listing).
    description: `${info.description}\n(MCP server "${info.server}", tool "${info.name}")`,
    category: 'execute',
    readsOnly: info.readOnly,
    inputSchema: z.record(z.string(), z.unknown()),
    parameters: objectSchema(info.inputSchema),
    run: async (input, ctx): Promise<ToolResult> => {
      let result: CallToolResult;
      try {
        result = await manager.callTool(info.server, info.callName, input, ctx.signal);
      } catch (error) {
        if (ctx.signal.aborted) return toolFailure('Interrupted: the MCP call was cancelled', { interrupted: true });
        return toolFailure(`MCP server "${info.server}", tool "${info.name}": ${errorMessage(error)}`);
      }
      // Hooks see the MCP result's content (Claude Code's tool_response), each text already capped.
      const cut = (text: string) => truncateRedacted(text, ctx.redactForModel);
      const response = result.content.map((part) => capContent(part, cut));
      const text = cut(resultText(result));
      if (result.isError) return toolFailure(text === '' ? `tool "${info.name}" reported an error` : text, { response });
      return { ok: true, content: text, response };
    },
  };
}

/** The text the model reads: text parts as they are, other parts named. */
export function resultText(result: CallToolResult): string {
  const parts = result.content.map(contentText);
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return parts.join('\n');
}

function contentText(part: McpContent): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${Math.floor((part.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in part.resource ? part.resource.text : `[resource ${part.resource.uri}]`;
    case 'resource_link':
      return `[resource ${part.uri}${part.name ? ` "${part.name}"` : ''}]`;
    default:
      return JSON.stringify(part);
  }
}

/** What hooks get of one part: texts cut (redacted first) as the model's, and base64 data over the cap dropped (an embedded resource's too). */
function capContent(part: McpContent, cut: (text: string) => string): McpContent {
  if (part.type === 'text') return { ...part, text: cut(part.text) };
  if ((part.type === 'image' || part.type === 'audio') && part.data.length > MAX_TOOL_OUTPUT_CHARS) return { ...part, data: '' };
  if (part.type === 'resource') {
    const resource = part.resource;
    if ('text' in resource && typeof resource.text === 'string') return { ...part, resource: { ...resource, text: cut(resource.text) } };
    if ('blob' in resource && typeof resource.blob === 'string' && resource.blob.length > MAX_TOOL_OUTPUT_CHARS)
      return { ...part, resource: { ...resource, blob: '' } };
  }
  return part;
}

/**
 * Function parameters must be an object schema; a server that says otherwise gets an open one
 * (so does one whose schema is far too long: the listing replaced it).
 */
function objectSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  if (rest.type !== 'object') return { type: 'object', properties: {} };
  return rest;
}
