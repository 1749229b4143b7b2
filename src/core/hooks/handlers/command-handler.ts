import { directProcessRunner, type ProcessRunner } from '../../process/process-runner';
import { interpretCommandResult } from '../protocol/interpret-command';
import { spillOutcome } from '../protocol/spill';
import type { HookHandler, HookInvocation, HookOutcome } from '../types';
import { buildHookEnv, resolveHookCwd, substituteProjectDir } from './command-env';

export interface CommandHookHandlerOptions {
  /** Where texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
  /** Base environment for hooks (secrets are removed from it); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the hook process is spawned from; default this process. */
  runner?: ProcessRunner;
}

/**
 * Runs `command` hooks with Claude Code's wire protocol: payload JSON on stdin, the answer
 * from the exit code and stdout (research §3.6, §3.9, §3.10). Shell form (`sh -c`) unless
 * the hook has `args`, then exec form without a shell.
 */
export class CommandHookHandler implements HookHandler {
  private readonly spillDir: string | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly runner: ProcessRunner;

  constructor(options: CommandHookHandlerOptions = {}) {
    this.spillDir = options.spillDir;
    this.env = options.env ?? process.env;
    this.runner = options.runner ?? directProcessRunner;
  }

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const { hook, payload, projectDir } = invocation;
    const { spec } = hook;
    if (spec.type !== 'command') {
      return { status: 'error', error: `command handler cannot run a ${spec.type} hook`, trace: { durationMs: 0 } };
    }
    const execArgs = spec.args?.map((arg) => substituteProjectDir(arg, projectDir));
    const result = await this.runner.run({
      command: execArgs ? substituteProjectDir(spec.command, projectDir) : spec.command,
      args: execArgs,
      shell: execArgs === undefined,
      cwd: resolveHookCwd(spec.cwd, payload.cwd, projectDir),
      env: buildHookEnv({ base: this.env, specEnv: spec.env, projectDir, sessionId: payload.session_id, event: hook.event }),
      input: JSON.stringify(payload),
      timeoutMs: invocation.timeoutMs,
      signal: invocation.signal,
    });
    // A caller that enforces the timeout itself aborts with a TimeoutError: still a timeout.
    const timedOut = result.timedOut || (result.aborted && isTimeoutReason(invocation.signal.reason));
    const outcome = interpretCommandResult(hook.event, { ...result, timedOut }, invocation.timeoutMs);
    return spillOutcome(outcome, { dir: this.spillDir, sessionId: payload.session_id, label: hook.name });
  }
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
