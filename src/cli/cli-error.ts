import { errorMessage } from '../core/error-message';
/** Exit codes of the CLI: 0 done, 1 the run failed, 2 the command line or setup is wrong, 130 Ctrl-C (143 SIGTERM). */
export const EXIT = { ok: 0, failed: 1, usage: 2, interrupted: 130, terminated: 143 } as const;

/**
 * An error meant for the person at the terminal: its message is printed as one line on
 * stderr (never a stack trace) and the process exits with `exitCode`.
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export function usageError(message: string): CliError {
  return new CliError(message, EXIT.usage);
}

/** The message of anything thrown, on one line. */
export function oneLine(error: unknown): string {
  const message = errorMessage(error);
  return message.replace(/\s*\n\s*/g, ' ').trim() || 'unknown error';
}
