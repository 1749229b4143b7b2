import { analyzeLine, WALK_ENDS } from './bash-line-analysis';
import { MAX_SYNTAX_NODES } from './bash-parser';
import { MAX_NESTING, readScripts } from './bash-wrappers';
import { KeptAnalyses } from './kept-analyses';
import { HOLE } from './wildcard';

/**
 * What a Bash command line would run, from a real shell parser (mvdan/sh, bash dialect):
 * what permission rules and the gate need to decide on it without running it.
 */
export type BashAnalysis =
  | { kind: 'unparseable'; error: string }
  | {
      kind: 'parsed';
      /** Every simple command anywhere in the tree, substitutions and function bodies included. */
      commands: SimpleCommand[];
      redirects: RedirectTarget[];
      /**
       * Text the line hands to commands outside their words: assignment values, `for` lists,
       * here-string and here-doc texts. Checks on paths look at these too (`f=../x; cat $f`).
       * A HOLE among them: an unquoted expansion may split into further words.
       */
      values: string[];
      /**
       * Why the line may run code no rule can see (command or process substitution, arithmetic,
       * a function definition, ...); empty when every command is visible. Never auto-allowed.
       */
      hidden: string[];
      /**
       * The hidden reasons by which the line may run a command that no entry of `commands` shows
       * (bash evaluating a value as code, a name bound to another program): deny rules cannot
       * rule those out.
       */
      unseen: string[];
      /** The syntax nodes of the line itself, which its analysis' cost and memory grow with. */
      nodes: number;
    };

export interface SimpleCommand {
  /**
   * The words with quoting removed, leading `VAR=value` assignments left out. A part the shell
   * would expand (`$VAR`, `$(...)`, `{a,b}`) is a HOLE. Unquoted glob characters stay as they are.
   */
  words: string[];
  /** The words as allow rules read them (shell-spelling.ts): quoting that changes what runs kept. */
  spelled: string[];
  /** Names assigned before the command (`FOO=1 git push` => FOO). */
  assigned: string[];
  /** Whether the command name is not fixed text (an expansion or a glob): then anything may run. */
  dynamicName: boolean;
  /** The here-doc and here-string texts fed to the command (`sh <<< 'rm x'` runs them); undefined: none. */
  stdin?: string[];
}

export interface RedirectTarget {
  /** The target with quoting removed; undefined when an expansion makes it unknowable. */
  target: string | undefined;
  /** Whether the redirection can create or change the target (`>`, `>>`, `>|`, `&>`, `<>`, `>&file`). */
  write: boolean;
}

/**
 * The gate asks about one command many times (once per rule, and for the scripts nested in
 * it), and agents repeat commands (`npm test`, `git status`): recent answers are kept, by the
 * text alone, up to a number of syntax nodes in all (their memory grows with them).
 */
const KEPT = { entries: 4_096, size: 200_000 };
const nodesOf = (analysis: BashAnalysis) => (analysis.kind === 'parsed' ? analysis.nodes : 1);
const lines = new KeptAnalyses<BashAnalysis>(KEPT, nodesOf);
const withScripts = new KeptAnalyses<BashAnalysis>(KEPT, nodesOf);

/**
 * What `command` would run. A line is analyzed with the scripts it runs (`bash -c '…'`,
 * `eval`, `sh <<< …`, to MAX_NESTING levels) within one budget of syntax nodes: a line whose
 * script cannot be analyzed, is nested deeper, or costs more in all, or whose command may run
 * one behind more wrappers or launcher arguments than are read, is one that does not parse,
 * which every check fails closed on. The result is shared: treat it as read-only.
 */
export function analyzeBashCommand(command: string): BashAnalysis {
  return withScripts.get(command, () => withScriptsItRuns(command));
}

function lineAnalysis(command: string): BashAnalysis {
  return lines.get(command, () => deepFreeze(analyzeLine(command)));
}

function withScriptsItRuns(command: string): BashAnalysis {
  const line = lineAnalysis(command);
  if (line.kind !== 'parsed') return line;
  let nodes = line.nodes;
  let level: ParsedLine[] = [line];
  for (let depth = 1; level.length > 0; depth++) {
    const next: ParsedLine[] = [];
    for (const command of level.flatMap((analysis) => analysis.commands)) {
      const read = readScripts(command);
      if (read.cut) return unparseable('it runs a command behind more wrappers or launcher arguments than are read');
      for (const script of read.scripts) {
        // Input not known before the line runs (`curl … | sh`): what no analysis can read.
        if (script === HOLE) continue;
        if (depth > MAX_NESTING) return unparseable(`it runs a script nested more than ${MAX_NESTING} levels deep`);
        const inner = lineAnalysis(script);
        if (inner.kind !== 'parsed') return unparseable(`a script it runs cannot be analyzed: ${inner.error}`);
        nodes += inner.nodes;
        if (nodes > MAX_SYNTAX_NODES) return unparseable(`${WALK_ENDS['too many nodes']}, with the scripts it runs`);
        next.push(inner);
      }
    }
    level = next;
  }
  return line;
}

type ParsedLine = Extract<BashAnalysis, { kind: 'parsed' }>;

function unparseable(error: string): BashAnalysis {
  return { kind: 'unparseable', error };
}

/** Frozen all the way down: an answer is shared between callers, and none may change another's. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
