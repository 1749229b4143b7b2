import type { ProcessResult } from '../../process/run-process';
import { EVENT_INFO, type HookEventName } from '../events';
import type { HookEffects, HookOutcome, HookTrace } from '../types';
import { classifyStdout, parseHookOutput, type ParsedOutput } from './output';

/** Trace copies of stdout/stderr are cut here; the full (capped) text was already read. */
export const TRACE_MAX_CHARS = 64 * 1024;
const DEFAULT_BLOCK_REASON = 'blocked by hook';

/**
 * Turns a finished command hook into an outcome, following Claude Code's exit-code and
 * stdout rules (docs/hooks.md#command-hooks). Pure: spilling long text is a separate step.
 */
export function interpretCommandResult(event: HookEventName, result: ProcessResult, timeoutMs: number): HookOutcome {
  const trace = traceOf(result);
  if (result.timedOut) return { status: 'timeout', error: `hook timed out after ${timeoutMs} ms`, trace };
  if (result.aborted) return { status: 'cancelled', trace };
  if (result.spawnError !== undefined) return { status: 'error', error: `failed to start hook: ${result.spawnError}`, trace };

  const stdout = classifyStdout(result.stdout);
  // A JSON answer cut at the output cap is invalid JSON, not plain text.
  const cutJson = result.stdoutTruncated && result.stdout.trimStart().startsWith('{');
  const parsed: ParsedOutput | undefined = cutJson
    ? { ok: false, error: 'hook JSON output exceeded the output size cap and was cut off' }
    : stdout.kind === 'json'
      ? parseHookOutput(event, stdout.value)
      : undefined;
  const withCapWarning = (effects: HookEffects): HookEffects =>
    result.stdoutTruncated ? addWarning(effects, 'hook stdout exceeded the output size cap; the rest was discarded') : effects;

  if (result.exitCode === 0) {
    if (parsed) {
      return parsed.ok
        ? { status: 'success', effects: withCapWarning(parsed.effects), trace }
        : { status: 'error', error: parsed.error, trace };
    }
    const effects: HookEffects = {};
    if (stdout.kind === 'text' && EVENT_INFO[event].plainStdoutIsContext && stdout.text.trim() !== '') {
      effects.additionalContext = stdout.text.trim();
    }
    return { status: 'success', effects: withCapWarning(effects), trace };
  }

  const stderr = result.stderr.trim();
  if (result.exitCode === 2) {
    if (EVENT_INFO[event].exit2Blocks) {
      const effects = parsed?.ok ? withoutPermissiveDecision(parsed.effects) : {};
      const reason = parsed?.ok && parsed.effects.reason ? parsed.effects.reason : stderr || DEFAULT_BLOCK_REASON;
      const withInvalidNote = parsed && !parsed.ok ? addWarning(effects, parsed.error) : effects;
      return { status: 'blocking-error', reason, effects: withCapWarning(withInvalidNote), trace };
    }
    // Exit 2 cannot block here: stdout JSON is still read, stderr is shown to the user.
    const effects = parsed?.ok ? parsed.effects : {};
    return { status: 'success', effects: withCapWarning(stderr ? addWarning(effects, stderr) : effects), trace };
  }

  // Any other non-zero exit, or death by a signal: a schema-valid JSON answer still decides.
  if (parsed?.ok) return { status: 'success', effects: withCapWarning(parsed.effects), trace };
  return { status: 'error', error: failureMessage(result, stderr), trace };
}

/**
 * AtomCode's rule: a script may log first and give its JSON answer on the last non-empty line.
 * When that line is a JSON object it is the answer (the log before it is dropped); otherwise
 * stdout is read whole, as usual.
 */
export function withLastLineAnswer(result: ProcessResult): ProcessResult {
  const lines = result.stdout.split('\n').filter((line) => line.trim() !== '');
  const last = lines.at(-1)?.trim();
  if (last === undefined || lines.length < 2 || !last.startsWith('{') || classifyStdout(last).kind !== 'json') return result;
  return { ...result, stdout: last };
}

function failureMessage(result: ProcessResult, stderr: string): string {
  const firstLine = stderr.split('\n', 1)[0].trim() || 'no stderr output';
  if (result.exitCode === null) return `Terminated by signal ${result.signal ?? 'unknown'}: ${firstLine}`;
  return `Failed with non-blocking status code ${result.exitCode}: ${firstLine}`;
}

/** Exit 2 blocks; a JSON allow (or ask/defer) on the same run cannot soften that. */
function withoutPermissiveDecision(effects: HookEffects): HookEffects {
  if (effects.decision === 'deny' || effects.decision === 'block' || effects.decision === undefined) return effects;
  const rest = { ...effects };
  delete rest.decision;
  return rest;
}

function addWarning(effects: HookEffects, warning: string): HookEffects {
  return { ...effects, warnings: [...(effects.warnings ?? []), warning] };
}

function traceOf(result: ProcessResult): HookTrace {
  const cut = (text: string) => (text.length > TRACE_MAX_CHARS ? text.slice(0, TRACE_MAX_CHARS) : text);
  const trace: HookTrace = {
    durationMs: result.durationMs,
    stdout: cut(result.stdout),
    stderr: cut(result.stderr),
    exitCode: result.exitCode,
    signal: result.signal,
  };
  if (
    result.stdoutTruncated ||
    result.stderrTruncated ||
    result.stdout.length > TRACE_MAX_CHARS ||
    result.stderr.length > TRACE_MAX_CHARS
  ) {
    trace.truncated = true;
  }
  return trace;
}
