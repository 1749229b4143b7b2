import { directProcessRunner, type ProcessRunner } from '../../process/process-runner';
import { interpretCommandResult, withLastLineAnswer } from '../protocol/interpret-command';
import { classifyStdout } from '../protocol/output';
import { spillOutcome } from '../protocol/spill';
import type { HookDefinition, HookHandler, HookInvocation, HookOutcome } from '../types';
import { refusedRun } from './refused-run';
import { buildHookEnv, resolveHookCwd, substituteProjectDir, untrustedWorkingFolder } from './command-env';

export interface CommandHookHandlerOptions {
  /** Where texts over 10,000 chars are saved; without it they are only truncated. */
  spillDir?: string;
  /** The engine's redactor, applied to a long text before it is saved and cut. */
  redact?: (text: string) => string;
  /** Base environment for hooks (secrets are removed from it); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Where the hook process is spawned from; default this process. */
  runner?: ProcessRunner;
  /** Why the hook's script must not run (it changed since a person approved it), if so. */
  verifyScript?: (hook: HookDefinition) => string | undefined;
  /** Folders besides the project the agent may write (additional directories). */
  writableRoots?: () => readonly string[];
  /** While the workspace is untrusted, the empty folder hooks run in (see untrustedWorkingFolder); else undefined. */
  untrustedCwd?: () => string | undefined;
}

/**
 * Runs `command` hooks with Claude Code's wire protocol: payload JSON on stdin, the answer
 * from the exit code and stdout (docs/hooks.md#command-hooks). Shell form (`sh -c`) unless
 * the hook has `args`, then exec form without a shell.
 */
export class CommandHookHandler implements HookHandler {
  private readonly spillDir: string | undefined;
  private readonly redact: ((text: string) => string) | undefined;
  private readonly env: NodeJS.ProcessEnv;
  private readonly runner: ProcessRunner;
  private readonly verifyScript: CommandHookHandlerOptions['verifyScript'];
  private readonly writableRoots: () => readonly string[];
  private readonly untrustedCwd: () => string | undefined;

  constructor(options: CommandHookHandlerOptions = {}) {
    this.spillDir = options.spillDir;
    this.redact = options.redact;
    this.env = options.env ?? process.env;
    this.runner = options.runner ?? directProcessRunner;
    this.verifyScript = options.verifyScript;
    this.writableRoots = options.writableRoots ?? (() => []);
    this.untrustedCwd = options.untrustedCwd ?? (() => undefined);
  }

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const { hook, payload, projectDir } = invocation;
    const { spec } = hook;
    if (spec.type !== 'command') {
      return { status: 'error', error: `command handler cannot run a ${spec.type} hook`, trace: { durationMs: 0 } };
    }
    const refused = this.verifyScript?.(hook);
    if (refused !== undefined) return refusedRun(hook.event, refused);
    const emptyDir = this.untrustedCwd();
    const where =
      emptyDir === undefined
        ? { cwd: resolveHookCwd(spec.cwd, payload.cwd, projectDir) }
        : untrustedWorkingFolder(
            { cwd: spec.cwd, runs: [spec.command, ...(spec.args ?? []), ...Object.values(spec.env ?? {})] },
            projectDir,
            emptyDir,
          );
    if (where.refused !== undefined) return refusedRun(hook.event, `"${hook.name}" did not run: ${where.refused}`);
    const execArgs = spec.args?.map((arg) => substituteProjectDir(arg, projectDir));
    const result = await this.runner.run({
      command: execArgs ? substituteProjectDir(spec.command, projectDir) : spec.command,
      args: execArgs,
      shell: execArgs === undefined,
      cwd: where.cwd,
      env: buildHookEnv({
        base: this.env,
        specEnv: spec.env,
        projectDir,
        sessionId: payload.session_id,
        event: hook.event,
        toolName: typeof payload.tool_name === 'string' ? payload.tool_name : undefined,
        dispatchEnv: invocation.env,
        writableRoots: this.writableRoots(),
      }),
      input: JSON.stringify(payload),
      timeoutMs: invocation.timeoutMs,
      signal: invocation.signal,
    });
    // A caller that enforces the timeout itself aborts with a TimeoutError: still a timeout.
    const timedOut = result.timedOut || (result.aborted && isTimeoutReason(invocation.signal.reason));
    const read = spec.stdoutJson === 'lastLine' ? withLastLineAnswer(result) : result;
    const outcome = brokenJsonFails(hook, read.stdout, interpretCommandResult(hook.event, { ...read, timedOut }, invocation.timeoutMs));
    return spillOutcome(outcome, { dir: this.spillDir, redact: this.redact, sessionId: payload.session_id, label: hook.name });
  }
}

/**
 * Claude Code reads stdout that starts with `{` but does not parse as plain text, so exit 0
 * succeeds. A hook with onFailure "block" asked for failures to block, and a decision cut
 * off mid-JSON (a crash, a killed writer) is such a failure, not an allow.
 */
function brokenJsonFails(hook: HookDefinition, stdout: string, outcome: HookOutcome): HookOutcome {
  if (hook.onFailure !== 'block' || outcome.status !== 'success') return outcome;
  if (!stdout.trimStart().startsWith('{') || classifyStdout(stdout).kind === 'json') return outcome;
  const error = 'hook stdout starts with "{" but is not valid JSON (cut off?); with onFailure "block" that is a failure';
  return { status: 'error', error, trace: outcome.trace };
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
