import { createInterface } from 'node:readline';
import { offeredChoices } from '../core/agent/permissions/approval-choices';
import { approvalSubject, visibleText } from '../core/agent/permissions/approval-text';
import type { ApprovalAnswer, ApprovalChoice, ApprovalRequest, Approver } from '../core/agent/permissions/permission-settings';
import { isReplaySession } from '../core/audit/session-kinds';
import type { Output } from './output/printer';

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

/**
 * Asks the person at the terminal: the tool, what it will do, why it is asked, and
 * [y]es once / [s]ession / [a]lways / [d]eny for the session / [n]o, as far as they are offered
 * (approval-choices.ts). End of input or a cancelled turn means no.
 * The terminal stays in its normal line mode, so Ctrl-C still interrupts the run.
 */
export class TerminalApprover implements Approver {
  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: Output,
  ) {}

  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> {
    // Everything shown comes from the model's call: escaped, and the command whole (see approval-text.ts).
    const offered = offeredChoices(request);
    const session = offered.includes('allow-session') ? ' / [s]ession' : '';
    const always = offered.includes('allow-always')
      ? ` / [a]lways (adds ${visibleText(request.suggestedRule)} to .vscode/settings.json)`
      : '';
    const why = `${visibleText(request.reason)} (${visibleText(request.askedBy)})`;
    const replay = isReplaySession(request.sessionId) ? ' (a replay, in a scratch copy of the workspace)' : '';
    this.output.write(`\nHookpilot wants to use ${visibleText(request.toolName)}${replay}\n  ${approvalSubject(request)}\n  Why: ${why}\n`);
    const question = `Allow? [y]es once${session}${always} / [d]eny for this session / [n]o: `;
    return new Promise<ApprovalAnswer>((resolve) => {
      const rl = createInterface({ input: this.input, terminal: false });
      const finish = (answer: ApprovalAnswer) => {
        signal.removeEventListener('abort', onAbort);
        rl.removeListener('close', onClose);
        rl.close();
        resolve(answer);
      };
      const onAbort = () => finish({ choice: 'deny', by: 'cancel', reason: 'the turn was cancelled' });
      const onClose = () => finish({ choice: 'deny', by: 'user', reason: 'no answer (end of input)' });
      const ask = () => {
        this.output.write(question);
        rl.once('line', (line) => {
          const choice = CHOICES[line.trim().toLowerCase()];
          if (!choice || !offered.includes(choice)) {
            ask();
            return;
          }
          finish(
            choice === 'deny' || choice === 'deny-session'
              ? { choice, by: 'user', reason: 'the user denied this call' }
              : { choice, by: 'user' },
          );
        });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      rl.once('close', onClose);
      ask();
    });
  }
}
