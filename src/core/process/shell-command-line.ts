/**
 * The line a waiting shell reads and evals: `export`/`unset` statements that turn the
 * environment it started with into the one a run asks for, then the run's command.
 */

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/**
 * Variables a shell sets, reads or locks only as it starts (dash's and bash's): exporting a
 * new value later would not mean what it means in a fresh `sh -c`, or would fail.
 */
const SET_AT_START = new Set([
  'IFS',
  'PS1',
  'PS2',
  'PS4',
  'OPTIND',
  'PPID',
  'PWD',
  'OLDPWD',
  'ENV',
  'LINENO',
  'MAIL',
  'MAILCHECK',
  'MAILPATH',
  'SHLVL',
  'SHELLOPTS',
  'BASHOPTS',
  'BASH_ENV',
  'POSIXLY_CORRECT',
  'UID',
  'EUID',
  'GROUPS',
  'HOSTNAME',
]);

/** `'...'` quoting: everything inside is literal, a quote is closed, escaped and reopened. */
export function shellQuoted(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The statement that exports `name` with `value` in a POSIX shell. */
export function exportStatement(name: string, value: string): string {
  return `export ${name}=${shellQuoted(value)}; `;
}

function expressible(name: string, value = ''): boolean {
  // The shell reads one line: a newline anywhere would end it early.
  return ENV_NAME.test(name) && !SET_AT_START.has(name) && !value.includes('\n');
}

/**
 * What a waiting shell starts with: the variables its line could not set, and those `shown`
 * (the starting environment of the process that starts it) already holds with the same value.
 * Any process of the user reads a process's starting environment (/proc/PID/environ) for as
 * long as it waits, so a run's own values (a hook's `env`) are exported in its line instead;
 * the line stays short, which matters because dash's `read` takes it one byte per system call.
 */
export function waitingShellEnv(env: NodeJS.ProcessEnv, shown: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(env).filter(([name, value]) => value !== undefined && (!expressible(name, value) || shown[name] === value)),
  );
}

/**
 * The one line that runs `command` in `to` for a shell started in `from`, or undefined when
 * no such line exists (a multi-line command or value, a name a shell cannot export).
 */
export function shellCommandLine(from: NodeJS.ProcessEnv, to: NodeJS.ProcessEnv, command: string): string | undefined {
  if (command.includes('\n')) return undefined;
  const statements: string[] = [];
  for (const [name, value] of Object.entries(to)) {
    if (value === undefined || from[name] === value) continue;
    if (!expressible(name, value)) return undefined;
    statements.push(exportStatement(name, value));
  }
  for (const name of Object.keys(from)) {
    if (from[name] === undefined || to[name] !== undefined) continue;
    if (!expressible(name)) return undefined;
    statements.push(`unset ${name}; `);
  }
  return `${statements.join('')}${command}\n`;
}
