import { MIN_SECRET_VALUE_LENGTH } from './audit/redactor';
import { expandBracedReferences } from './hooks/handlers/command-env';
import type { LoadedConfig } from './hooks/config/loaded-config';
import type { HandlerSpec, HookDefinition, ServerDefinition } from './hooks/types';
import type { McpServerConfig } from './mcp/mcp-config';
import { analyzeBashCommand } from './permissions/bash-command';
import { HOLE } from './permissions/wildcard';
import { decodedUrlPart, secretEnvValues } from './secret-env-names';

/**
 * The secrets the user's own configuration hands to a hook, an rpc server or an MCP server.
 * Those processes run as the user, so the model could read them (`/proc/<pid>/environ`,
 * `ps`, a hook's stderr, the settings file itself): they are registered with the redactor
 * like the host's own. The rules are the environment's (secret-env-names.ts), so that
 * ordinary values are never hidden: env values under secret-looking names (`NAME=value` words
 * too), option values after secret-looking flags, passwords of URLs, and credential headers.
 */

// Headers that describe the request, not who sends it: their values are common words.
const PLAIN_HEADERS = new Set(['accept', 'accept-encoding', 'accept-language', 'cache-control', 'content-type', 'user-agent']);
// Headers and query parameters named for a credential, by a whole part of the name (Authorization,
// Cookie, X-Api-Key, X-Hub-Signature-256, Private-Token, `?api_key=`): their values are secrets.
// Not X-GitHub-Api-Version.
const CREDENTIAL_NAME =
  /(?:^|[-_])(?:authorization|auth|cookie|key|apikey|token|secret|signature|session|password|passwd|credentials?)(?:[-_]\d+)?$/i;
// A value that looks generated (16+ characters, letters and digits) is a secret under any header name;
// a word (`X-Env: production`) is not, or it would be hidden from everything the model reads.
const GENERATED = /^(?=.*[A-Za-z])(?=.*\d)\S{16,}$/;
// The credential after an authentication scheme (`Bearer X`) is a secret alone too: a process may print it alone.
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Bot)\s+(\S+)$/i;
// `--api-key X`, `--token=X`.
const FLAG = /^--?([A-Za-z][\w-]*)(?:=([\s\S]*))?$/;
// curl's and wget's `-H 'Authorization: Bearer X'`, `--header=…`; `-sH …` too: the last of combined short options takes the value.
const HEADER_FLAG = /^(?:[A-Za-z]*H|header)$/;
// `docker run -e ACME_API_KEY=x`, `env ACME_TOKEN=x cmd`.
const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=([\s\S]*)$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const SHELL = /(?:^|\/)(?:ba|da|z)?sh$/;
const ENV_REFERENCE = /\$\{?[A-Za-z_]/;

/**
 * The values (and the credential of `Bearer X`) of headers named for a credential, and any
 * other header's value that looks generated; never those of PLAIN_HEADERS.
 */
export function headerSecretValues(headers: Readonly<Record<string, string>>): string[] {
  const values = Object.entries(headers).flatMap(([name, value]) => {
    if (PLAIN_HEADERS.has(name.toLowerCase())) return [];
    const whole = value.trim();
    const credential = AUTH_SCHEME.exec(whole)?.[1];
    if (!CREDENTIAL_NAME.test(name) && !GENERATED.test(credential ?? whole)) return [];
    return credential === undefined ? [whole] : [whole, credential];
  });
  return values.filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH);
}

/**
 * The secrets of a URL: the parts that look generated, a webhook's token in its path
 * (`/services/T01/B02/<token>`) or query (`?code=<token>`); the value of a query parameter named
 * for a credential (`?api_key=short`); its password. Errors never quote a URL's path, but the
 * settings file holds it.
 */
