import type { Tool as McpToolDefinition } from '@modelcontextprotocol/sdk/types.js';

/**
 * What the host keeps of a server's tool listing: each tool's texts cut as they are listed,
 * and the listing's total bounded, so a server cannot grow our memory or every model request
 * with names, descriptions or schemas.
 */

/** Most characters of a tool's name where it is shown: the model's tool description, the Hook Manager, errors. */
export const MAX_SHOWN_NAME_CHARS = 200;
/** Claude Code cuts MCP tool descriptions at 2048 characters too. */
export const MAX_DESCRIPTION_CHARS = 2048;
/** An input schema longer than this (as JSON) is kept as an open object: it would ride along with every request. */
export const MAX_SCHEMA_CHARS = 16_000;
/** Most bytes kept of one server's tool listing (whole names, cut texts, schemas); the tools listed before it are offered. */
export const MAX_LISTING_BYTES = 4 * 1024 * 1024;

export interface ListedTool {
  /** The tool's whole name: what a call sends. */
  callName: string;
  /** The name cut to MAX_SHOWN_NAME_CHARS. */
  name: string;
  /** Its description (else title, else name) cut to MAX_DESCRIPTION_CHARS. */
  description: string;
  inputSchema: Record<string, unknown>;
  /** The schema was over MAX_SCHEMA_CHARS (or could not be written out) and is an open object instead. */
  schemaReplaced: boolean;
  readOnly: boolean;
  /** About what the host keeps of it: the whole name, the description, the schema as JSON. */
  bytes: number;
}

/** One tool as the host keeps it: nothing of the listed definition is held beyond what this returns. */
export function listedTool(tool: McpToolDefinition): ListedTool {
  const name = shownToolName(tool.name);
  const description = cut(tool.description ?? tool.title ?? tool.name, MAX_DESCRIPTION_CHARS);
  const schemaChars = jsonLength(tool.inputSchema);
  const schemaReplaced = schemaChars > MAX_SCHEMA_CHARS;
  const inputSchema = schemaReplaced ? { type: 'object', properties: {} } : (tool.inputSchema as Record<string, unknown>);
  // The shown name is at most MAX_SHOWN_NAME_CHARS more.
  const bytes = Buffer.byteLength(tool.name) + Buffer.byteLength(description) + (schemaReplaced ? 0 : schemaChars);
  return { callName: tool.name, name, description, inputSchema, schemaReplaced, readOnly: tool.annotations?.readOnlyHint === true, bytes };
}

/** A tool's name as people, the model and errors see it. */
export function shownToolName(name: string): string {
  return name.length <= MAX_SHOWN_NAME_CHARS ? name : `${cut(name, MAX_SHOWN_NAME_CHARS)}…`;
}

/** `text` cut to `max` characters, copied: V8 keeps a whole string alive for any slice of it. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : Buffer.from(text.slice(0, max), 'utf8').toString('utf8');
}

/** A schema's length as JSON; one too deep to be written out counts as too long. */
function jsonLength(schema: unknown): number {
  try {
    return JSON.stringify(schema).length;
  } catch {
    return Infinity;
  }
}
