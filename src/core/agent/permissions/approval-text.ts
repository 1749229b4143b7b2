import { mcpServerOf } from '../../mcp/mcp-names';
import type { ApprovalRequest, LinkedTarget } from './permission-settings';

/**
 * Characters that would let the model's text drive or fool the display it is shown in: C0 and
 * C1 controls and DEL (cursor moves, line erasure, OSC 52 clipboard writes), bidi overrides and
 * zero-width characters (text that reads in another order, or names that look alike), and every
 * blank but the plain space (no-break and ideographic spaces, the braille blank, Hangul fillers,
 * variation selectors), whose long runs would push the rest of a command out of sight.
 */
// Combining blanks (the grapheme joiner, a Hangul filler, Khmer inherent vowels, variation selectors) stand
// apart: inside one class they would combine with the character before them.
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Z}\u115f\u2800\u3164\uffa0]|\u1160|[\u180b-\u180f]|\u034f|\u17b4|\u17b5|[\ufe00-\ufe0f]|[\u{e0100}-\u{e01ef}]/gu;
/**
 * For a command: also a backslash (written `\\`, so `\n` the model typed never reads as a newline)
 * and the brackets of the counted runs below (so no typed text reads as one).
 */
const INVISIBLE_OR_AMBIGUOUS = new RegExp(`\\\\|[\u27e8\u27e9]|${INVISIBLE.source}`, 'gu');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e', '\\': '\\\\' };

function escaped(c: string): string {
  if (c === ' ') return c;
  const code = c.codePointAt(0) ?? 0;
  return NAMED[c] ?? (code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

/**
 * Text from the model as a person must see it before approving it: every control, invisible or
 * blank character written as an escape (`\e`, `\n`, `\u3000`), on one line, and a long run of
 * spaces or of one escape counted rather than printed, so nothing can push the rest of a command
 * out of sight.
 */
export function visibleText(text: string): string {
  return shown(text, INVISIBLE);
}

function shown(text: string, escapedCharacters: RegExp): string {
  return text
    .replace(escapedCharacters, escaped)
    .replace(/ {4,}/g, (run) => ` ⟨${run.length} spaces⟩ `)
    .replace(/(\\u(?:[0-9a-f]{4}|\{[0-9a-f]+\}))\1{3,}/g, (run, one: string) => `⟨${run.length / one.length} × ${one}⟩`);
}

/** Past this length a prompt says how long the command is: it is still shown whole. */
const LONG = 200;

/**
 * What the approval prompt shows as the call: a Bash command whole (never clipped, unlike the
 * one-line summary), escaped; any other tool's summary, escaped, and the file it really acts on
 * when a link leads elsewhere.
 */
export function approvalSubject(request: Pick<ApprovalRequest, 'toolName' | 'input' | 'summary' | 'linkedTarget'>): string {
  // An MCP call's arguments whole: what rides past the card's clipped summary still reaches the person.
  const server = mcpServerOf(request.toolName);
  if (server !== undefined)
    return `MCP ${server}: ${visibleText(request.toolName.slice(server.length + 7))} ${visibleText(JSON.stringify(request.input))}`;
  const command = request.input.command;
  if (request.toolName !== 'Bash' || typeof command !== 'string') return visibleText(request.summary) + linkNote(request.linkedTarget);
  const note = command.length > LONG ? ` (the whole command, ${command.length} characters)` : '';
  return `Run: ${shown(command, INVISIBLE_OR_AMBIGUOUS)}${note}`;
}

/** The summary names the path as given: the file written or read may be another one. */
function linkNote(target: LinkedTarget | undefined): string {
  if (target === undefined) return '';
  if ('path' in target) return ` → ${visibleText(target.path)} (through a link)`;
  return ` → a path that cannot be resolved (${visibleText(target.unresolved)})`;
}
