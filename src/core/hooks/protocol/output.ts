import { z } from 'zod';
import { nestedDeeperThan } from '../../json-depth';
import type { HookEventName } from '../events';
import { ELICITATION_ACTIONS } from '../payloads';
import type { HookEffects } from '../types';

/**
 * Claude Code's hook output JSON (docs/hooks.md#hook-output-json), plus Hookpilot's additions for the
 * events Claude Code lacks (BeforeLLM/AfterLLM, SystemPrompt). Unknown keys are ignored;
 * known keys with the wrong type fail validation, as in Claude Code.
 */
const permissionDecision = z.enum(['allow', 'deny', 'ask', 'defer']);

const hookSpecificOutput = z.looseObject({
  hookEventName: z.string(),
  permissionDecision: permissionDecision.optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: z.record(z.string(), z.unknown()).optional(),
  additionalContext: z.string().optional(),
  updatedToolOutput: z.unknown().optional(),
  updatedMCPToolOutput: z.unknown().optional(),
  decision: z
    .looseObject({
      behavior: z.enum(['allow', 'deny', 'ask']),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      message: z.string().optional(),
      interrupt: z.boolean().optional(),
      updatedPermissions: z
        .array(
          z.looseObject({
            type: z.string(),
            rules: z.array(z.looseObject({ toolName: z.string().min(1), ruleContent: z.string().optional() })).optional(),
            behavior: z.enum(['allow', 'deny', 'ask']).optional(),
            destination: z.string().optional(),
          }),
        )
        .optional(),
    })
    .optional(),
  retry: z.boolean().optional(),
  llmRequest: z.record(z.string(), z.unknown()).optional(),
  llmResponse: z.record(z.string(), z.unknown()).optional(),
  abort: z.enum(['turn', 'hard']).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  /** AstroResearch's Warning `truncate_output` (PostToolUse / PostToolUseFailure): shorten what the model sees. */
  truncateOutput: z.boolean().optional(),
  /** SessionStart / FileChanged: absolute paths FileChanged watches from now on (MAX_WATCHED_FILES at most are watched). */
  watchPaths: z.array(z.string().min(1).max(4_096)).max(10_000).optional(),
  /** Elicitation / ElicitationResult: the answer to an MCP server's request for input. */
  action: z.enum(ELICITATION_ACTIONS).optional(),
  content: z.record(z.string(), z.unknown()).optional(),
  /**
   * AstroResearch's advisory PermissionRequired (PostToolUse): the call that ran needed this
   * permission. Audited and shown, never blocking; Hookpilot's own name, which Claude Code ignores.
   */
  hookpilotPermissionRequired: z
    .strictObject({ permission: z.string().min(1).max(2_000), tool_name: z.string().max(200).optional() })
    .optional(),
});

export const hookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  // `approve` / `block` are Claude Code's legacy PreToolUse spellings; `allow`/`deny` are
  // accepted from rpc and http hooks that answer in PicoClaw's vocabulary.
  decision: z.enum(['block', 'approve', 'allow', 'deny', 'ask']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: hookSpecificOutput.optional(),
});

export type HookOutputJson = z.infer<typeof hookOutputSchema>;

export type ParsedOutput = { ok: true; effects: HookEffects } | { ok: false; error: string };

/**
 * Room for a rewritten request or tool output around tool arguments (at most 64 deep), far
 * below what the host's recursive serializers (a hook's stdin, the audit log, the chat) take:
 * a hook's 1 MiB answer of `{"a":` would overflow the stack there and end the turn.
 */
export const MAX_HOOK_OUTPUT_DEPTH = 128;

