import type { ApprovalChoiceView } from './wire-common';

/** The webviews' approval buttons in order; a prompt shows the ones its request offers. */
export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalChoiceView; label: string }> = [
  { choice: 'allow-once', label: 'Allow once' },
  { choice: 'allow-session', label: 'Allow for session' },
  { choice: 'allow-always', label: 'Always allow' },
  { choice: 'deny-session', label: 'Deny for session' },
  { choice: 'deny', label: 'Deny' },
];

/** The buttons for the answers `offered`; only "Allow once" is the primary one. */
export function approvalButtons(
  offered: readonly ApprovalChoiceView[],
): Array<{ choice: ApprovalChoiceView; label: string; secondary: boolean }> {
  return APPROVAL_BUTTONS.filter((b) => offered.includes(b.choice)).map((b) => ({ ...b, secondary: b.choice !== 'allow-once' }));
}
