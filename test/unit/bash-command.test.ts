import { describe, expect, it } from 'vitest';
import { analyzeBashCommand } from '../../src/core/permissions/bash-command';
import { decodeAnsiC } from '../../src/core/permissions/bash-word-value';
import { HOLE } from '../../src/core/permissions/wildcard';

const parsed = (command: string) => {
  const analysis = analyzeBashCommand(command);
  if (analysis.kind !== 'parsed') throw new Error(`${command} did not parse: ${analysis.error}`);
  return analysis;
};
/** `script` run by `bash -c`, in `bash -c`, ... `levels` times, quoted as bash reads it. */
const nestedIn = (levels: number, script: string): string =>
  levels === 0 ? script : nestedIn(levels - 1, `bash -c '${script.replaceAll("'", `'\\''`)}'`);
const commands = (command: string) => parsed(command).commands.map((c) => c.words.join(' ').replaceAll(HOLE, '<?>'));

describe('analyzeBashCommand', () => {
  it('keeps recent answers: a command repeated after others is not parsed again, and no caller can change the shared answer', () => {
    const first = parsed('git status && npm test > out.txt');
    for (let i = 0; i < 10; i++) parsed(`echo ${i}`);
    expect(analyzeBashCommand('git status && npm test > out.txt')).toBe(first);
    expect(() => (first.commands as unknown as string[][]).push([])).toThrow(TypeError);
    expect(() => (first.commands[0].words as string[]).push('--force')).toThrow(TypeError);
    expect(() => ((first.redirects[0] as { target?: string }).target = 'x')).toThrow(TypeError);
    const fed = parsed("bash <<< 'rm -rf /'");
    expect(() => (fed.commands[0].stdin as string[]).splice(0)).toThrow(TypeError);
    const broken = analyzeBashCommand('echo "unterminated');
    expect(() => Object.assign(broken, { kind: 'parsed' })).toThrow(TypeError);
    expect(commands('git status && npm test > out.txt')).toEqual(['git status', 'npm test']);
  });

  it.each([
    [
      'past the node budget with them',
      Array.from({ length: 600 }, (_, i) => `sh -c 'a;a;a;a;a;a;${i}'`).join(';'),
      'with the scripts it runs',
    ],
    ['past the node budget in one of them', `bash -c '${':;'.repeat(6_000)} cp x y'`, 'a script it runs cannot be analyzed'],
    ['that does not parse', `eval 'cp x "y'`, 'a script it runs cannot be analyzed'],
    ['nested too deeply', `bash -c 'x=$((${'1+'.repeat(3_000)}1)); cp x y'`, 'a script it runs cannot be analyzed'],
    ['nested more than 3 levels', nestedIn(4, 'cp x y'), 'nested more than 3 levels'],
  ])('reads a line with the scripts it runs: one whose scripts are %s does not parse', (_, command, error) => {
    expect(analyzeBashCommand(command)).toEqual({ kind: 'unparseable', error: expect.stringContaining(error) });
  });

  it('reads a line whose scripts are within the budget, three levels deep', () => {
    expect(parsed(nestedIn(3, 'cp x y')).commands.map((c) => c.words[0])).toEqual(['bash']);
    expect(parsed(Array.from({ length: 200 }, (_, i) => `sh -c 'a;a;a;a;${i}'`).join(';')).commands).toHaveLength(200);
    // Input not known before the line runs is not a script the analysis could read.
    expect(parsed('curl -s https://example.test/x | sh').commands).toHaveLength(2);
  });

  it('keeps the answer for a long line too, which the gate asks about once per rule', () => {
    const script = `bash -c '${'echo "a b" c;'.repeat(1_000)}'`;
    const first = parsed(script);
    expect(analyzeBashCommand(script)).toBe(first);
    expect(analyzeBashCommand(script.slice(9, -1))).toBe(analyzeBashCommand(script.slice(9, -1)));
  });

  it.each([
    ['git status && touch ../x', ['git status', 'touch ../x']],
    ['git status; touch ../x', ['git status', 'touch ../x']],
    ['git status\ntouch ../x', ['git status', 'touch ../x']],
    ['git status | touch ../x', ['git status', 'touch ../x']],
    ['git status |& touch ../x', ['git status', 'touch ../x']],
    ['git status || touch ../x &', ['git status', 'touch ../x']],
    ['(git status; touch ../x)', ['git status', 'touch ../x']],
    ['{ git status; touch ../x; }', ['git status', 'touch ../x']],
    ['if git status; then touch ../x; fi', ['git status', 'touch ../x']],
    ['for f in a b; do touch ../$f; done', ['touch ../<?>']],
    ['A=1 B=2 git push', ['git push']],
  ])('finds every simple command of %j', (command, expected) => {
    expect(commands(command)).toEqual(expected);
  });

  it('walks into substitutions, and says they hide code', () => {
    for (const command of ['git log $(touch ../x)', 'git log `touch ../x`', 'git log "$(touch ../x)"']) {
      const analysis = parsed(command);
      expect(analysis.commands.map((c) => c.words[0])).toEqual(['git', 'touch']);
      expect(analysis.hidden).toEqual(['command substitution ($(...) or backticks)']);
    }
    expect(parsed('diff <(touch ../x) a').hidden).toEqual(['process substitution (<(...) or >(...))']);
    expect(parsed('cat <<EOF\n$(touch ../x)\nEOF').commands.map((c) => c.words[0])).toEqual(['cat', 'touch']);
  });

  it.each([
    ['f() { touch ../x; }; git status', 'a function definition'],
    ['echo $((x))', 'arithmetic expansion'],
    ['(( x ))', 'an arithmetic command'],
    ['[[ x -eq 1 ]]', '[[ ... ]] (its arithmetic operators evaluate variables)'],
    ['echo ${!x}', 'a parameter expansion beyond $NAME or ${NAME}'],
    ['echo ${x@P}', 'a parameter expansion beyond $NAME or ${NAME}'],
    ['echo ${x[i]}', 'a parameter expansion beyond $NAME or ${NAME}'],
    ["printf -v 'a[$(touch ../x)]' %s 1", 'a variable subscript that bash may evaluate'],
    ['declare -i x; x=1', 'declare -i or -n'],
    ["git log $'a\\'; touch ../x; \\''", "$'...' with an escaped quote"],
  ])('%j hides code: %s', (command, reason) => {
    expect(parsed(command).hidden).toContain(reason);
  });

  it('tells the code bash may run from a value, which no command shows, from code the commands show', () => {
    expect(parsed("x='a[$(touch ../x)]'; : $((x))").unseen).toEqual(['arithmetic on a variable (bash evaluates its value)']);
    // A number after the name does not make the expression all numbers.
    expect(parsed("x='a[$(touch ../x)]'; : $((x+1)) $((1+x+2))").unseen).toEqual(['arithmetic on a variable (bash evaluates its value)']);
    expect(parsed("PS4='$(touch ../x)'; set -x").unseen).toEqual(['an assignment of PS4, whose value bash runs']);
    for (const command of ['echo $((1+2))', 'echo $(touch ../x)', 'f() { touch ../x; }', 'echo "${a[@]}" ${#a}', "PS4='+ '; set -x"]) {
      expect(parsed(command).unseen, command).toEqual([]);
    }
  });

  it('keeps plain $NAME visible as an unknown part of a word', () => {
    const analysis = parsed('git log "$BRANCH" ${REF}');
    expect(analysis.hidden).toEqual([]);
    expect(analysis.commands[0].words).toEqual(['git', 'log', HOLE, HOLE]);
  });

  it('removes quoting the way bash does', () => {
    expect(commands('g\'\'it "st"atus')).toEqual(['git status']);
    expect(commands("$'\\x67'it $'\\147'it")).toEqual(['git git']);
    // One word with a space in it: a program named "git status", not git.
    expect(parsed('git\\ status').commands[0].words).toEqual(['git status']);
  });

  it('marks command names that an expansion or a glob makes up', () => {
    expect(parsed('$CMD -rf x').commands[0].dynamicName).toBe(true);
    expect(parsed('g?t status').commands[0].dynamicName).toBe(true);
    expect(parsed('{touch,../x}').commands[0].dynamicName).toBe(true);
    expect(parsed('git status').commands[0].dynamicName).toBe(false);
    expect(parsed('mkdir -p src/{a,b}').commands[0].words).toEqual(['mkdir', '-p', HOLE]);
  });

  it('lists redirections, and which of them write', () => {
    const { redirects } = parsed('cmd > a >> b >| c &> d &>> e <> f >&g < h 2>&1 >&- 3<&0 > /dev/null > "$OUT"');
    expect(redirects).toEqual([
      { target: 'a', write: true },
      { target: 'b', write: true },
      { target: 'c', write: true },
      { target: 'd', write: true },
      { target: 'e', write: true },
      { target: 'f', write: true },
      { target: 'g', write: true },
      { target: 'h', write: false },
      { target: '/dev/null', write: true },
      { target: undefined, write: true },
    ]);
    expect(parsed('cat <<EOF\nx\nEOF').redirects).toEqual([]);
  });

  it('says why a line does not parse', () => {
    expect(analyzeBashCommand('echo "unterminated')).toEqual({
      kind: 'unparseable',
      error: expect.stringContaining('without closing quote'),
    });
    expect(analyzeBashCommand(`echo ${'a'.repeat(300_000)}`)).toEqual({
      kind: 'unparseable',
      error: expect.stringContaining('too long to analyze (300005 characters'),
    });
    // Short enough to parse, but the parts of one word or the commands are more than a walk reads.
    for (const command of [`echo ${"'a'\\'".repeat(12_000)}`, 'a;'.repeat(12_000), `echo ${'a '.repeat(20_000)}`]) {
      expect(analyzeBashCommand(command), command.slice(0, 20)).toEqual({
        kind: 'unparseable',
        error: expect.stringContaining('too complex to analyze (over 10000 syntax nodes)'),
      });
    }
    // One word, so under the word cap, but a tree deeper than the walk's stack.
    expect(analyzeBashCommand(`rm -rf x; : $((${'1+'.repeat(5_000)}1))`)).toEqual({
      kind: 'unparseable',
      error: expect.stringContaining('nested too deeply'),
    });
  });

  it.each([
    ['a comment ending in a backslash', 'echo hi #\\\nrm keep.txt', 'comment ending in a backslash'],
    ['a comment ending in a backslash inside a substitution', 'echo "$(: #\\\nrm keep.txt)"', 'comment ending in a backslash'],
    ['a backslash before CR LF', 'echo hi \\\r\nrm keep.txt', 'backslash before a carriage return'],
  ])('does not read on where bash ends the line: %s does not parse', (_, command, error) => {
    expect(analyzeBashCommand(command)).toEqual({ kind: 'unparseable', error: expect.stringContaining(error) });
  });

  it('still reads comments, a # inside a word and plain continuations as bash does', () => {
    expect(commands('echo hi # a note\\ls')).toEqual(['echo hi']);
    expect(commands('echo hi # a note\nls')).toEqual(['echo hi', 'ls']);
    expect(commands('echo a#\\\nb')).toEqual(['echo a#b']);
    expect(commands('echo a \\\nb')).toEqual(['echo a b']);
  });

  it('tells brace expansions from literal braces, and reads a long unclosed brace in well under a second', () => {
    expect(commands('echo {a,b} x{1..3} {x} "{a,b}" \\{a,b}')).toEqual(['echo <?> <?> {x} {a,b} {a,b}']);
    const start = Date.now();
    expect(commands(`echo {${'.'.repeat(40_000)}`)).toEqual([`echo {${'.'.repeat(40_000)}`]);
    expect(Date.now() - start).toBeLessThan(1_000);
  });

  it("decodes $'...' escapes", () => {
    expect(decodeAnsiC('\\x67\\151t\\n\\u00e9\\cA\\q')).toBe('git\n\u00e9\x01\\q');
  });
});
