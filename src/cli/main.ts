import { Redactor } from '../core/audit/redactor';
import type { CliContext } from './cli-context';
import { EXIT, oneLine } from './cli-error';
import { cliSecretValues } from './cli-environment';
import { printable } from './output/terminal-text';
import { runCli } from './program';

// A reader that went away (`hookpilot ... | head`) is not an error worth a stack trace.
process.stdout.on('error', () => undefined);
process.stderr.on('error', () => undefined);

// Whatever escapes is still one line for the person at the terminal, never a stack trace.
const fatal = (error: unknown) => {
  ctx.stderr.write(`hookpilot: ${oneLine(error)}\n`);
  process.exit(EXIT.failed);
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

const ctx: CliContext = {
  stdin: process.stdin,
  // Much of what is printed is the model's text, a tool's output or an endpoint's error: none of it
  // may drive the terminal (escape sequences, `\r`) to hide or forge what a person reads. JSON
  // output is unchanged in meaning: what gets escaped there only ever sits inside its strings.
  stdout: { write: (text) => process.stdout.write(printable(text)) },
  // Hook failures, endpoint errors and notes quote text that may hold a secret: the one place it is redacted.
  stderr: { write: (text) => process.stderr.write(printable(ctx.redactor.redactText(text))) },
  question: { write: (text) => process.stderr.write(printable(text)) },
  env: process.env,
  redactor: new Redactor({ secretValues: cliSecretValues(process.env) }),
  cwd: process.cwd(),
  exitCode: EXIT.ok,
  onInterrupt(listener) {
    let received = 0;
    const handle = (signal: 'SIGINT' | 'SIGTERM') => {
      // The first Ctrl-C cancels the turn and lets SessionEnd run; a second one quits at once.
      if (++received > 1) process.exit(signal === 'SIGINT' ? EXIT.interrupted : EXIT.terminated);
      listener(signal);
    };
    const onInt = () => handle('SIGINT');
    const onTerm = () => handle('SIGTERM');
    process.on('SIGINT', onInt);
    process.on('SIGTERM', onTerm);
    return () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    };
  },
};

runCli(process.argv, ctx).then(
  (code) => exitAfterFlush(code),
  (error: unknown) => {
    ctx.stderr.write(`hookpilot: ${oneLine(error)}\n`);
    exitAfterFlush(EXIT.failed);
  },
);

/** Exits once what was written has left the process (pipes can be asynchronous). */
function exitAfterFlush(code: number): void {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}
