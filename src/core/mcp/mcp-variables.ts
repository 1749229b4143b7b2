import os from 'node:os';
import path from 'node:path';
import { parseEnv } from 'node:util';
import type { McpInput, McpServerConfig } from './mcp-config';
import { errorMessage } from '../error-message';
import { readConfigText } from '../read-regular-file';

export interface VariableContext {
  /**
   * Undefined while the workspace is untrusted (VS Code's Restricted Mode), which contributes
   * nothing to a server: `${workspaceFolder}` and a relative `cwd` or `envFile` are then errors.
   */
  workspaceFolder: string | undefined;
  env: NodeJS.ProcessEnv;
  inputs: readonly McpInput[];
  /** Asks for an `${input:id}` value (VS Code); undefined where no one can be asked (the CLI). */
  resolveInput?: (input: McpInput) => Promise<string | undefined>;
}

const VARIABLE = /\$\{([^}]+)\}/g;

/**
 * Expands VS Code's `${workspaceFolder}`, `${userHome}`, `${env:NAME}`, `${input:id}` and
 * Claude Code's `${NAME}` / `${NAME:-default}` in every string of a server. A variable that
 * has no value is an error naming it: a server started with half its settings would fail
 * later and less clearly.
 */
export async function expandServer(server: McpServerConfig, ctx: VariableContext): Promise<McpServerConfig> {
  const values = new Map<string, string>();
  const wanted = new Set<string>();
  const strings = serverStrings(server);
  for (const text of strings) for (const m of text.matchAll(VARIABLE)) wanted.add(m[1]);
  // Refused before anyone is asked for an input.
  if (ctx.workspaceFolder === undefined && wanted.has('workspaceFolder')) throw untrusted('it uses ${workspaceFolder}');
  for (const name of wanted) values.set(name, await valueOf(name, ctx));
  const expand = (text: string) => text.replace(VARIABLE, (_, name: string) => values.get(name) ?? '');
  const map = (record: Record<string, string>) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, expand(v)]));
  if (server.transport !== 'stdio') {
    const url = expand(server.url);
    if (!/^https?:\/\//i.test(url)) throw new Error(`"${url}" is not an http(s) URL`);
    return { ...server, url, headers: map(server.headers) };
  }
  const inFolder = (key: 'cwd' | 'envFile', file: string) => {
    if (ctx.workspaceFolder !== undefined) return path.resolve(ctx.workspaceFolder, file);
    if (!path.isAbsolute(file)) throw untrusted(`its ${key} "${file}" is relative to the workspace folder`);
    return path.resolve(file);
  };
  const envFile = server.envFile === undefined ? undefined : inFolder('envFile', expand(server.envFile));
  const env = { ...(envFile ? readEnvFile(envFile) : {}), ...map(server.env) };
  const cwd = server.cwd === undefined ? undefined : inFolder('cwd', expand(server.cwd));
  return { ...server, command: expand(server.command), args: server.args.map(expand), env, envFile, cwd };
}

function untrusted(what: string): Error {
  return new Error(`${what}, and an untrusted workspace's folder is not used (Restricted Mode); it starts once the workspace is trusted`);
}

function serverStrings(server: McpServerConfig): string[] {
  if (server.transport !== 'stdio') return [server.url, ...Object.values(server.headers)];
  return [server.command, ...server.args, ...Object.values(server.env), server.envFile ?? '', server.cwd ?? ''];
}

async function valueOf(name: string, ctx: VariableContext): Promise<string> {
  if (name.startsWith('input:')) return inputValue(name.slice('input:'.length), ctx);
  const value = knownValue(name, ctx);
  if (value === undefined) throw new Error(`the environment variable ${variableOf(name)} is not set (\${${name}})`);
  return value;
}

/** A variable's value where no one need be asked: undefined for `${input:id}` and unset variables. */
function knownValue(name: string, ctx: Pick<VariableContext, 'workspaceFolder' | 'env'>): string | undefined {
  if (name === 'workspaceFolder') return ctx.workspaceFolder;
  if (name === 'userHome') return os.homedir();
  if (name.startsWith('input:')) return undefined;
  const [variable, fallback] = name.startsWith('env:') ? [name.slice(4), undefined] : splitDefault(name);
  return ctx.env[variable] ?? fallback;
}

function variableOf(name: string): string {
  return name.startsWith('env:') ? name.slice(4) : splitDefault(name)[0];
}

/**
 * `text` with every variable expandServer would fill without asking anyone filled the same
 * way; `${input:id}` and unset variables stay as written.
 */
export function expandKnownVariables(text: string, ctx: Pick<VariableContext, 'workspaceFolder' | 'env'>): string {
  return text.replace(VARIABLE, (whole, name: string) => knownValue(name, ctx) ?? whole);
}

/**
 * What a server's `${input:id}` answers are sent to, with the variables filled that a start fills
 * without asking: for http and sse the URL's origin and path (another query is the same server),
 * for stdio what is run and how (command, args, cwd, env, envFile). An answer is kept for this: a
 * repository update that points the server elsewhere gets no kept answer unasked.
 */
export function inputDestination(server: McpServerConfig, ctx: Pick<VariableContext, 'workspaceFolder' | 'env'>): string {
  const expand = (text: string) => expandKnownVariables(text, ctx);
  if (server.transport !== 'stdio') {
    const url = expand(server.url);
    // A URL still holding an unfilled variable may not parse: then it is taken whole.
    if (!URL.canParse(url)) return url;
    const { origin, pathname } = new URL(url);
    return origin + pathname;
  }
  const env = Object.entries(server.env).map(([name, value]) => [name, expand(value)]);
  const cwd = server.cwd === undefined ? undefined : expand(server.cwd);
  const envFile = server.envFile === undefined ? undefined : expand(server.envFile);
  return JSON.stringify({ command: expand(server.command), args: server.args.map(expand), cwd, env, envFile });
}

function splitDefault(name: string): [string, string | undefined] {
  const at = name.indexOf(':-');
  return at < 0 ? [name, undefined] : [name.slice(0, at), name.slice(at + 2)];
}

async function inputValue(id: string, ctx: VariableContext): Promise<string> {
  const input = ctx.inputs.find((i) => i.id === id);
  if (!input) throw new Error(`\${input:${id}} is used but no input "${id}" is defined in "inputs"`);
  if (!ctx.resolveInput) throw new Error(`\${input:${id}} needs an answer from a person: only VS Code can ask for it`);
  const value = await ctx.resolveInput(input);
  if (value === undefined) throw new Error(`no value was given for \${input:${id}}`);
  return value;
}

/** A server's `envFile` as its start reads it: only a regular file (a FIFO or `/dev/zero` link is an error). */
export function readEnvFile(file: string): Record<string, string> {
  let text: string;
  try {
    text = readConfigText(file);
  } catch (error) {
    throw new Error(`cannot read envFile ${file}: ${errorMessage(error)}`);
  }
  return Object.fromEntries(Object.entries(parseEnv(text)).flatMap(([k, v]) => (v === undefined ? [] : [[k, v]])));
}
