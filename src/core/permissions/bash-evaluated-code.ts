import type sh from 'mvdan-sh';
import { boundedWalk, shellParser, shellSyntax, type Node } from './bash-parser';
import { SHELL_CODE_VARIABLE } from './bash-variables';
import { isPlainParameter, wordValue } from './bash-word-value';
import { HOLE } from './wildcard';

/** Operators whose operands bash evaluates, in this build's numbering (read from probes). */
interface EvaluatingOps {
  /** `-eq`, `-lt`, ... in `[[ ]]`: arithmetic on both sides. */
  arithmeticTests: Set<number>;
  /** `[[ -v 'a[i]' ]]`: a subscript. */
  variableTest: number;
  /** `${x@P}`, `${x@Q}`, ...: the transformations. */
  transformation: number;
}

function evaluatingOperatorCodes(parser: sh.Parser): EvaluatingOps {
  const syntax = shellSyntax();
  const op = (source: string, type: string, read: (node: Node) => number) => {
    let code = -1;
    syntax.Walk(parser.Parse(source, 'probe'), (node) => {
      if (node && code === -1 && syntax.NodeType(node) === type) code = read(node);
      return true;
    });
    return code;
  };
  const testOp = (node: Node) => (node as sh.BinaryTest).Op as unknown as number;
  return {
    arithmeticTests: new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge'].map((o) => op(`[[ a ${o} b ]]`, 'BinaryTest', testOp))),
    variableTest: op('[[ -v a ]]', 'UnaryTest', (node) => (node as sh.UnaryTest).Op as unknown as number),
    transformation: op('${a@P}', 'ParamExp', (node) => (node as sh.ParamExp).Exp!.Op as unknown as number),
  };
}

/** The operator codes, read on first use like the parser itself. */
let evaluatingOps: EvaluatingOps | undefined;

/**
 * Why bash may run, at this node, code that a value holds and no simple command shows: it
 * evaluates arithmetic on a variable recursively (`x='a[$(rm y)]'; : $((x))`), expands a value
 * again for `${x@P}` and `${!x}`, and runs or looks commands up in some variables' values.
 */
export function evaluatedCode(node: Node, type: string): string | undefined {
  const ops = (evaluatingOps ??= evaluatingOperatorCodes(shellParser()));
  switch (type) {
    case 'ArithmExp':
    case 'ArithmCmd':
    case 'LetClause':
    case 'CStyleLoop':
      return namesVariable(node) ? 'arithmetic on a variable (bash evaluates its value)' : undefined;
    case 'BinaryTest': {
      const test = node as sh.BinaryTest;
      const arithmetic = ops.arithmeticTests.has(test.Op as unknown as number) && (namesVariable(test.X) || namesVariable(test.Y));
      return arithmetic ? '[[ ... ]] arithmetic on a variable (bash evaluates its value)' : undefined;
    }
    case 'UnaryTest': {
      const test = node as sh.UnaryTest;
      if ((test.Op as unknown as number) !== ops.variableTest || shellSyntax().NodeType(test.X) !== 'Word') return undefined;
      const operand = wordValue(test.X as sh.Word);
      return operand.expands || operand.text.includes('[') ? 'a variable subscript given to [[ -v ]] (bash evaluates it)' : undefined;
    }
    case 'ParamExp':
      return evaluatedParameter(node as sh.ParamExp, ops);
    case 'ArrayElem': {
      const index = (node as sh.ArrayElem).Index;
      return index && namesVariable(index) ? ARRAY_SUBSCRIPT : undefined;
    }
    case 'Assign': {
      const assign = node as sh.Assign;
      if (assign.Index && namesVariable(assign.Index)) return ARRAY_SUBSCRIPT;
      const name = assign.Name?.Value ?? '';
      if (assign.Naked || !SHELL_CODE_VARIABLE.test(name)) return undefined;
      return runsValue(name, assign.Value ? wordValue(assign.Value).text : '')
        ? `an assignment of ${name}, whose value bash runs`
        : undefined;
    }
    default:
      return undefined;
  }
}

const ARRAY_SUBSCRIPT = 'an array subscript on a variable (bash evaluates its value)';

/** Whether bash runs code or looks commands up in `name` set to `value`. */
export function runsValue(name: string, value: string): boolean {
  if (!SHELL_CODE_VARIABLE.test(name)) return false;
  // PS4 is expanded at each line `set -x` traces: only its expansions run.
  return name !== 'PS4' || /\$[({[]|`/.test(value) || value.includes(HOLE);
}

function evaluatedParameter(param: sh.ParamExp, ops: EvaluatingOps): string | undefined {
  // `${!a[@]}` lists the keys; any other `${!x}` expands the name x holds.
  const keys = param.Index && shellSyntax().NodeType(param.Index) === 'Word' && /^[@*]$/.test(wordValue(param.Index as sh.Word).text);
  if (param.Excl && !param.Names && !keys) return 'an indirect parameter expansion ${!x} (bash evaluates the name it holds)';
  if (param.Exp && (param.Exp.Op as unknown as number) === ops.transformation) {
    const letter = param.Exp.Word ? wordValue(param.Exp.Word) : undefined;
    if (!letter || letter.expands || letter.text.includes('P')) return 'the ${x@P} transformation (bash expands the value as a prompt)';
  }
  const slice = param.Slice ? [param.Slice.Offset, param.Slice.Length] : [];
  if ([param.Index, ...slice].some((part) => part && namesVariable(part)))
    return 'a subscript or slice on a variable (bash evaluates its value)';
  return undefined;
}

/**
 * Whether an arithmetic expression refers to anything but numbers: a variable name, or an
 * expansion whose text bash would evaluate in turn. `@` and `*` (all elements) are not names.
 */
function namesVariable(expression: Node): boolean {
  const syntax = shellSyntax();
  let names = false;
  const end = boundedWalk(expression, (node) => {
    if (names) return false;
    if (syntax.NodeType(node) === 'Word') names = !(node as sh.Word).Parts.every(isNumberPart);
    return !names;
  });
  // Past the walk's bounds, what is below is not known to be numbers.
  return names || end !== 'done';
}

const ARITHMETIC_NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+(#[0-9a-zA-Z@_]+)?|[@*])$/;

/** A literal number, or an expansion that is always one: `$#`, `$?`, `$$`, `$!`, `${#x}`. */
function isNumberPart(part: Node): boolean {
  const type = shellSyntax().NodeType(part);
  if (type === 'Lit') return ARITHMETIC_NUMBER.test((part as sh.Lit).Value);
  if (type !== 'ParamExp') return false;
  const param = part as sh.ParamExp;
  return param.Length || (isPlainParameter(param) && /^[#?$!]$/.test(param.Param?.Value ?? ''));
}
