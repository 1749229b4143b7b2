import {
  createScanner,
  findNodeAtLocation,
  getNodeValue,
  parseTree,
  printParseErrorCode,
  stripComments,
  type SyntaxKind,
  type Node,
  type ParseError,
} from 'jsonc-parser';
import type { JsonPath, Locator, TextRange } from './config-problems';

export interface JsoncSyntaxError {
  message: string;
  range: TextRange;
}

export interface ParsedJsonc {
  /** undefined for an empty document (only whitespace and comments). */
  value: unknown;
  locator: Locator;
  syntaxErrors: JsoncSyntaxError[];
  /** Nested past MAX_JSONC_DEPTH: nothing was read, and the one syntax error says so. */
  tooDeep?: true;
}

/** Offsets to 1-based line/column; columns count UTF-16 units, as editors do. */
class LineIndex {
  private readonly starts: number[] = [0];

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) i++;
        this.starts.push(i + 1);
      } else if (ch === 10 /* \n */) {
        this.starts.push(i + 1);
      }
    }
  }

  position(offset: number): { line: number; column: number } {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return { line: low + 1, column: offset - this.starts[low] + 1 };
  }

  range(offset: number, length: number): TextRange {
    const start = this.position(offset);
    const end = this.position(offset + length);
    return { line: start.line, column: start.column, endLine: end.line, endColumn: end.column };
  }
}

/** "CloseBraceExpected" -> "close brace expected". */
function describeParseError(error: ParseError): string {
  const words = printParseErrorCode(error.error)
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return `Syntax error: ${words}.`;
}

function nodeLocator(root: Node | undefined, lines: LineIndex): Locator {
  return {
    locate(path: JsonPath, part: 'key' | 'value'): TextRange | undefined {
      if (!root) return undefined;
      // A missing property points at the nearest enclosing node that exists.
      for (let depth = path.length; depth >= 0; depth--) {
        const node = findNodeAtLocation(root, [...path.slice(0, depth)]);
        if (!node) continue;
        const keyNode = part === 'key' && depth === path.length && node.parent?.type === 'property' ? node.parent.children?.[0] : undefined;
        const target = keyNode ?? node;
        return lines.range(target.offset, target.length);
      }
      return undefined;
    },
  };
}

/** `text` without a leading UTF-8 byte order mark, which editors write and hide and a JSON parser rejects. */
export function withoutBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

/**
 * Deeper than any configuration file. The parser recurses once per level, so a file nested
 * thousands deep (a cloned repository's) would overflow the stack before any problem is known.
 */
export const MAX_JSONC_DEPTH = 256;

// SyntaxKind is a const enum, which isolated modules cannot read: its values, checked by the types.
const OPEN_BRACE: SyntaxKind.OpenBraceToken = 1;
const CLOSE_BRACE: SyntaxKind.CloseBraceToken = 2;
const OPEN_BRACKET: SyntaxKind.OpenBracketToken = 3;
const CLOSE_BRACKET: SyntaxKind.CloseBracketToken = 4;
const EOF: SyntaxKind.EOF = 17;

/**
 * Where `text` first opens an object or array past MAX_JSONC_DEPTH levels, by its tokens
 * (strings and comments skipped). Only a close of the same kind closes: the parser's recovery
 * skips a stray `}` in an array, so `[},[},…` nests as deep as `[[[…`.
 */
function firstTooDeep(text: string): number | undefined {
  const scanner = createScanner(text, false);
  const open: Array<typeof CLOSE_BRACE | typeof CLOSE_BRACKET> = [];
  for (let token = scanner.scan(); token !== EOF; token = scanner.scan()) {
    if (token === OPEN_BRACE || token === OPEN_BRACKET) {
      open.push(token === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET);
      if (open.length > MAX_JSONC_DEPTH) return scanner.getTokenOffset();
    } else if ((token === CLOSE_BRACE || token === CLOSE_BRACKET) && open.at(-1) === token) open.pop();
  }
  return undefined;
}

/** Parses JSONC (comments, trailing commas, a byte order mark) tolerantly: a syntax error keeps what parsed. */
export function parseJsonc(document: string): ParsedJsonc {
  const text = withoutBom(document);
  const lines = new LineIndex(text);
  if (stripComments(text).trim() === '') return { value: undefined, locator: nodeLocator(undefined, lines), syntaxErrors: [] };
  const tooDeep = (message: string, offset: number): ParsedJsonc => ({
    value: undefined,
    locator: nodeLocator(undefined, lines),
    syntaxErrors: [{ message, range: lines.range(offset, 1) }],
    tooDeep: true,
  });
  const deepAt = firstTooDeep(text);
  if (deepAt !== undefined) return tooDeep(`nested more than ${MAX_JSONC_DEPTH} levels deep`, deepAt);
  const errors: ParseError[] = [];
  let root: Node | undefined;
  try {
    root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  } catch (error) {
    // A nesting the scan did not foresee: the file is still one that cannot be read, never a crash.
    if (!(error instanceof RangeError)) throw error;
    return tooDeep('nested too deep to read', 0);
  }
  const syntaxErrors = errors.map((error) => ({
    message: describeParseError(error),
    range: lines.range(error.offset, Math.max(error.length, 1)),
  }));
  const value: unknown = root ? getNodeValue(root) : undefined;
  return { value, locator: nodeLocator(root, lines), syntaxErrors: [...syntaxErrors, ...duplicateKeys(root, lines)] };
}

/**
 * A key written twice in one object: JSON keeps the last, so a reader (or a reviewed diff)
 * that sees the first is misled. `{"hooks": {guard}, "hooks": {}}` loads no hook.
 */
function duplicateKeys(root: Node | undefined, lines: LineIndex): JsoncSyntaxError[] {
  const found: JsoncSyntaxError[] = [];
  const stack = root ? [root] : [];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const seen = new Set<string>();
    for (const child of node.children ?? []) {
      const key = node.type === 'object' && child.type === 'property' ? child.children?.[0] : undefined;
      if (key && typeof key.value === 'string') {
        if (seen.has(key.value))
          found.push({
            message: `Duplicate key ${JSON.stringify(key.value)}: only its last value counts.`,
            range: lines.range(key.offset, key.length),
          });
        seen.add(key.value);
      }
      stack.push(child);
    }
  }
  return found;
}
