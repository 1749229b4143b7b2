import {
  credentialValues,
  elicitationContentProblem,
  type ElicitationAnswer,
  type ElicitationContent,
  type ElicitationPrompter,
  type ElicitationRequest,
} from '../mcp/elicitation-content';
import type { SessionHooks } from './session-hooks';

export interface ElicitationDeps {
  hooks: SessionHooks;
  /** Absent: there is no one to ask (a CLI run without a terminal); only a hook can answer. */
  person?: ElicitationPrompter;
  /** What is given for a credential field (8 characters or more: the redactor's least) never reaches the model or a log. */
  secrets: { addSecretValue(value: string): void };
  notices(systemMessages: readonly string[], warnings: readonly string[]): void;
}

/**
 * Claude Code's Elicitation and ElicitationResult: Elicitation hooks may answer the server for
 * the person (exit 2 declines); otherwise the person is asked. ElicitationResult hooks then see
 * the answer and may change it (exit 2 declines). An answer that does not fit the server's
 * form is declined, whoever gave it: the server only ever gets what it asked for.
 */
export async function answerElicitation(
  deps: ElicitationDeps,
  request: ElicitationRequest,
  signal: AbortSignal,
): Promise<ElicitationAnswer> {
  const declined = (why: string): ElicitationAnswer => {
    deps.notices(
      [],
      [`MCP server "${request.server}" asked for input (${JSON.stringify(request.message.slice(0, 200))}): declined, ${why}`],
    );
    return { action: 'decline' };
  };
  const common = {
    mcp_server_name: request.server,
    mode: request.mode,
    ...(request.elicitationId !== undefined ? { elicitation_id: request.elicitationId } : {}),
  };
  const asked = await deps.hooks.dispatch(
    'Elicitation',
    {
      ...common,
      message: request.message,
      ...(request.url !== undefined ? { url: request.url } : {}),
      ...(request.requestedSchema !== undefined ? { requested_schema: request.requestedSchema } : {}),
    },
    signal,
  );
  deps.notices(asked.systemMessages, asked.warnings);
  if (signal.aborted) return { action: 'cancel' };
  if (asked.blocked) return declined(`by hook "${asked.blockingErrors[0]?.hookName}": ${asked.blockReason ?? 'blocked'}`);
  let answer: ElicitationAnswer;
  if (asked.elicitation?.action) {
    answer = { action: asked.elicitation.action, content: asked.elicitation.content as ElicitationContent | undefined };
  } else if (request.mode === 'url') {
    return declined('as it asks to open a URL, which only a hook may answer here');
  } else if (!deps.person) {
    return declined('as there is no one to ask and no Elicitation hook answered');
  } else {
    answer = await deps.person.ask(request, signal);
  }
  const problem = answerProblem(request, answer);
  if (problem) return declined(problem);
  registerSecrets(request, answer, deps.secrets);

  const result = await deps.hooks.dispatch(
    'ElicitationResult',
    { ...common, action: answer.action, ...(answer.action === 'accept' && answer.content ? { content: answer.content } : {}) },
    signal,
  );
  deps.notices(result.systemMessages, result.warnings);
  if (signal.aborted) return { action: 'cancel' };
  if (result.blocked) return declined(`by hook "${result.blockingErrors[0]?.hookName}": ${result.blockReason ?? 'blocked'}`);
  if (result.elicitation) {
    answer = {
      action: result.elicitation.action ?? answer.action,
      content: (result.elicitation.content as ElicitationContent | undefined) ?? answer.content,
    };
    const changed = answerProblem(request, answer);
    if (changed) return declined(`as hook "${result.elicitation.hookName}" changed the answer: ${changed}`);
    registerSecrets(request, answer, deps.secrets);
  }
  return answer.action === 'accept' ? { action: 'accept', content: answer.content ?? {} } : { action: answer.action };
}

function answerProblem(request: ElicitationRequest, answer: ElicitationAnswer): string | undefined {
  if (answer.action !== 'accept' || request.mode === 'url') return undefined;
  const problem = elicitationContentProblem(request.requestedSchema, answer.content ?? {});
  return problem && `the answer does not fit the form: ${problem}`;
}

// The redactor ignores short values (it would hide them everywhere); McpConnection hides
// those in the server's own results.
function registerSecrets(request: ElicitationRequest, answer: ElicitationAnswer, secrets: ElicitationDeps['secrets']): void {
  for (const value of credentialValues(request.requestedSchema, answer.content ?? {})) secrets.addSecretValue(value);
}
