import { mcpServerOf } from '../../mcp/mcp-names';
import type { ApprovalRequest } from './permission-settings';

/**
 * Characters that would let the model's text drive or fool the display it is shown in: C0 and
 * C1 controls and DEL (cursor moves, line erasure, OSC 52 clipboard writes), bidi overrides and
 * zero-width characters (text that reads in another order, or names that look alike).
 */
// Cc: C0, DEL and C1 controls; Cf: bidi overrides, zero-width and other format characters; and the Hangul fillers.
const INVISIBLE = /[\p{Cc}\p{Cf}\u115f\u1160\u3164]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

/**
 * Text from the model as a person must see it before approving it: every control or invisible
 * character written as an escape (`\e`, `\n`, `\u202e`), on one line, and a long run of spaces
 * counted rather than printed, so nothing can push the rest of a command out of sight.
 */
export function visibleText(text: string): string {
  return text
    .replace(INVISIBLE, (c) => NAMED[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/ {4,}/g, (run) => ` ⟨${run.length} spaces⟩ `);
}

/** Past this length a prompt says how long the command is: it is still shown whole. */
const LONG = 200;

/**
 * What the approval prompt shows as the call: a Bash command whole (never clipped, unlike the
 * one-line summary), escaped; any other tool's summary, escaped.
 */
export function approvalSubject(request: Pick<ApprovalRequest, 'toolName' | 'input' | 'summary'>): string {
  // An MCP call's arguments whole: what rides past the card's clipped summary still reaches the person.
  const server = mcpServerOf(request.toolName);
  if (server !== undefined)
    return `MCP ${server}: ${visibleText(request.toolName.slice(server.length + 7))} ${visibleText(JSON.stringify(request.input))}`;
  const command = request.input.command;
  if (request.toolName !== 'Bash' || typeof command !== 'string') return visibleText(request.summary);
  const note = command.length > LONG ? ` (the whole command, ${command.length} characters)` : '';
  return `Run: ${visibleText(command)}${note}`;
}
