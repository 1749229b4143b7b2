import { statSync } from 'node:fs';
import path from 'node:path';
import type { Redactor } from '../core/audit/redactor';
import type { EngineLogger } from '../core/engine/hook-engine';
import { usageError } from './cli-error';
import type { Output } from './output/printer';

/** What every command works with: the process's streams and environment, and where to put its exit code. */
export interface CliContext {
  stdin: NodeJS.ReadStream;
  stdout: Output;
  stderr: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  exitCode: number;
  /**
   * What everything written to `stderr` is redacted with (runCli sees to it): the invocation's
   * secrets at first, the engine's redactor (.env values too) once a command has one.
   */
  redactor: Redactor;
  /**
   * stderr for what a person answers (an approval question): made printable but never
   * redacted, since a pattern matching `password=$(curl …)` would hide what the answer approves.
   */
  question: Output;
  /** Called once per run when a signal (Ctrl-C) arrives; returns a disposer. */
  onInterrupt(listener: (signal: 'SIGINT' | 'SIGTERM') => void): () => void;
}

/** `--cwd DIR` (default: the current directory), which must be a directory. */
export function projectDirOf(ctx: CliContext, flag: string | undefined): string {
  const dir = path.resolve(ctx.cwd, flag ?? '.');
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    throw usageError(`--cwd: no such directory ${dir}`);
  }
  if (!isDir) throw usageError(`--cwd: ${dir} is not a directory`);
  return dir;
}

/** Engine messages worth a person's attention go to stderr; info stays quiet. */
export function stderrLogger(ctx: CliContext): EngineLogger {
  return (level, message) => {
    if (level !== 'info') ctx.stderr.write(`hookpilot: ${level === 'error' ? 'error' : 'warning'}: ${message}\n`);
  };
}
