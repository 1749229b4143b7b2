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
