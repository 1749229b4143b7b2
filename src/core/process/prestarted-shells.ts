import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Disposable } from '../events-emitter';
import { RUN_MARKER_VARIABLE, withRunMarker } from './marked-processes';
import { ownStartingEnvironment, procStat } from './proc-stat';
import { isBash, shellScriptArguments } from './shell-arguments';
import { exportStatement, shellCommandLine, waitingShellEnv } from './shell-command-line';
import { shellForksSingleCommands } from './shell-fork-probe';

/** What a run needs to know of the process it gets: how it spawns (shell, directory, env). */
export interface ShellRequest {
  command: string;
  args?: string[];
  shell?: boolean | string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** RUN_MARKER_VARIABLE's value for the run: exported ahead of the command, not part of `env`. */
  runMarker?: string;
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
/** bash reads up to a NUL, which no command can hold: a command of several lines fits too. */
const WAITING_BASH = `IFS= read -r -d '' __hookpilot_line || exit 0; eval "unset __hookpilot_line; $__hookpilot_line"`;
const SHELL = '/bin/sh';
/** Parallel runs beyond this start cold: a priority group rarely has more command hooks. */
const MAX_SHELLS = 4;

function directoryIdOf(dir: string): string | undefined {
  try {
    const stat = statSync(dir);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/**
 * Dead, but its exit not yet seen by this process (a zombie): handing it out would lose the
 * run. Only Linux says so cheaply; elsewhere the exit event is the only sign.
 */
function exitedUnseen(pid: number | undefined): boolean {
  return pid !== undefined && procStat(pid)?.state === 'Z';
}

function sameEnv(a: NodeJS.ProcessEnv, b: NodeJS.ProcessEnv): boolean {
  const names = Object.keys(a).filter((name) => a[name] !== undefined);
  return names.length === Object.keys(b).filter((name) => b[name] !== undefined).length && names.every((name) => a[name] === b[name]);
}

/** A waiting bash's line: the run's marker, then its command, up to the NUL bash reads to. */
function bashCommandLine(request: ShellRequest): string {
  const marker = request.runMarker === undefined ? '' : exportStatement(RUN_MARKER_VARIABLE, request.runMarker);
  return `${marker}${request.command}\0`;
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
 * with the same $0 and, after exporting what differs, the same environment as `sh -c` would,
 * and is used only where `sh -c` forks for a single command too (dash; not bash, which execs
 * it). Idle shells never keep the host alive, and exit when it goes away.
 */
export interface PrestartedShellsOptions {
  /**
   * For the model's Bash tool: bash shells, for runs of `bash -c` (any command, several lines
   * included) whose environment is exactly the one the shells started with, since
   * /proc/PID/environ keeps a process's starting environment and no variable a run dropped
   * may linger there. An eval'ing bash forks where `bash -c` would exec a lone last command:
   * that command sees the shell as its parent, and its death by a signal ends the run with
   * exit status 128+n, the status the Bash tool reports for either.
   */
  bash?: boolean;
}

export class PrestartedShells implements Disposable {
  private idle: Array<{ child: ChildProcess; env: NodeJS.ProcessEnv }> = [];
  private template: { cwd: string; env: NodeJS.ProcessEnv; shell: string } | undefined;
  private readonly bash: boolean;
  /** The directory the waiting shells run in, as it was when they started. */
  private directoryId: string | undefined;
  private running = 0;
  private wanted = 0;
  private filling: NodeJS.Immediate | undefined;
  private probing = false;
  private settledWaiters: Array<() => void> = [];
  private disposed = false;
  /** Whether this machine's `sh -c` forks for a single command; undefined until asked. */
  private shellForks: boolean | undefined;

  /** How many shells wait for a command now. */
  get waiting(): number {
    return this.idle.length;
  }

  constructor(options: PrestartedShellsOptions = {}) {
    this.bash = options.bash ?? false;
  }

  /**
   * Resolves once no start of shells is due or under way: the last one started its shells,
   * failed, or found nothing to do. A caller that needs a shell waiting (or knows none can
   * start) learns it from this rather than from the clock.
   */
  whenSettled(): Promise<void> {
    if (!this.starting) return Promise.resolve();
    return new Promise((resolve) => this.settledWaiters.push(resolve));
  }

  /** Marks a run as started and hands it a waiting shell when one fits the request. */
  acquire(request: ShellRequest): PrestartedShell | undefined {
    this.running++;
    const shell = this.shellFor(request);
    if (this.disposed || shell === undefined || request.args?.length) return undefined;
    // A directory removed (or replaced) since the shells started would not be the one asked for.
    if (this.template?.cwd !== request.cwd || this.template.shell !== shell || this.directoryId !== directoryIdOf(request.cwd))
      this.retire();
    this.template = { cwd: request.cwd, env: request.env, shell };
    this.wanted = Math.min(MAX_SHELLS, Math.max(this.wanted, this.running));
    while (this.idle.length > 0) {
      const shell = this.idle.shift();
      if (!shell || shell.child.exitCode !== null || shell.child.signalCode !== null || exitedUnseen(shell.child.pid)) continue;
      const commandLine = this.bash
        ? sameEnv(shell.env, request.env)
          ? bashCommandLine(request)
          : undefined
        : shellCommandLine(shell.env, withRunMarker(request), request.command);
      if (commandLine === undefined) {
        // Started in an environment a line cannot turn into this one: the next start from this one.
        this.idle.unshift(shell);
        this.retire();
        return undefined;
      }
      setRef(shell.child, true);
      return { child: shell.child, commandLine };
    }
    return undefined;
  }

  /** The shell a fitting request runs in: plain `sh -c command` (one line), or bash -c for bash shells. */
  private shellFor(request: ShellRequest): string | undefined {
    if (!this.bash) return request.shell === true && !request.command.includes('\n') ? SHELL : undefined;
    return typeof request.shell === 'string' && isBash(request.shell) && !request.command.includes('\0') ? request.shell : undefined;
  }

  /**
   * For a run that `acquire` found no waiting shell for but one could run: a shell started
   * now, in the run's own directory and environment. Its process exists before it has the
   * command, so whoever reports the run's process (a spawner helper to its host) does so
   * before the command starts; a process spawned with its command may run before that.
   */
  startFor(request: ShellRequest): PrestartedShell | undefined {
    const shell = this.shellFor(request);
    if (this.disposed || shell === undefined || request.args?.length) return undefined;
    if (!this.bash && !this.shellForks) return undefined;
    const commandLine = this.bash ? bashCommandLine(request) : shellCommandLine(request.env, withRunMarker(request), request.command);
    if (commandLine === undefined) return undefined;
    const child = this.spawnWaiting(shell, request.cwd, request.env);
    return child && { child, commandLine };
  }

  /** Marks a run as finished; once none runs, the shells used up are started again. */
  release(): void {
    this.running = Math.max(0, this.running - 1);
    this.scheduleFill();
  }

  dispose(): void {
    this.disposed = true;
    if (this.filling) clearImmediate(this.filling);
    this.retire();
    this.settle();
  }

  private scheduleFill(): void {
    if (this.running === 0 && !this.filling && !this.disposed) this.filling = setImmediate(() => this.fill());
  }

  private fill(): void {
    this.filling = undefined;
    this.startShells();
    this.settle();
  }

  /** A start is due or under way; after dispose none ever is. */
  private get starting(): boolean {
    return !this.disposed && (this.filling !== undefined || this.probing);
  }

  private settle(): void {
    if (this.starting) return;
    const waiters = this.settledWaiters;
    this.settledWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private startShells(): void {
    const template = this.template;
    if (!template || this.disposed || this.running > 0) return;
    if (!this.bash && this.shellForks === undefined) {
      this.probe();
      return;
    }
    if (!this.bash && !this.shellForks) return;
    this.directoryId = directoryIdOf(template.cwd);
    if (this.directoryId === undefined) return;
    // A waiting bash holds the very environment its run needs (see PrestartedShellsOptions).
    const env = this.bash ? template.env : waitingShellEnv(template.env, ownStartingEnvironment());
    while (this.idle.length < this.wanted) {
      const child = this.spawnWaiting(template.shell, template.cwd, env);
      if (!child) return;
      const shell = { child, env };
      child.once('exit', () => (this.idle = this.idle.filter((s) => s !== shell)));
      setRef(child, false);
      this.idle.push(shell);
    }
  }

  /**
   * Asks once whether this machine's `sh -c` forks for a single command (see the class); a
   * probe that failed leaves it unanswered, to be asked again at the next idle moment.
   */
  probe(): void {
    if (this.bash || this.shellForks !== undefined || this.probing || this.disposed) return;
    this.probing = true;
    void shellForksSingleCommands(SHELL).then((forks) => {
      this.probing = false;
      this.shellForks = forks;
      if (forks) this.scheduleFill();
      this.settle();
    });
  }

  /** A shell waiting for its command line, or undefined when it cannot start. */
  private spawnWaiting(shell: string, cwd: string, env: NodeJS.ProcessEnv): ChildProcess | undefined {
    let child: ChildProcess;
    try {
      const script = this.bash ? WAITING_BASH : WAITING_SHELL;
      child = spawn(shell, [...shellScriptArguments(shell, script), shell], {
        cwd,
        env,
        detached: true,
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch {
      return undefined;
    }
    // Before anything else: a spawn that fails (no such directory, no file descriptors
    // left) reports it as an 'error' event, which must not go unheard.
    child.on('error', () => undefined);
    if (child.pid === undefined) return undefined;
    child.stdin?.on('error', () => undefined);
    return child;
  }

  private retire(): void {
    for (const { child } of this.idle) child.kill('SIGKILL');
    this.idle = [];
  }
}
