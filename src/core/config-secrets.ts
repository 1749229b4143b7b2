import { MIN_SECRET_VALUE_LENGTH } from './audit/redactor';
import { expandBracedReferences } from './hooks/handlers/command-env';
import type { LoadedConfig } from './hooks/config/loaded-config';
import type { HandlerSpec, HookDefinition, ServerDefinition } from './hooks/types';
import type { McpServerConfig } from './mcp/mcp-config';
import { secretEnvValues } from './secret-env-names';

/**
 * The secrets the user's own configuration hands to a hook, an rpc server or an MCP server.
 * Those processes run as the user, so the model could read them (`/proc/<pid>/environ`,
 * `ps`, a hook's stderr, the settings file itself): they are registered with the redactor
 * like the host's own. The rules are the environment's (secret-env-names.ts), so that
 * ordinary values are never hidden: env values under secret-looking names, option values
 * after secret-looking flags, passwords of URLs, and header values.
 */

// Headers that describe the request, not who sends it: their values are common words.
const PLAIN_HEADERS = new Set(['accept', 'accept-encoding', 'accept-language', 'cache-control', 'content-type', 'user-agent']);
// The credential after an authentication scheme (`Bearer X`) is a secret alone too: a process may print it alone.
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i;
// `--api-key X`, `--token=X`.
const FLAG = /^--?([A-Za-z][\w-]*)(?:=([\s\S]*))?$/;
const ENV_REFERENCE = /\$\{?[A-Za-z_]/;

/** Every header value (and the credential of `Bearer X`), but those of PLAIN_HEADERS. */
export function headerSecretValues(headers: Readonly<Record<string, string>>): string[] {
  const values = Object.entries(headers).flatMap(([name, value]) => {
    if (PLAIN_HEADERS.has(name.toLowerCase())) return [];
    const whole = value.trim();
    const credential = AUTH_SCHEME.exec(whole)?.[1];
    return credential === undefined ? [whole] : [whole, credential];
  });
  return values.filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH);
}

/** The values of options named like secrets (`--api-key X`, `--token=X`) and the passwords of URL arguments. */
function argSecretValues(args: readonly string[]): string[] {
  const values = args.flatMap((arg) => secretEnvValues({ ARGUMENT: arg }));
  args.forEach((arg, i) => {
    const flag = FLAG.exec(arg);
    if (!flag) return;
    const value = flag[2] ?? args[i + 1];
    // A flag without a value of its own is followed by the next option, not by a secret.
    if (value === undefined || (flag[2] === undefined && value.startsWith('-'))) return;
    values.push(...secretEnvValues({ [flag[1].replace(/-/g, '_')]: value }));
  });
  return [...new Set(values)];
}

/** A hook's or server's `env`, its `${NAME}` references filled from `base` as its process gets them. */
function envSecretValues(env: Readonly<Record<string, string>> | undefined, base: NodeJS.ProcessEnv): string[] {
  const expanded = Object.entries(env ?? {}).map(([name, value]) => [name, expandBracedReferences(value, (ref) => base[ref] ?? '')]);
  return secretEnvValues(Object.fromEntries(expanded));
}

/**
 * A hook's secrets: a command hook's `env` and arguments; an http hook's literal header values
 * and the variables it may send (`allowedEnvVars`, credentials by definition). A header that
 * names a variable is not itself one: the variable's value is registered instead.
 */
function hookSecretValues(spec: HandlerSpec, base: NodeJS.ProcessEnv): string[] {
  if (spec.type === 'command') return [...envSecretValues(spec.env, base), ...argSecretValues(spec.args ?? [])];
  if (spec.type !== 'http') return [];
  const literal = Object.fromEntries(Object.entries(spec.headers ?? {}).filter(([, value]) => !ENV_REFERENCE.test(value)));
  const sent = (spec.allowedEnvVars ?? []).flatMap((name) => base[name]?.trim() ?? []);
  return [...headerSecretValues(literal), ...sent.filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH)];
}

/** An rpc hook server's secrets: its `env` and the secret options of its command line. */
function rpcServerSecretValues(server: ServerDefinition, base: NodeJS.ProcessEnv): string[] {
  return [...envSecretValues(server.env, base), ...argSecretValues(server.command)];
}

/** An MCP server's secrets, once its variables are expanded: its env (its envFile's too), arguments, or headers. */
export function mcpServerSecretValues(server: McpServerConfig): string[] {
  if (server.transport !== 'stdio') return headerSecretValues(server.headers);
  return [...secretEnvValues(server.env), ...argSecretValues(server.args)];
}

/** Every secret of the hooks and rpc servers of a merged configuration. */
export function configSecretValues(config: Pick<LoadedConfig, 'hooks' | 'servers'>, base: NodeJS.ProcessEnv): string[] {
  return [
    ...config.hooks.flatMap((hook) => hookSecretValues(hook.spec, base)),
    ...config.servers.flatMap((server) => rpcServerSecretValues(server, base)),
  ];
}

/** The variables http hooks may send as credentials (`allowedEnvVars`): secrets whatever their names. */
export function httpHookEnvVarNames(hooks: readonly HookDefinition[]): string[] {
  return [...new Set(hooks.flatMap((hook) => (hook.spec.type === 'http' ? (hook.spec.allowedEnvVars ?? []) : [])))];
}