function urlSecretValues(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  // As written (`sig=Ab%2BCd`, what the settings file holds) and as decoded.
  const written = parsed.search
    .slice(1)
    .split('&')
    .map((pair) => ({ name: decodedUrlPart(pair.slice(0, Math.max(0, pair.indexOf('=')))), value: pair.slice(pair.indexOf('=') + 1) }));
  const query = [...written, ...[...parsed.searchParams].map(([name, value]) => ({ name, value }))];
  const parts = [...parsed.pathname.split('/'), ...query.map(({ value }) => value)];
  const named = query.filter(({ name }) => CREDENTIAL_NAME.test(name)).map(({ value }) => value);
  const values = [...parts.filter((part) => GENERATED.test(part)), ...named, ...secretEnvValues({ URL: url })];
  return [...new Set(values)].filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH);
}

/** A `NAME=value` word's value when NAME looks like a secret's (or the value is a URL with a password). */
function assignmentSecretValues(word: string): string[] {
  const assignment = ASSIGNMENT.exec(word);
  return assignment === null ? [] : secretEnvValues({ [assignment[1]]: assignment[2] });
}

// `curl -u user:password`, `--user=…`, `--proxy-user …`: the part after the first colon.
const USER_PASSWORD_FLAG = /^(?:-u|-U|--user|--proxy-user)$/;
const USER_PASSWORD_GLUED = /^(?:-u|--user=|--proxy-user=)(.+)$/;
// Programs whose `-pX` (and, for sshpass, `-p X`) is a password: mysql's family takes it glued only.
const GLUED_PASSWORD_PROGRAMS = new Set([
  'mysql',
  'mysqldump',
  'mysqladmin',
  'mysqlimport',
  'mysqlshow',
  'mariadb',
  'mariadb-dump',
  'sshpass',
]);

/**
 * The passwords of options that are credentials whatever they are called: `-u user:password`
 * (curl, wget), `mysql -pPASSWORD`, SEPARATE_PASSWORD_OPTIONS.
 */
function credentialOptionValues(args: readonly string[]): string[] {
  const programs = new Set(args.map((arg) => arg.slice(arg.lastIndexOf('/') + 1)));
  const glued = [...GLUED_PASSWORD_PROGRAMS].some((program) => programs.has(program));
  return args.flatMap((arg, i) => {
    const userPassword = USER_PASSWORD_FLAG.test(arg) ? args[i + 1] : USER_PASSWORD_GLUED.exec(arg)?.[1];
    // `-u :token` (no user name) too.
    const colon = userPassword?.indexOf(':') ?? -1;
    if (userPassword !== undefined && colon >= 0) return [userPassword.slice(colon + 1)];
    if (glued && /^-p./.test(arg)) return [arg.slice(2)];
    const next = args[i + 1];
    if (next === undefined) return [];
    const takes = ([program, option, subcommand]: PasswordOption) =>
      programs.has(program) && arg === option && (!subcommand || programs.has(subcommand));
    return SEPARATE_PASSWORD_OPTIONS.some(takes) ? [next] : [];
  });
}

/** A program, its option that takes a password as the next word, and the subcommand it must run under. */
type PasswordOption = readonly [program: string, option: string, subcommand?: string];
/** `sshpass -p X`, `redis-cli -a X`, `docker login -p X` (not `docker run -p 8080:80`). */
const SEPARATE_PASSWORD_OPTIONS: readonly PasswordOption[] = [
  ['sshpass', '-p'],
  ['redis-cli', '-a'],
  ['docker', '-p', 'login'],
  ['podman', '-p', 'login'],
];

/**
 * The values of options named like secrets (`--api-key X`, `--token=X`) or that are credentials
 * (credentialOptionValues), of credential headers (`-H 'Authorization: Bearer X'`) and of
 * `NAME=value` words, and the passwords of URL arguments. `env` is the environment of the
 * process the arguments are for.
 */