/** Validates a hook's JSON answer for `event` and normalizes it into effects. */
export function parseHookOutput(event: HookEventName, value: unknown): ParsedOutput {
  if (nestedDeeperThan(value, MAX_HOOK_OUTPUT_DEPTH))
    return { ok: false, error: `invalid hook output: nested more than ${MAX_HOOK_OUTPUT_DEPTH} levels deep` };
  const parsed = hookOutputSchema.safeParse(value);
  if (!parsed.success) {
    return { ok: false, error: `invalid hook output: ${z.prettifyError(parsed.error).replace(/\n/g, '; ')}` };
  }
  const out = parsed.data;
  const hso = out.hookSpecificOutput;
  if (hso && hso.hookEventName !== event) {
    return { ok: false, error: `invalid hook output: hookSpecificOutput.hookEventName must be "${event}", got "${hso.hookEventName}"` };
  }
  const effects: HookEffects = {};
  if (out.continue === false) effects.stop = { reason: out.stopReason };
  if (out.systemMessage !== undefined) effects.systemMessage = out.systemMessage;
  if (out.reason !== undefined) effects.reason = out.reason;

  if (out.decision !== undefined) {
    effects.decision = normalizeTopLevelDecision(event, out.decision);
  }
  if (hso) {
    if (hso.permissionDecision !== undefined) {
      effects.decision = hso.permissionDecision;
      if (hso.permissionDecisionReason !== undefined) effects.reason = hso.permissionDecisionReason;
    }
    if (hso.updatedInput !== undefined) effects.updatedInput = hso.updatedInput;
    if (hso.additionalContext !== undefined) effects.additionalContext = hso.additionalContext;
    const toolOutput = hso.updatedToolOutput ?? hso.updatedMCPToolOutput;
    if (toolOutput !== undefined) effects.updatedToolOutput = toolOutput;
    if (hso.decision !== undefined) {
      effects.permission = {
        behavior: hso.decision.behavior,
        updatedInput: hso.decision.updatedInput,
        message: hso.decision.message,
        interrupt: hso.decision.interrupt,
        updatedPermissions: hso.decision.updatedPermissions,
      };
    }
    if (hso.retry !== undefined) effects.retry = hso.retry;
    if (hso.llmRequest !== undefined) effects.llmRequest = hso.llmRequest;
    if (hso.llmResponse !== undefined) effects.llmResponse = hso.llmResponse;
    if (hso.abort !== undefined) effects.abort = hso.abort;
    if (hso.metadata !== undefined) effects.metadata = hso.metadata;
    if (hso.truncateOutput) effects.truncateOutput = true;
    if (hso.watchPaths !== undefined && (event === 'SessionStart' || event === 'FileChanged')) effects.watchPaths = hso.watchPaths;
    if ((hso.action !== undefined || hso.content !== undefined) && (event === 'Elicitation' || event === 'ElicitationResult'))
      effects.elicitation = { action: hso.action, content: hso.content };
    const required = hso.hookpilotPermissionRequired;
    if (required !== undefined) effects.permissionRequired = { permission: required.permission, toolName: required.tool_name };
  }
  return { ok: true, effects };
}

function normalizeTopLevelDecision(event: HookEventName, decision: NonNullable<HookOutputJson['decision']>): HookEffects['decision'] {
  if (event === 'PreToolUse' || event === 'PermissionRequest') {
    if (decision === 'approve') return 'allow';
    if (decision === 'block') return 'deny';
    return decision;
  }
  if (decision === 'deny' || decision === 'block') return 'block';
  if (decision === 'approve') return 'allow';
  return decision;
}

/**
 * Claude Code's stdout rule: JSON only when the trimmed output starts with `{` and parses;
 * anything else (arrays, strings, a banner line before the JSON) is plain text.
 */
export function classifyStdout(stdout: string): { kind: 'json'; value: unknown } | { kind: 'text'; text: string } | { kind: 'empty' } {
  const trimmed = stdout.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (trimmed.startsWith('{')) {
    try {
      return { kind: 'json', value: JSON.parse(trimmed) };
    } catch {
      return { kind: 'text', text: stdout };
    }
  }
  return { kind: 'text', text: stdout };
}
