import { z } from 'zod';

export const permissionModeSchema = z.enum(['default', 'acceptEdits', 'plan', 'bypassPermissions']);
export type PermissionMode = z.infer<typeof permissionModeSchema>;

/** Claude Code's `permissions` block: rules in `Tool(pattern)` form. */
export const permissionSettingsSchema = z.object({
  mode: permissionModeSchema.default('default'),
  allow: z.array(z.string()).default([]),
  deny: z.array(z.string()).default([]),
  ask: z.array(z.string()).default([]),
  additionalDirectories: z.array(z.string()).default([]),
});
export type PermissionSettings = z.infer<typeof permissionSettingsSchema>;

/** `deny-session` also denies every later call the suggested rule matches, for this session (P2). */
export type ApprovalChoice = 'allow-once' | 'allow-session' | 'allow-always' | 'deny-session' | 'deny';

export interface ApprovalRequest {
  /** The tool_use_id; the modal and the Hook Manager answer the same request. */
  id: string;
  /**
   * This ask's own id, issued by the host: the model picks tool_use_ids (unique within one
   * reply only), so a later ask may reuse a withdrawn one's. An answer from a card carries it
   * and reaches that ask only.
   */
  askId: string;
  sessionId: string;
  toolName: string;
  input: Record<string, unknown>;
  /** One line naming what will happen ("Run: rm -rf build"). */
  summary: string;
  /** Where a file tool's path really leads, when that is not the path as given (approvals show it). */
  linkedTarget?: LinkedTarget;
  /** Why a person is asked: the rule, hook or mode that asked and its reason. */
  reason: string;
  askedBy: string;
  /** The rule "Allow for this session" / "Always allow" would add. */
  suggestedRule: string;
  /** A system ask (protected path): only a person may answer it. */
  system: boolean;
}

/**
 * The file a tool will act on once every link is followed (`notes.txt -> config/prod.env`,
 * a `/proc/self/root/...` spelling), or why the path cannot be resolved.
 */
export type LinkedTarget = { path: string } | { unresolved: string };

export interface ApprovalAnswer {
  choice: ApprovalChoice;
  /** Who answered: user, timeout, no-terminal, hook name, ... */
  by: string;
  reason?: string;
  /** A timeout fires PermissionDenied with source Timeout. */
  timedOut?: boolean;
}

/** The host's way of asking a person (modal, Hook Manager, terminal prompt). */
export interface Approver {
  request(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

/** Denies everything that needs a person: for CI without a terminal. */
export const denyingApprover: Approver = {
  request: async () => ({
    choice: 'deny',
    by: 'no-terminal',
    reason: 'approval required, and there is no one to ask (use --allowed-tools or a permission mode)',
  }),
};
