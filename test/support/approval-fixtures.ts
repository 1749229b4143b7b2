import type { ApprovalRequest } from '../../src/core/agent/permissions/permission-settings';

/** A permission prompt for `npm test` in default mode; `overrides` change any field. */
export function approvalRequest(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    id: 'call_9',
    askId: 'ask-9',
    sessionId: 's1',
    toolName: 'Bash',
    input: { command: 'npm test' },
    summary: 'Run: npm test',
    reason: 'Bash needs approval in default mode',
    askedBy: 'default mode',
    suggestedRule: 'Bash(npm test)',
    system: false,
    ...overrides,
  };
}
