import { mcpServerOf } from '../../mcp/mcp-names';
import { isFileEditTool } from '../tools/tool-catalog';
import type { ApprovalRequest, LinkedTarget } from './permission-settings';

/**
 * Characters that would let the model's text drive or fool the display it is shown in: C0 and
 * C1 controls and DEL (cursor moves, line erasure, OSC 52 clipboard writes), bidi overrides and
 * zero-width characters (text that reads in another order, or names that look alike), every
 * default-ignorable code point (drawn as nothing, assigned or not: Hangul fillers, variation
 * selectors, tags), every unassigned one (no agreed glyph: a newer renderer may draw none), and
 * every blank but the plain space (no-break and ideographic spaces, the braille blank), whose
 * long runs would push the rest of a command out of sight.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cn}\p{Z}\p{Default_Ignorable_Code_Point}\u2800]/gu;
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

/**
 * Whether a non-ASCII letter is drawn like a Latin one without being one: another script's
 * (Cyrillic `і`, Greek `ο`), or a compatibility form (fullwidth `ｇ`, mathematical `𝐠`).
 */
function looksLatin(letter: string): boolean {
  return !LATIN_LETTER.test(letter) || letter.normalize('NFKC') !== letter;
}
const LATIN_LETTER = /\p{Script=Latin}/u;

/**
 * The text with each lookalike letter in a word that holds ASCII letters escaped
 * (`curl g\u0456thub.com`): a host, path or command a person approves must read as what it is.
 * A word of one other script alone (`echo привет`) is left as it is.
 */
function withLookalikesEscaped(text: string): string {
  return text.replace(/\S+/g, (word) =>
    /[A-Za-z]/.test(word) ? word.replace(/\p{L}/gu, (c) => (c > '\x7f' && looksLatin(c) ? escaped(c) : c)) : word,
  );
}

/** What approval surfaces show as the call, its rule or its file: visibleText, lookalike letters escaped too. */
function shownSubject(text: string, escapedCharacters = INVISIBLE): string {
  return shown(text, escapedCharacters, true);
}

function shown(text: string, escapedCharacters: RegExp, lookalikes = false): string {
  const visible = text.replace(escapedCharacters, escaped);
  return (lookalikes ? withLookalikesEscaped(visible) : visible)
    .replace(/ {4,}/g, (run) => ` ⟨${run.length} spaces⟩ `)
    .replace(/(\\u(?:[0-9a-f]{4}|\{[0-9a-f]+\}))\1{3,}/g, (run, one: string) => `⟨${run.length / one.length} × ${one}⟩`);
}

/** Leading indentation up to this is kept as spaces: code stays readable, and the line wraps, so it hides nothing. */
const MAX_KEPT_INDENT = 40;

/** One line of a file's text as visibleText shows it, but with its indentation kept as spaces. */
export function visibleLine(line: string): string {
  const indent = /^ */.exec(line)?.[0] ?? '';
  return indent.length <= MAX_KEPT_INDENT ? indent + visibleText(line.slice(indent.length)) : visibleText(line);
}

/** Past this length a prompt says how long the command is: it is still shown whole. */
const LONG = 200;
/** How much of each end of a long text is repeated, or kept, where the whole would fill the screen. */
const END_CHARS = 160;

/** The first and the last END_CHARS characters of already escaped text, or undefined when it is short enough to show whole. */
function endsOf(text: string): { start: string; end: string } | undefined {
  const characters = Array.from(text);
  if (characters.length <= 2 * END_CHARS) return undefined;
  return { start: characters.slice(0, END_CHARS).join(''), end: characters.slice(-END_CHARS).join('') };
}

/**
 * What the approval prompt shows as the call: a Bash command whole (never clipped, unlike the
 * one-line summary), escaped; any other tool's summary, escaped, and the file it really acts on
 * when a link leads elsewhere.
 */
export function approvalSubject(request: Pick<ApprovalRequest, 'toolName' | 'input' | 'summary' | 'linkedTarget'>): string {
  // An MCP call's arguments whole: what rides past the card's clipped summary still reaches the person.
  const server = mcpServerOf(request.toolName);
  if (server !== undefined)
    return `MCP ${server}: ${shownSubject(request.toolName.slice(server.length + 7))} ${shownSubject(JSON.stringify(request.input))}`;
  const command = request.input.command;
  if (request.toolName !== 'Bash' || typeof command !== 'string') return shownSubject(request.summary) + linkNote(request.linkedTarget);
  const note = command.length > LONG ? ` (the whole command, ${command.length} characters)` : '';
  return `Run: ${shownSubject(command, INVISIBLE_OR_AMBIGUOUS)}${note}`;
}

/**
 * The start and the end of a long Bash command, escaped as approvalSubject shows it, for a
 * terminal to repeat right above its question: the whole command may fill more than a screen,
 * and its first words must not scroll away. Empty for a short command or another tool.
 */
export function longCommandEnds(request: Pick<ApprovalRequest, 'toolName' | 'input'>): string[] {
  const command = request.input.command;
  if (request.toolName !== 'Bash' || typeof command !== 'string' || command.length <= LONG) return [];
  const ends = endsOf(shownSubject(command, INVISIBLE_OR_AMBIGUOUS));
  return ends ? [`The command (${command.length} characters) starts: ${ends.start} …`, `… and ends: ${ends.end}`] : [];
}

/**
 * The rule "Allow for session" and "Always allow" add, escaped. A rule for a long command is the
 * command itself, shown whole as the subject: here only its ends, so it does not fill the screen twice.
 */
export function visibleRule(rule: string): string {
  const text = shownSubject(rule);
  const ends = endsOf(text);
  return ends ? `${ends.start} … ${ends.end} (a rule of ${rule.length} characters)` : text;
}

/** How many lines of each side of a proposed change a prompt shows, and how much of each line. */
const CHANGE_LINES = 12;
const CHANGE_LINE_CHARS = 200;

/**
 * What an Edit or a Write would write, for a prompt that cannot open a diff: the text it replaces
 * as `- ` lines and the new text as `+ ` lines, each escaped (visibleLine), at most CHANGE_LINES
 * of each and CHANGE_LINE_CHARS of a line, saying what is left out, so a huge file cannot push
 * the question out of sight. Empty for a tool that writes no file.
 */
export function proposedChange(request: Pick<ApprovalRequest, 'toolName' | 'input'>): string[] {
  if (!isFileEditTool(request.toolName)) return [];
  const { old_string: replaced, new_string: replacement, content } = request.input;
  return [...changeSide('-', replaced), ...changeSide('+', content ?? replacement)];
}

function changeSide(mark: string, text: unknown): string[] {
  if (typeof text !== 'string' || text === '') return [];
  const lines = text.split('\n');
  // A final newline ends the last line: it starts no empty one.
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  const shownLines = lines.slice(0, CHANGE_LINES).map((line) => {
    const characters = Array.from(visibleLine(line));
    const cut = characters.length > CHANGE_LINE_CHARS;
    return `${mark} ${cut ? `${characters.slice(0, CHANGE_LINE_CHARS).join('')} … (line cut at ${CHANGE_LINE_CHARS} characters)` : characters.join('')}`;
  });
  if (lines.length > CHANGE_LINES) shownLines.push(`${mark} … (${lines.length - CHANGE_LINES} more lines)`);
  return shownLines;
}

/** The summary names the path as given: the file written or read may be another one. */
function linkNote(target: LinkedTarget | undefined): string {
  if (target === undefined) return '';
  if ('path' in target) return ` → ${shownSubject(target.path)} (through a link)`;
  return ` → a path that cannot be resolved (${shownSubject(target.unresolved)})`;
}
