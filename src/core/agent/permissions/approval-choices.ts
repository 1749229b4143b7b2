import { isReplaySession } from '../../audit/session-kinds';
import type { ApprovalChoice, ApprovalRequest } from './permission-settings';

type Asked = Pick<ApprovalRequest, 'system' | 'sessionId'>;

const EVERY_CHOICE: readonly ApprovalChoice[] = ['allow-once', 'allow-session', 'allow-always', 'deny-session', 'deny'];

/**
 * The answers a person is offered, by every approver (modal, chat, Hook Manager, terminal).
 * A system ask (a protected hook file) is allowed once at most: no rule may cover it. A
 * replay's ask is allowed for its replay session at most: the replay runs in a scratch copy,
 * so "Always allow" would keep nothing.
 */
export function offeredChoices(request: Asked): readonly ApprovalChoice[] {
  if (request.system) return ['allow-once', 'deny-session', 'deny'];
  if (isReplaySession(request.sessionId)) return ['allow-once', 'allow-session', 'deny-session', 'deny'];
  return EVERY_CHOICE;
}

/**
 * An answer narrowed to what was offered: whoever answers, no answer is wider than the request
 * allows. An allow not offered becomes the widest narrower allow offered; anything else a deny.
 */
export function offeredChoice(request: Asked, choice: ApprovalChoice): ApprovalChoice {
  const offered = offeredChoices(request);
  if (offered.includes(choice)) return choice;
  if (choice === 'allow-always' && offered.includes('allow-session')) return 'allow-session';
  if ((choice === 'allow-always' || choice === 'allow-session') && offered.includes('allow-once')) return 'allow-once';
  return 'deny';
}
