import { denyingApprover, type Approver } from '../core/agent/permissions/permission-settings';

/**
 * No person can answer without a terminal, so every ask is a deny. When a hook asked, the
 * model gets that hook's reason (its `permissionDecisionReason`), as under `claude -p`;
 * anything else asked gets the general explanation.
 */
export const headlessApprover: Approver = {
  request: async (request, signal) => {
    const answer = await denyingApprover.request(request, signal);
    return request.askedBy.startsWith('hook ') && request.reason !== '' ? { ...answer, reason: request.reason } : answer;
  },
};
