import type { ApprovalChoiceView } from './wire-common';

/** The webviews' approval buttons in order; a prompt shows the ones its request offers. */
export const APPROVAL_BUTTONS: ReadonlyArray<{ choice: ApprovalChoiceView; label: string }> = [
  { choice: 'allow-once', label: 'Allow once' },
  { choice: 'allow-session', label: 'Allow for session' },
  { choice: 'allow-always', label: 'Always allow' },
  { choice: 'deny-session', label: 'Deny for session' },
  { choice: 'deny', label: 'Deny' },
];

/** What the two answers that add a rule allow from then on; `rule` is already escaped (visibleRule). */
const RULE_TITLES: Partial<Record<ApprovalChoiceView, (rule: string) => string>> = {
  'allow-session': (rule) => `Adds the rule ${rule} until the session ends`,
  'allow-always': (rule) => `Adds the rule ${rule} to .vscode/settings.json`,
};

/** The buttons for the answers `offered`, each titled by what it allows; only "Allow once" is the primary one. */
export function approvalButtons(
  offered: readonly ApprovalChoiceView[],
  rule: string,
): Array<{ choice: ApprovalChoiceView; label: string; secondary: boolean; title: string | undefined }> {
  return APPROVAL_BUTTONS.filter((b) => offered.includes(b.choice)).map((b) => ({
    ...b,
    secondary: b.choice !== 'allow-once',
    title: RULE_TITLES[b.choice]?.(rule),
  }));
}

/**
 * The line a prompt shows above its buttons: the rule "Allow for session" and "Always allow" add
 * (`rule` already escaped). A rule that is a bare tool name allows every later call of that tool.
 * Undefined when neither is offered. Worded apart from the labels, so a label names one button.
 */
export function ruleNote(offered: readonly ApprovalChoiceView[], rule: string): string | undefined {
  if (!offered.includes('allow-session')) return undefined;
  const when = offered.includes('allow-always') ? 'for the session or always' : 'for the session';
  const reach = ruleReach(rule);
  return `Allowing ${when} adds the rule ${rule}${reach ? `: ${reach}` : ''}.`;
}

/** What a rule that is a bare tool name allows: every later call of that tool. Undefined for a rule with a pattern. */
export function ruleReach(rule: string): string | undefined {
  return rule.includes('(') ? undefined : `every later ${rule} call, whatever its input, runs without asking`;
}
