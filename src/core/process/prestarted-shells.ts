import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Disposable } from '../events-emitter';
import { shellCommandLine } from './shell-command-line';
import { shellForksSingleCommands } from './shell-fork-probe';

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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
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
 * with the same $0 and, after exporting what differs, the same environment as `sh -c` would,
 * and is used only where `sh -c` forks for a single command too (dash; not bash, which execs
 * it). Idle shells never keep the host alive, and exit when it goes away.
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
  /** Whether this machine's `sh -c` forks for a single command; undefined until asked. */
  private shellForks: boolean | undefined;

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
      if (!shell || shell.child.exitCode !== null || shell.child.signalCode !== null || exitedUnseen(shell.child.pid)) continue;
      const commandLine = shellCommandLine(shell.env, request.env, request.command);
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

  /** Marks a run as finished; once none runs, the shells used up are started again. */
  release(): void {
    this.running = Math.max(0, this.running - 1);
    this.scheduleFill();
  }

  dispose(): void {
    this.disposed = true;
    if (this.filling) clearImmediate(this.filling);
    this.retire();
  }

  private scheduleFill(): void {
    if (this.running === 0 && !this.filling && !this.disposed) this.filling = setImmediate(() => this.fill());
  }

  private fill(): void {
    this.filling = undefined;
    const template = this.template;
    if (!template || this.disposed || this.running > 0) return;
    if (this.shellForks === undefined) {
      // Unanswered (a failed probe): asked again at the next idle moment.
      void shellForksSingleCommands(SHELL).then((forks) => {
        this.shellForks = forks;
        if (forks) this.scheduleFill();
      });
      return;
    }
    if (!this.shellForks) return;
    this.directoryId = directoryIdOf(template.cwd);
    if (this.directoryId === undefined) return;
    while (this.idle.length < this.wanted) {
      let child: ChildProcess;
      try {
        child = spawn(SHELL, ['-c', WAITING_SHELL, SHELL], { cwd: template.cwd, env: template.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
      } catch {
        return;
      }
      // Before anything else: a spawn that fails (no such directory, no file descriptors
      // left) reports it as an 'error' event, which must not go unheard.
      child.on('error', () => undefined);
      if (child.pid === undefined) return;
      const shell = { child, env: template.env };
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
