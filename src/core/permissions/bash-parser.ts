import type sh from 'mvdan-sh';

export type Node = sh.Node;
type Syntax = (typeof sh)['syntax'];

/**
 * The parser, loaded on first use: starting its Go runtime takes a noticeable fraction of a
 * second, which a CLI run or an extension activation that never gates a Bash call should not pay.
 */
let loaded: { syntax: Syntax; parser: sh.Parser } | undefined;
function shell(): NonNullable<typeof loaded> {
  if (!loaded) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const syntax = (require('mvdan-sh') as typeof sh).syntax;
    // Comments kept: the walk must see one the parser carried on past a line's end.
    const parser = syntax.NewParser(syntax.KeepComments(true));
    loaded = { syntax, parser };
  }
  return loaded;
}

/** The parser's `syntax` package: node types and the tree walk. */
export function shellSyntax(): Syntax {
  return shell().syntax;
}

/** The bash parser (comments kept). */
export function shellParser(): sh.Parser {
  return shell().parser;
}

/**
 * How deep a tree walk goes: the walk recurses, and `$((1+1+…))` a few thousand terms long
 * overflows the stack (and takes the Go runtime's stack handling tens of seconds to get there).
 */
export const MAX_WALK_DEPTH = 400;

/**
 * How many nodes a tree walk visits: each costs tens of microseconds (the parser's runtime
 * copies a node's fields out on every read), and one word of alternating quotes (`'a'\''a'\''…`,
 * or `bash -c` nested in itself) holds a node every few characters.
 */
export const MAX_SYNTAX_NODES = 10_000;

/** How a bounded walk ended: it visited every node, or it stopped at one of the bounds. */
export type WalkEnd = 'done' | 'too deep' | 'too many nodes';

const TOO_MANY_NODES = new Error('too many nodes');

/**
 * Visits the nodes under `root`, each before its children; `visit` returns false to skip a
 * node's children. Stops at MAX_WALK_DEPTH levels or MAX_SYNTAX_NODES nodes.
 */
export function boundedWalk(root: Node, visit: (node: Node) => boolean): WalkEnd {
  const syntax = shellSyntax();
  let depth = 0;
  let visited = 0;
  let end: WalkEnd = 'done';
  try {
    syntax.Walk(root, (node) => {
      // After a node's children the walk calls back with none.
      if (node === null || node === undefined) return Boolean(depth--);
      if (depth >= MAX_WALK_DEPTH) end = 'too deep';
      if (end !== 'done') return false;
      // Returning false skips a node's children but not its siblings: only a throw ends the walk.
      if (++visited > MAX_SYNTAX_NODES) throw TOO_MANY_NODES;
      const descend = visit(node);
      if (descend) depth++;
      return descend;
    });
  } catch (error) {
    if (error !== TOO_MANY_NODES) throw error;
    end = 'too many nodes';
  }
  return end;
}
