import type { HookHandler, HookInvocation, HookOutcome, HookTrace } from '../types';
import { parseVerdict, VERDICT_INSTRUCTIONS, verdictEffects } from './model-verdict';
import { errorMessage } from '../../error-message';

/** One evaluation asked of the host's model. */
export interface JudgeRequest {
  /** The hook's `model`; undefined: the configured model. */
  model?: string;
  system: string;
  user: string;
  /** agent hooks: investigate with read-only tools before answering. */
  investigate: boolean;
  signal: AbortSignal;
}

export interface JudgeAnswer {
  text: string;
  model: string;
  usage: { prompt: number; completion: number; total: number };
}

/** The host's model, as prompt and agent hooks use it (built by the agent layer, behind the secret boundary). */
export interface HookJudge {
  evaluate(request: JudgeRequest): Promise<JudgeAnswer>;
}

const AGENT_INSTRUCTIONS =
  'You may read the workspace with the Read, Grep and Glob tools before you answer (no edits, no commands). ' +
  'When you know the answer, reply with the JSON object alone.';

/**
 * `$ARGUMENTS` becomes the event JSON (appended when the prompt has none); `\$` is a literal `$`,
 * as in Claude Code.
 */
export function expandPrompt(template: string, payloadJson: string): string {
  let used = false;
  const expanded = template.replace(/\\\$|\$ARGUMENTS/g, (match) => {
    if (match === '\\$') return '$';
    used = true;
    return payloadJson;
  });
  return used ? expanded : `${expanded}\n\n${payloadJson}`;
}

/**
 * Runs `prompt` and `agent` hooks: the host's model judges the event and answers
 * `{ok, reason}`, mapped to the event's decision as Claude Code does. Without a model
 * (no session yet, no endpoint) the run is an error, never an allow.
 */
export class ModelHookHandler implements HookHandler {
  constructor(private readonly judge: () => HookJudge | undefined) {}

  async run(invocation: HookInvocation): Promise<HookOutcome> {
    const started = performance.now();
    const trace = (extra: Partial<HookTrace> = {}): HookTrace => ({ durationMs: performance.now() - started, ...extra });
    const { spec, event } = invocation.hook;
    if (spec.type !== 'prompt' && spec.type !== 'agent') {
      return { status: 'error', error: `model hook handler cannot run a ${spec.type} hook`, trace: trace() };
    }
    const judge = this.judge();
    if (!judge) return { status: 'error', error: `${spec.type} hook needs a model, and none is configured`, trace: trace() };
    if (invocation.signal.aborted) return { status: 'cancelled', trace: trace() };
    const investigate = spec.type === 'agent';
    let answer: JudgeAnswer;
    try {
      answer = await judge.evaluate({
        model: spec.model,
        system: investigate ? `${VERDICT_INSTRUCTIONS} ${AGENT_INSTRUCTIONS}` : VERDICT_INSTRUCTIONS,
        user: expandPrompt(spec.prompt, JSON.stringify(invocation.payload)),
        investigate,
        signal: invocation.signal,
      });
    } catch (error) {
      if (invocation.signal.aborted) return { status: 'cancelled', trace: trace() };
      return { status: 'error', error: `${spec.type} hook: ${errorMessage(error)}`, trace: trace() };
    }
    const done = trace({ stdout: answer.text, model: answer.model, tokens: answer.usage });
    const parsed = parseVerdict(answer.text);
    if (!parsed.ok) return { status: 'error', error: `${spec.type} hook: ${parsed.error}`, trace: done };
    const feedBack = investigate || spec.continueOnBlock === true;
    return {
      status: 'success',
      effects: verdictEffects(event, parsed.verdict, { feedBack, impossibleAllowed: !investigate }),
      trace: done,
    };
  }
}
