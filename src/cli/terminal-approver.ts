import { createInterface, type Interface } from 'node:readline';
import { offeredChoices } from '../core/agent/permissions/approval-choices';
import { approvalSubject, longCommandEnds, proposedChange, visibleRule, visibleText } from '../core/agent/permissions/approval-text';
import type { ApprovalAnswer, ApprovalChoice, ApprovalRequest, Approver } from '../core/agent/permissions/permission-settings';
import { isReplaySession } from '../core/audit/session-kinds';
import { ruleReach } from '../shared/approval-buttons';
import type { Output } from './output/printer';
import type { TerminalEcho } from './terminal-echo';

const CHOICES: Record<string, ApprovalChoice> = {
  y: 'allow-once',
  yes: 'allow-once',
  s: 'allow-session',
  session: 'allow-session',
  a: 'allow-always',
  always: 'allow-always',
  d: 'deny-session',
  never: 'deny-session',
  n: 'deny',
  no: 'deny',
};

const END_OF_INPUT: ApprovalAnswer = { choice: 'deny', by: 'user', reason: 'no answer (end of input)' };

/**
 * Asks the person at the terminal: the tool, what it will do, why it is asked, and
 * [y]es once / [s]ession / [a]lways / [d]eny for the session / [n]o, as far as they are offered
 * (approval-choices.ts). One question at a time, and a line answers only the question shown
 * when it arrives: lines typed before it (ahead, or while the model worked) are dropped, so no
 * answer lands on a call the person has not seen. End of input or a cancelled turn means no.
 * The terminal stays in its normal line mode, so Ctrl-C still interrupts the run.
 */
export class TerminalApprover implements Approver {
  private readonly lines: Interface;
  private ended = false;
  /** Takes the next line while a question is shown; lines arriving without one are dropped. */
  private answer: ((line: string | undefined) => void) | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: Output,
    /** How a secret's line is read unseen; without it, what is typed shows. */
    private readonly echo?: TerminalEcho,
  ) {
    // Read from the start: what is typed before the first question is read, and dropped, here.
    this.lines = createInterface({ input, terminal: false });
    this.lines.on('line', (line) => this.answer?.(line));
    this.lines.once('close', () => {
      this.ended = true;
      this.answer?.(undefined);
    });
  }

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    const asked = this.queue.then(() => this.ask(request, signal));
    this.queue = asked.catch(() => undefined);
    return asked;
  }

  /**
   * Questions of another kind (an MCP server's form), in turn with the approvals: `ask` shows
   * one prompt and takes the line typed after it, not echoed when `secret`; undefined at end of
   * input or once `signal` aborts.
   */
  converse<T>(
    signal: AbortSignal,
    talk: (ask: (prompt: string, secret?: boolean) => Promise<string | undefined>) => Promise<T>,
  ): Promise<T> {
    const done = this.queue.then(() => talk((prompt, secret) => this.nextLine(prompt, signal, secret === true)));
    this.queue = done.catch(() => undefined);
    return done;
  }

  private nextLine(prompt: string, signal: AbortSignal, secret: boolean): Promise<string | undefined> {
    if (signal.aborted || this.ended) return Promise.resolve(undefined);
    const unseen = secret ? this.echo : undefined;
    return new Promise((resolve) => {
      const finish = (line: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        this.answer = undefined;
        if (unseen) {
          unseen.on();
          // The Enter that ended the line was not echoed either.
          this.output.write('\n');
        }
        resolve(line);
      };
      const onAbort = () => finish(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      this.answer = finish;
      unseen?.off();
      this.output.write(prompt);
    });
  }

  /** Stops reading the terminal; later questions are answered no. */
  dispose(): void {
    this.lines.close();
  }

  private ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    if (signal.aborted) return Promise.resolve(cancelled());
    if (this.ended) return Promise.resolve(END_OF_INPUT);
    // Everything shown comes from the model's call: escaped, and the command whole (see approval-text.ts).
    const offered = offeredChoices(request);
    const session = offered.includes('allow-session') ? ' / [s]ession' : '';
    const always = offered.includes('allow-always') ? ' / [a]lways' : '';
    const why = `${visibleText(request.reason)} (${visibleText(request.askedBy)})`;
    const replay = isReplaySession(request.sessionId) ? ' (a replay, in a scratch copy of the workspace)' : '';
    // The file tool's text, the rule a wider answer adds, and a long command's ends come last: right above the question.
    const lines = [
      `Hookpilot wants to use ${visibleText(request.toolName)}${replay}`,
      approvalSubject(request),
      ...proposedChange(request),
      `Why: ${why}`,
      ...ruleLines(request, offered),
      ...longCommandEnds(request),
    ];
    this.output.write(`\n${lines.join('\n  ')}\n`);
    const question = `Allow? [y]es once${session}${always} / [d]eny for this session / [n]o: `;
    return new Promise<ApprovalAnswer>((resolve) => {
      const finish = (answer: ApprovalAnswer) => {
        signal.removeEventListener('abort', onAbort);
        this.answer = undefined;
        resolve(answer);
      };
      const onAbort = () => finish(cancelled());
      signal.addEventListener('abort', onAbort, { once: true });
      this.answer = (line) => {
        if (line === undefined) return finish(END_OF_INPUT);
        const choice = CHOICES[line.trim().toLowerCase()];
        if (!choice || !offered.includes(choice)) return this.output.write(question);
        finish(
          choice === 'deny' || choice === 'deny-session'
            ? { choice, by: 'user', reason: 'the user denied this call' }
            : { choice, by: 'user' },
        );
      };
      this.output.write(question);
    });
  }
}

/** What [s]ession and [a]lways allow from then on: the rule they add ([a]lways is offered only with [s]ession). */
function ruleLines(request: ApprovalRequest, offered: readonly ApprovalChoice[]): string[] {
  if (!offered.includes('allow-session')) return [];
  const always = offered.includes('allow-always') ? '; [a]lways also saves it to .vscode/settings.json' : '';
  const rule = visibleRule(request.suggestedRule);
  const reach = ruleReach(rule);
  return [`[s]ession adds the rule ${rule}${reach ? ` (${reach})` : ''} for this session${always}`];
}

function cancelled(): ApprovalAnswer {
  return { choice: 'deny', by: 'cancel', reason: 'the turn was cancelled' };
}
