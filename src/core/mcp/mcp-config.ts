import { z } from 'zod';
import {
  ProblemList,
  parseEntry,
  unreadableFileProblem,
  type ConfigProblem,
  type JsonPath,
  type Locator,
} from '../hooks/config/config-problems';
import { parseJsonc } from '../hooks/config/jsonc-document';
import { claudeCodeServerName, MAX_SERVER_NAME_LENGTH, sanitizeServerName } from './mcp-names';
import { errnoCode } from '../agent/tools/file-content';
import { errorMessage } from '../error-message';
import { readConfigText } from '../read-regular-file';

/** Where a server was defined: the user's settings, the workspace's files, or `--mcp-config`. */
export interface McpSource {
  kind: 'user' | 'workspace' | 'cli';
  file?: string;
}

interface ServerCommon {
  /** The name in tool names (`mcp__<name>__tool`), sanitised. */
  name: string;
  source: McpSource;
  disabled: boolean;
  /** Per-call timeout in ms; default McpManager's. */
  timeoutMs?: number;
}

export type McpServerConfig =
  | (ServerCommon & { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; envFile?: string; cwd?: string })
  | (ServerCommon & { transport: 'http' | 'sse'; url: string; headers: Record<string, string> });

/** VS Code's `inputs`: a value asked for once (`${input:id}`), a secret when `password`. */
export interface McpInput {
  id: string;
  description: string;
  password: boolean;
  default?: string;
}

export interface LoadedMcpConfig {
  servers: McpServerConfig[];
  inputs: McpInput[];
  problems: ConfigProblem[];
}

/**
 * Whose definition of a server name is used: the person's own sources before the workspace's,
 * which a cloned repository writes. Otherwise a repository's server of the same name would take
 * over what the person configured for theirs: their `mcp_tool` hooks and `mcp__<name>` rules.
 */
const PRECEDENCE: readonly McpSource['kind'][] = ['cli', 'user', 'workspace'];

/** A definition that lost its name to one of higher precedence. */
export interface RefusedMcpServer {
  server: McpServerConfig;
  kept: McpServerConfig;
}

/**
 * The servers of these sources, one per name: the first definition of a name wins (as an rpc
 * hook's `servers` do), with the sources taken in precedence order (`--mcp-config` files, the
 * user setting, then the workspace's files, each kind in the order given), whatever order they
 * are given in. Both hosts start their servers through this.
 */
export function serversByPrecedence(sources: readonly LoadedMcpConfig[]): { servers: McpServerConfig[]; refused: RefusedMcpServer[] } {
  const ranked = sources
    .flatMap((source) => source.servers)
    .map((server, index) => ({ server, index }))
    .sort((a, b) => PRECEDENCE.indexOf(a.server.source.kind) - PRECEDENCE.indexOf(b.server.source.kind) || a.index - b.index);
  const byName = new Map<string, McpServerConfig>();
  const refused: RefusedMcpServer[] = [];
  for (const { server } of ranked) {
    const kept = byName.get(server.name);
    if (kept) refused.push({ server, kept });
    else byName.set(server.name, server);
  }
  return { servers: [...byName.values()], refused };
}

const serverSchema = z.strictObject({
  type: z.enum(['stdio', 'http', 'sse']).optional(),
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  // VS Code allows numbers and null (unset) in env.
  env: z.record(z.string(), z.union([z.string(), z.number(), z.null()])).optional(),
  envFile: z.string().optional(),
  cwd: z.string().optional(),
  url: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  disabled: z.boolean().optional(),
  timeout: z.number().int().positive().max(86_400_000).optional(),
  // VS Code's development options: accepted, not used.
  dev: z.unknown().optional(),
  gallery: z.unknown().optional(),
  version: z.unknown().optional(),
});
const SERVER_KEYS = Object.keys(serverSchema.shape);

const inputSchema = z.strictObject({
  type: z.literal('promptString'),
  id: z.string().min(1),
  description: z.string().default(''),
  password: z.boolean().default(false),
  default: z.string().optional(),
});

/** A `.vscode/mcp.json` or `.mcp.json` text (JSONC): each problem at its position. */
export function loadMcpDocument(text: string, source: McpSource): LoadedMcpConfig {
  const { value, locator, syntaxErrors } = parseJsonc(text);
  const problems = new ProblemList({ kind: source.kind, file: source.file }, locator);
  for (const error of syntaxErrors) problems.addAt(error.range, 'error', 'syntax', error.message);
  const loaded = loadMcpFileValue(value ?? {}, source, problems);
  return { ...loaded, problems: problems.sorted() };
}

/**
 * A `.vscode/mcp.json`, `.mcp.json` or `--mcp-config` file as loaded, or undefined when there
 * is none. One that is there but cannot be read (a link to a device, a FIFO, over the size
 * limit) loads as no servers and a problem saying why: a cloned repository controls these.
 */
export function readMcpDocument(file: string, source: McpSource): LoadedMcpConfig | undefined {
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    return { servers: [], inputs: [], problems: [unreadableFileProblem(file, source.kind, errorMessage(error))] };
  }
  return loadMcpDocument(text, source);
}

/** The `hookpilot.mcpServers` setting: server name → server; `locator` places problems in a settings file. */
export function loadMcpSetting(value: unknown, source: McpSource, locator?: Locator): LoadedMcpConfig {
  const problems = new ProblemList({ kind: source.kind, file: source.file }, locator);
  const servers = loadServerMap(value ?? {}, ['hookpilot.mcpServers'], source, problems);
  return { servers, inputs: [], problems: problems.sorted() };
}