function argSecretValues(args: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const values = args.flatMap((arg) => [...secretEnvValues({ ARGUMENT: arg }), ...assignmentSecretValues(arg)]);
  values.push(...credentialOptionValues(args).filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH));
  args.forEach((arg, i) => {
    const flag = FLAG.exec(arg);
    if (!flag) return;
    const value = flag[2] ?? args[i + 1];
    // A flag without a value of its own is followed by the next option, not by a secret.
    if (value === undefined || (flag[2] === undefined && value.startsWith('-'))) return;
    // `--api-key-env OPENAI_API_KEY` names the variable that holds the key: the name is no secret.
    if (VARIABLE_NAME.test(value) && Object.hasOwn(env, value)) return;
    if (flag[2] !== undefined) values.push(...assignmentSecretValues(value));
    const colon = value.indexOf(':');
    if (HEADER_FLAG.test(flag[1]) && colon > 0) values.push(...headerSecretValues({ [value.slice(0, colon)]: value.slice(colon + 1) }));
    else values.push(...secretEnvValues({ [flag[1].replace(/-/g, '_')]: value }));
  });
  return [...new Set(values)];
}

/**
 * The secrets of a command hook's arguments: its exec-form `args`, or its shell-form command line
 * split into words as the shell would. A value the shell fills in (`$KEY`) is unknown here.
 */
export function commandLineSecretValues(command: string, args: readonly string[] | undefined, env: NodeJS.ProcessEnv): string[] {
  if (args !== undefined) {
    // `shell: "bash"` runs its line as `bash -c <line>`: that line holds its secrets as a shell-form command does.
    const line = SHELL.test(command) && args[0] === '-c' ? args[1] : undefined;
    return [...argSecretValues(args, env), ...(line === undefined ? [] : commandLineSecretValues(line, undefined, env))];
  }
  const analysis = analyzeBashCommand(command);
  const parsed = analysis.kind === 'parsed' ? analysis.commands.flatMap((simple) => simple.words) : [];
  // Its text split at white space too, quotes dropped: a prefix assignment (`TOKEN=x node hook.js`)
  // and a `bash -c '…'` script's words are no words of the line's commands.
  const plain = command
    .split(/\s+/)
    .filter((word) => !/[$`]/.test(word))
    .map((word) => word.replace(/["']/g, ''));
  return argSecretValues([...parsed, ...plain], env).filter((value) => !value.includes(HOLE));
}

/** A hook's or server's `env`, its `${NAME}` references filled from `base` as its process gets them. */
function envSecretValues(env: Readonly<Record<string, string>> | undefined, base: NodeJS.ProcessEnv): string[] {
  const expanded = Object.entries(env ?? {}).map(([name, value]) => [name, expandBracedReferences(value, (ref) => base[ref] ?? '')]);
  return secretEnvValues(Object.fromEntries(expanded));
}

/**
 * A hook's secrets: a command hook's `env` and arguments; an http hook's URL token, literal header
 * values and the variables it may send (`allowedEnvVars`, credentials by definition). A header that
 * names a variable is not itself one: the variable's value is registered instead.
 */
function hookSecretValues(spec: HandlerSpec, base: NodeJS.ProcessEnv): string[] {
  if (spec.type === 'command') {
    return [...envSecretValues(spec.env, base), ...commandLineSecretValues(spec.command, spec.args, { ...base, ...spec.env })];
  }
  if (spec.type !== 'http') return [];
  const literal = Object.fromEntries(Object.entries(spec.headers ?? {}).filter(([, value]) => !ENV_REFERENCE.test(value)));
  const sent = (spec.allowedEnvVars ?? []).flatMap((name) => base[name]?.trim() ?? []);
  return [...urlSecretValues(spec.url), ...headerSecretValues(literal), ...sent.filter((value) => value.length >= MIN_SECRET_VALUE_LENGTH)];
}

/** An rpc hook server's secrets: its `env` and the secret options of its command line. */
function rpcServerSecretValues(server: ServerDefinition, base: NodeJS.ProcessEnv): string[] {
  return [...envSecretValues(server.env, base), ...argSecretValues(server.command, { ...base, ...server.env })];
}

/**
 * An MCP server's secrets, once its variables are expanded: its env (its envFile's too), arguments,
 * or URL token and headers. `base` is the environment the server starts from.
 */
export function mcpServerSecretValues(server: McpServerConfig, base: NodeJS.ProcessEnv = process.env): string[] {
  if (server.transport !== 'stdio') return [...urlSecretValues(server.url), ...headerSecretValues(server.headers)];
  return [...secretEnvValues(server.env), ...argSecretValues(server.args, { ...base, ...server.env })];
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
