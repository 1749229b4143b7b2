import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Disposable } from '../events-emitter';

/** What a run needs to know of the process it gets: how it spawns (shell, directory, env). */
export interface ShellRequest {
  command: string;
  args?: string[];
  shell?: boolean | string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

export interface PrestartedShell {
  child: ChildProcess;
  /** Written to stdin ahead of the run's own input: the shell reads it, then evals it. */
  commandLine: string;
}

/**
 * The shell reads one line, forgets it and evals it, so the command runs in the same shell
 * with the same $0 as `sh -c command`. At end of input (the host went away) it just exits.
 */
const WAITING_SHELL = 'IFS= read -r __hookpilot_line || exit 0; eval "unset __hookpilot_line; $__hookpilot_line"';
const SHELL = '/bin/sh';
/** Parallel runs beyond this start cold: a priority group rarely has more command hooks. */
const MAX_SHELLS = 4;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The shell sets or reads these only as it starts: a difference here needs a fresh shell. */
const SET_AT_START = new Set(['IFS', 'PS1', 'PS2', 'PS4', 'OPTIND', 'PPID', 'PWD', 'OLDPWD', 'ENV', 'LINENO', 'MAIL', 'MAILCHECK', 'MAILPATH']);

/** `'...'` quoting: everything inside is literal, a quote is closed, escaped and reopened. */
function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The statements that turn `from` into `to`, or undefined when a shell cannot express them. */
function environmentChange(from: NodeJS.ProcessEnv, to: NodeJS.ProcessEnv): string | undefined {
  const statements: string[] = [];
  for (const [name, value] of Object.entries(to)) {
    if (value === undefined || from[name] === value) continue;
    if (!ENV_NAME.test(name) || SET_AT_START.has(name)) return undefined;
    statements.push(`export ${name}=${quote(value)}; `);
  }
  for (const name of Object.keys(from)) {
    if (from[name] === undefined || to[name] !== undefined) continue;
    if (!ENV_NAME.test(name) || SET_AT_START.has(name)) return undefined;
    statements.push(`unset ${name}; `);
  }
  return statements.join('');
}

function directoryIdOf(dir: string): string | undefined {
  try {
    const stat = statSync(dir);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

function setRef(child: ChildProcess, ref: boolean): void {
  for (const target of [child, child.stdin, child.stdout, child.stderr] as Array<Pick<Socket, 'ref' | 'unref'> | null>) {
    if (ref) target?.ref();
    else target?.unref();
  }
}

/**
 * `/bin/sh` processes started ahead of need, each waiting for one command line on stdin.
 * A short hook is mostly the cost of forking the host and exec'ing the shell; a run that
 * takes a waiting shell skips both, and the next shells are started once nothing runs, off
 * every hook's critical path. The shell evals the same command line, in the same directory,
 * with the same $0 and, after exporting what differs, the same environment as `sh -c` would.
 * Idle shells never keep the host alive, and exit when it goes away.
 */
export class PrestartedShells implements Disposable {
  private idle: Array<{ child: ChildProcess; env: NodeJS.ProcessEnv }> = [];
  private template: { cwd: string; env: NodeJS.ProcessEnv } | undefined;
  /** The directory the waiting shells run in, as it was when they started. */
  private directoryId: string | undefined;
  private running = 0;
  private wanted = 0;
  private filling: NodeJS.Immediate | undefined;
  private disposed = false;

  /** How many shells wait for a command now. */
  get waiting(): number {
    return this.idle.length;
  }

  /** Marks a run as started and hands it a waiting shell when one fits the request. */
  acquire(request: ShellRequest): PrestartedShell | undefined {
    this.running++;
    // Only plain `sh -c command` runs fit: no positional args, another shell or multi-line script.
    if (this.disposed || request.shell !== true || request.args?.length || request.command.includes('\n')) return undefined;
    // A directory removed (or replaced) since the shells started would not be the one asked for.
    if (this.template?.cwd !== request.cwd || this.directoryId !== directoryIdOf(request.cwd)) this.retire();
    this.template = { cwd: request.cwd, env: request.env };
    this.wanted = Math.min(MAX_SHELLS, Math.max(this.wanted, this.running));
    while (this.idle.length > 0) {
      const shell = this.idle.shift();
      if (!shell || shell.child.exitCode !== null || shell.child.signalCode !== null) continue;
      const change = environmentChange(shell.env, request.env);
      if (change === undefined) {
        this.idle.push(shell);
        return undefined;
      }
      setRef(shell.child, true);
      return { child: shell.child, commandLine: `${change}${request.command}\n` };
    }
    return undefined;
  }

  /** Marks a run as finished; once none runs, the shells used up are started again. */
  release(): void {
    this.running = Math.max(0, this.running - 1);
    if (this.running === 0 && !this.filling && !this.disposed) this.filling = setImmediate(() => this.fill());
  }

  dispose(): void {
    this.disposed = true;
    if (this.filling) clearImmediate(this.filling);
    this.retire();
  }

  private fill(): void {
    this.filling = undefined;
    const template = this.template;
    if (!template || this.disposed || this.running > 0) return;
    this.directoryId = directoryIdOf(template.cwd);
    if (this.directoryId === undefined) return;
    while (this.idle.length < this.wanted) {
      let child: ChildProcess;
      try {
        child = spawn(SHELL, ['-c', WAITING_SHELL, SHELL], { cwd: template.cwd, env: template.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
      } catch {
        return;
      }
      // No pid: it could not start (the directory is gone); the next run spawns as usual.
      if (child.pid === undefined) return;
      const shell = { child, env: template.env };
      // A shell that dies while it waits is simply not used.
      child.on('error', () => undefined);
      child.stdin?.on('error', () => undefined);
      child.once('exit', () => (this.idle = this.idle.filter((s) => s !== shell)));
      setRef(child, false);
      this.idle.push(shell);
    }
  }

  private retire(): void {
    for (const { child } of this.idle) child.kill('SIGKILL');
    this.idle = [];
  }
}