function loadMcpFileValue(value: unknown, source: McpSource, problems: ProblemList): Omit<LoadedMcpConfig, 'problems'> {
  if (!isObject(value)) {
    problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: 'An MCP configuration must be a JSON object with "servers" or "mcpServers".',
      path: [],
    });
    return { servers: [], inputs: [] };
  }
  for (const key of Object.keys(value)) {
    if (!['servers', 'mcpServers', 'inputs'].includes(key)) {
      problems.add({
        severity: 'warning',
        code: 'unknown-property',
        message: `Unknown property "${key}" (ignored).`,
        path: [key],
        part: 'key',
      });
    }
  }
  // VS Code's file says `servers`, Claude Code's `mcpServers`; a file may hold either.
  const servers = [
    ...(value.servers === undefined ? [] : loadServerMap(value.servers, ['servers'], source, problems)),
    ...(value.mcpServers === undefined ? [] : loadServerMap(value.mcpServers, ['mcpServers'], source, problems)),
  ];
  if (value.servers === undefined && value.mcpServers === undefined) {
    problems.add({
      severity: 'warning',
      code: 'missing-field',
      message: 'No "servers" (VS Code) or "mcpServers" (Claude Code): no MCP server is defined here.',
      path: [],
    });
  }
  const inputs = loadInputs(value.inputs, problems);
  return { servers, inputs };
}

function loadInputs(value: unknown, problems: ProblemList): McpInput[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.add({ severity: 'error', code: 'invalid-value', message: '"inputs" must be an array.', path: ['inputs'] });
    return [];
  }
  return value.flatMap((entry, index) => {
    const input = parseEntry(inputSchema, entry, ['inputs', index], problems, Object.keys(inputSchema.shape));
    return input ? [input] : [];
  });
}

function loadServerMap(value: unknown, at: JsonPath, source: McpSource, problems: ProblemList): McpServerConfig[] {
  if (!isObject(value)) {
    problems.add({
      severity: 'error',
      code: 'invalid-value',
      message: `${String(at.at(-1))} must be an object of servers by name.`,
      path: at,
    });
    return [];
  }
  const out: McpServerConfig[] = [];
  const seen = new Set<string>();
  for (const [rawName, entry] of Object.entries(value)) {
    const path = [...at, rawName];
    const name = sanitizeServerName(rawName);
    if (name === '' || name.length > MAX_SERVER_NAME_LENGTH) {
      const message = `"${rawName}" is not a usable server name: use letters, digits, _ and -, at most ${MAX_SERVER_NAME_LENGTH}.`;
      problems.add({ severity: 'error', code: 'invalid-value', message, path, part: 'key' });
      continue;
    }
    if (seen.has(name)) {
      problems.add({
        severity: 'error',
        code: 'server-clash',
        message: `Server "${rawName}" has the same tool prefix mcp__${name}__ as another server here.`,
        path,
        part: 'key',
      });
      continue;
    }
    const server = toServer(name, entry, path, source, problems);
    if (!server) continue;
    seen.add(name);
    const claudeCode = claudeCodeServerName(rawName);
    if (claudeCode !== undefined) {
      // Said every time: a deny rule copied from Claude Code's settings would otherwise deny nothing, silently.
      const message =
        `Server "${rawName}" is offered as mcp__${name}__<tool> (no name holds "__" here): rules, hook matchers and \`if\` must name it mcp__${name}; ` +
        `Claude Code's spelling mcp__${claudeCode}__<tool> matches none of its tools, so a deny rule written so denies nothing.`;
      problems.add({ severity: 'warning', code: 'invalid-value', message, path, part: 'key' });
    }
    out.push(server);
  }
  return out;
}

function toServer(name: string, entry: unknown, path: JsonPath, source: McpSource, problems: ProblemList): McpServerConfig | undefined {
  const parsed = parseEntry(serverSchema, entry, path, problems, SERVER_KEYS);
  if (!parsed) return undefined;
  const common = { name, source, disabled: parsed.disabled ?? false, ...(parsed.timeout ? { timeoutMs: parsed.timeout } : {}) };
  const transport = parsed.type ?? (parsed.command !== undefined ? 'stdio' : parsed.url !== undefined ? 'http' : undefined);
  if (transport === undefined) {
    problems.add({
      severity: 'error',
      code: 'missing-field',
      message: `Server "${name}" needs a "command" (stdio) or a "url" (http, sse).`,
      path,
    });
    return undefined;
  }
  if (transport === 'stdio') {
    if (parsed.command === undefined) {
      problems.add({ severity: 'error', code: 'missing-field', message: `Server "${name}" is stdio: it needs a "command".`, path });
      return undefined;
    }
    const env = Object.fromEntries(Object.entries(parsed.env ?? {}).flatMap(([k, v]) => (v === null ? [] : [[k, String(v)]])));
    return { ...common, transport, command: parsed.command, args: parsed.args ?? [], env, envFile: parsed.envFile, cwd: parsed.cwd };
  }
  if (parsed.url === undefined) {
    problems.add({ severity: 'error', code: 'missing-field', message: `Server "${name}" is ${transport}: it needs a "url".`, path });
    return undefined;
  }
  // Variables are expanded at start; the scheme is checked there once the URL is whole.
  return { ...common, transport, url: parsed.url, headers: parsed.headers ?? {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
