import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../error-message';
import { MCP_PREFIX, mcpServerOf } from '../mcp/mcp-names';
import { FileTooLargeError, readRegularFile } from '../read-regular-file';
import type { Tool } from './tools/tool';

/**
 * Claude Code's custom subagents: Markdown files in `.claude/agents/` (the workspace's) and
 * `~/.claude/agents/` (the user's), with a front matter of `name`, `description` and optional
 * `tools`; the body is the subagent's instructions. The Task tool's `subagent_type` picks one.
 */
export interface SubagentDefinition {
  name: string;
  description: string;
  /** The tools it is offered; absent: the built-in tools (never MCP tools, never Task). */
  tools?: string[];
  prompt: string;
  file: string;
}

/** A folder of definitions; `within`: a workspace's, whose files must really be inside the workspace (no link out). */
export interface SubagentFolder {
  dir: string;
  within?: string;
}

export interface LoadedSubagents {
  definitions: SubagentDefinition[];
  /** One line per file that was skipped, with the reason. */
  problems: string[];
}

/** The default subagent: built-in tools only. */
export const GENERAL_PURPOSE = 'general-purpose';
/** Claude Code's built-in types: here each is the general-purpose subagent under its own name. */
export const BUILTIN_SUBAGENTS: readonly string[] = [GENERAL_PURPOSE, 'Explore', 'Plan'];
const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_FILE_BYTES = 64 * 1024;
const MAX_DEFINITIONS = 100;
const MAX_TOOLS = 200;
/** Files looked at per folder: a folder of thousands of files costs no more at session start. */
const MAX_FILES = 200;

/** Each folder's `*.md`, in order: a later folder's definition of a name wins (the workspace's over the user's). */
export function loadSubagentDefinitions(folders: readonly SubagentFolder[]): LoadedSubagents {
  const byName = new Map<string, SubagentDefinition>();
  const problems: string[] = [];
  for (const { dir: folder, within } of folders) {
    if (!existsSync(folder)) continue;
    let entries: string[];
    try {
      entries = readdirSync(folder)
        .filter((f) => f.endsWith('.md'))
        .sort();
    } catch (error) {
      // A file or an unreadable folder in its place (the model can make one) costs only its definitions.
      problems.push(`${folder}: not a readable folder (${errorMessage(error)})`);
      continue;
    }
    if (entries.length > MAX_FILES) problems.push(`${folder}: more than ${MAX_FILES} files; only the first ${MAX_FILES} are read`);
    for (const entry of entries.slice(0, MAX_FILES)) {
      const file = path.join(folder, entry);
      try {
        const real = realpathSync(file);
        if (within !== undefined && !isInside(real, realpathSync(within))) {
          throw new Error('it leads out of the workspace (a link): not read');
        }
        const definition = parseSubagentFile(readDefinition(real), file);
        if (!byName.has(definition.name) && byName.size >= MAX_DEFINITIONS) throw new Error(`more than ${MAX_DEFINITIONS} subagents`);
        byName.set(definition.name, definition);
      } catch (error) {
        problems.push(`${file}: ${errorMessage(error)}`);
      }
    }
  }
  return { definitions: [...byName.values()], problems };
}

/**
 * The resolved path (a person's link was followed once, and checked above), read as a regular
 * file only: a FIFO or a device planted in the folder would block or exhaust the session start.
 */
function readDefinition(real: string): string {
  try {
    return readRegularFile(real, MAX_FILE_BYTES);
  } catch (error) {
    if (error instanceof FileTooLargeError) throw new Error(`larger than ${MAX_FILE_BYTES / 1024} KiB`);
    throw error;
  }
}

/** One definition file; throws with the reason when it is not one. */
export function parseSubagentFile(text: string, file: string): SubagentDefinition {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) throw new Error('no front matter (a --- block with name and description)');
  const fields = frontMatter(match[1]);
  const name = scalar(fields, 'name');
  if (name === undefined || !NAME.test(name)) throw new Error('"name" must be lowercase letters, digits and hyphens');
  if (name === GENERAL_PURPOSE) throw new Error(`"${GENERAL_PURPOSE}" is the built-in subagent`);
  const description = scalar(fields, 'description');
  if (!description) throw new Error('"description" is missing');
  const tools = fields.get('tools');
  const list = typeof tools === 'string' ? tools.replace(/^\[|\]$/g, '').split(',') : tools;
  const names = list?.map((t) => unquote(t.trim())).filter((t) => t !== '');
  if (names && names.length > MAX_TOOLS) throw new Error(`more than ${MAX_TOOLS} tools`);
  return { name, description, ...(names ? { tools: names } : {}), prompt: text.slice(match[0].length).trim(), file };
}

/**
 * What a subagent is offered: without a list, the built-in tools; with one, the built-in and
 * MCP tools it names (`mcp__server` names all of that server's). Task is never offered.
 */
export function subagentTools(definition: SubagentDefinition | undefined, builtins: readonly Tool[], mcpTools: readonly Tool[]): Tool[] {
  const listed = definition?.tools;
  if (!listed) return [...builtins];
  const wanted = new Set(listed);
  const servers = new Set(listed.filter((t) => t.startsWith(MCP_PREFIX) && mcpServerOf(`${t}__`) === t.slice(MCP_PREFIX.length)));
  const serverOf = (tool: Tool) => `${MCP_PREFIX}${mcpServerOf(tool.name) ?? ''}`;
  return [...builtins.filter((t) => wanted.has(t.name)), ...mcpTools.filter((t) => wanted.has(t.name) || servers.has(serverOf(t)))];
}

/** `key: value` lines and `key:` followed by `- item` lines; nothing else of YAML. */
function frontMatter(block: string): Map<string, string | string[]> {
  const fields = new Map<string, string | string[]>();
  let listKey: string | undefined;
  for (const line of block.split(/\r?\n/)) {
    const item = /^\s+-\s*(.*)$/.exec(line);
    if (item && listKey) {
      (fields.get(listKey) as string[]).push(item[1]);
      continue;
    }
    const pair = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!pair) {
      listKey = undefined;
      continue;
    }
    listKey = pair[2] === '' ? pair[1] : undefined;
    fields.set(pair[1], pair[2] === '' ? [] : pair[2]);
  }
  return fields;
}

function scalar(fields: Map<string, string | string[]>, key: string): string | undefined {
  const value = fields.get(key);
  return typeof value === 'string' ? unquote(value.trim()) : undefined;
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/** Where definitions are read from, in precedence order: the user's, then (trusted only) the workspace's. */
export function subagentFolders(projectDir: string, home: string | undefined, trusted: boolean): SubagentFolder[] {
  const user = home ? [{ dir: path.join(home, '.claude', 'agents') }] : [];
  return [...user, ...(trusted ? [{ dir: path.join(projectDir, '.claude', 'agents'), within: projectDir }] : [])];
}

function isInside(file: string, root: string): boolean {
  return file.startsWith(root + path.sep);
}
