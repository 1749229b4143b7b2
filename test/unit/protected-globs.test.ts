import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PermissionGate } from '../../src/core/agent/permissions/permission-gate';
import { permissionSettingsSchema } from '../../src/core/agent/permissions/permission-settings';
import { hasExpandingSyntax } from '../../src/core/agent/permissions/shell-patterns';
import { createBashTool } from '../../src/core/agent/tools/bash-tool';
import type { Tool } from '../../src/core/agent/tools/tool';

// Globs that spell a protected path as bash would expand them, in a workspace whose own name
// holds characters a glob library gives a meaning. Each asked case was allowed before.

let base: string;
let ws: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'protected-globs-')));
  ws = join(base, 'repo (copy) {1}');
  for (const dir of ['.git/hooks', '.vscode', 'hooks', 'src', 'pkg/dist']) mkdirSync(join(ws, dir), { recursive: true });
  writeFileSync(join(ws, '.git', 'config'), '[core]\n');
  writeFileSync(join(ws, '.vscode', 'hooks.json'), '{}');
  writeFileSync(join(ws, 'hooks', 'guard.py'), '');
  writeFileSync(join(ws, 'pkg', 'package.json'), '{}');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function run(command: string) {
  const gate = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'bypassPermissions' }));
  const protectedPaths = [join(ws, '.git') + sep, join(ws, '.vscode', 'hooks.json'), join(ws, 'hooks', 'guard.py')];
  return gate.evaluate(createBashTool() as unknown as Tool, { command }, undefined, {
    workspaceRoot: ws,
    cwd: ws,
    home: join(ws, 'home'),
    protectedPaths,
  });
}

describe('a glob that spells a protected path asks, in every mode', () => {
  it.each([
    'cp x .g?t/config',
    'cp x .g?t/hooks/',
    'cp x .vscod?/hook?.json',
    'for d in .g?t/hooks; do cp x "$d/pre-commit"; done',
    'cp x .g[!x]t/hooks/pre-commit',
    'cp x hooks/guard.p[!x]',
    'cp ../payload .g{i..i}t/hooks/pre-commit',
    'cp x {.git,y}/config',
    'shopt -s extglob\ncp x .+(g|i|t)/config',
    'shopt -s extglob; cp x .@(g)it/config',
    'shopt -s nocaseglob; cp x .G?T/hooks/',
    'shopt -s dotglob; cp x */config',
    'ln -s . p && cp x p/.g?t/config',
  ])('%j', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'ask', system: true });
  });
});

describe('a glob spelled with what bash reads and a pattern library does not asks', () => {
  it.each([
    'cp x .vsc*/hook[[:alpha:]].json',
    'cp x .vsc*/hoo[[=k=]]s.json',
    'cp x .vsc*/hook[[.s.]].json',
    'cp x .vscode/hook[![:digit:]].json',
    'cp x ~+/.v*/h*.json',
    'cp x ~-/.v*/h*.json',
    'cd ~- && cp x g*.py',
    'shopt -s extglob; cp x +(.)vscode/hook?.json',
  ])('%j', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'ask', system: true });
  });
});

describe('glob options the line may set where the check cannot read their names count as set', () => {
  it.each([
    'shopt -s dot""glob; cp x */hook?.json',
    'shopt -s nocase""glob; cp x .VS?ODE/HOOK?.JSON',
    "printf -v GLOB$'\\x49'GNORE x; cp x */hook?.json",
    'GLOB\\\nIGNORE=x; cp x */hook?.json',
    'shopt -s $o; cp x */hook?.json',
    'shopt -s dot?lob; cp x */hook?.json',
    'declare "$n=x"; cp x */hook?.json',
    'eval "$s"; cp x */hook?.json',
    "eval 'shopt -s $o'; cp x */hook?.json",
    '. ./setup.sh; cp x */hook?.json',
    '$c -s $o; cp x */hook?.json',
    'BASHOPTS=$o bash -c "cp x */hook?.json"',
  ])('%j', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'ask', system: true });
  });
});

describe('a pattern too costly to match exactly is checked in bounded time', () => {
  it.each([
    ['36 extglobs', `ls .v[s]code/${'?(h|o|k|s|.|j|n)'.repeat(36)}Z`],
    ['36 brace expansions', `ls .v[s]code/${'{h,o,k,s,.,j,n,}'.repeat(36)}Z`],
    ['quoted openers with no closing ones', `ls '${'?('.repeat(20_000)}${'['.repeat(20_000)}'`],
  ])(
    '%s',
    (_, command) => {
      // Bounded: before, these took the gate seconds to minutes (the timeout fails a hang).
      expect(run(command)).toBeDefined();
    },
    5_000,
  );

  it('finding brace expansions takes one pass over a brace followed by dots and no closing one', () => {
    expect(hasExpandingSyntax(`{${'.'.repeat(100_000)}`)).toBe(false);
    expect(['{a,b}', 'x{1..3}', '+(a|b)', '{a}{b,c}'].map(hasExpandingSyntax)).toEqual([true, true, true, true]);
    expect(['{a}', '{.}', 'a,b}', '{a,', '(a)'].map(hasExpandingSyntax)).toEqual([false, false, false, false, false]);
  }, 5_000);

  it('a word too complex to match asks when what follows its literal start may climb out of it (a dot, an expansion)', () => {
    mkdirSync(join(ws, 'd', 'aaaaaaaaa'), { recursive: true });
    expect(run(`tee -a d/${'{a,b}'.repeat(9)}/../../.g?t/config`)).toMatchObject({ verdict: 'ask', system: true });
    expect(run(`tee -a d/${'[a]'.repeat(70)}/../../.g?t/config`)).toMatchObject({ verdict: 'ask', system: true });
  });

  it('a brace-heavy word that may reach a protected file asks; a word too long to match asks instead of throwing', () => {
    expect(run(`cp x .vscode/${'{h,o,k,s,.,j,n,}'.repeat(30)}`)).toMatchObject({ verdict: 'ask', system: true });
    expect(run(`cp x ${'a'.repeat(70_000)}*`)).toMatchObject({ verdict: 'ask', system: true });
  });
});

describe('values the line assigns fill its expansions, in every mode', () => {
  it.each([
    ['inside a name', 'X=.vs; Y=code/hoo; cp x "$X$Y"ks.json'],
    ['after a dot', 'X=vscode/hoo; Y=ks.json; cp x ".$X$Y"'],
    ['a word of expansions alone', 'a=.g; b=it/config; cp x "$a$b"'],
    ['a value that climbs out of the folder the word starts in', 'a=../.g; cp x "src/${a}it/config"'],
    ['a for list', 'for a in .g; do cp x "${a}it/config"; done'],
    ['a value after grouped short options', 'X=it; cp -at".g$X" config'],
    ['a value after grouped short options, plainly', 'sort -uo.git/description description'],
    ['values set by printf -v, joined', 'printf -v a .g; printf -v b it/config; cp x "$a$b"'],
    ['default words, joined', 'cp x "${a:-.g}${b:-it/config}"'],
    ['a value computed from an assigned one', 'p=.gXt/config; cp x "${p/X/i}"'],
    ['positional parameters, joined', 'set -- .g it/config; cp x "$1$2"'],
    ['command substitutions, joined', 'a=$(echo .g); b=$(echo it/config); cp x "$a$b"'],
  ])('%s: %j asks', (_, command) => {
    expect(run(command), command).toMatchObject({ verdict: 'ask', system: true });
  });

  it('asks when they may fill its expansions in more ways than it checks, in bounded time', () => {
    const values = Array.from({ length: 20 }, (_, i) => `v${i}=x${i}`).join('; ');
    expect(run(`${values}; cp x "$a/$b"`)).toMatchObject({ verdict: 'ask', system: true, reason: expect.stringContaining('more ways') });
    // Few spellings, but long globs: each costs more than its length to match.
    const stars = `a='${'*/'.repeat(500)}'; cp x "$a/$a/$a/$a/$a/$a/$a/$a"`;
    expect(run(stars)).toMatchObject({ verdict: 'ask', system: true, reason: expect.stringContaining('more ways') });
  }, 5_000);

  it.each([
    'cp x "${name}.json"',
    'cp x "${name}_backup.txt"',
    'echo "$MAJOR.$MINOR"',
    'echo "${NODE_ENV:-dev}"',
    'cp x "$dir/$name"',
    'for f in src/*.ts; do cp "$f" "$f.bak"; done',
    'out=build; mkdir -p "$out" && cp x "$out/y.json"',
    'cp x "$d"',
    'cp x ./$d/*',
  ])('leaves %j alone', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'allow' });
  });
});

describe("a .. the word's own reading cannot place asks", () => {
  it('after a link the model made (l -> a/b), in a glob word or after cd', () => {
    mkdirSync(join(ws, 'a', 'b'), { recursive: true });
    symlinkSync('a/b', join(ws, 'l'));
    expect(run('tee -a l/../../.g?t/config')).toMatchObject({ verdict: 'ask', system: true });
    expect(run('cd l && tee -a ../../.g?t/config')).toMatchObject({ verdict: 'ask', system: true });
  });

  it('after a pattern, which may match a link', () => {
    expect(run('cat src/*/../x')).toMatchObject({ verdict: 'ask', system: true });
  });

  it('but a .. before any link or pattern is read as written', () => {
    expect(run('cat src/../src/*.txt')).toMatchObject({ verdict: 'allow' });
    expect(run('cd src && cat ../src/*.txt')).toMatchObject({ verdict: 'allow' });
  });
});

describe('globs that cannot reach one are left alone', () => {
  it.each([
    'cat */package.json',
    'rm -rf */dist',
    'wc -l src/*.txt',
    'ls */x',
    'cp x "$d/y"',
    'mkdir -p src/{a,b}',
    'ln -s src s',
    'cat ~+/src/*.ts',
    'grep -E "colou?(r)" src/*.txt',
    'export PATH="$PATH:/x"; cat */package.json',
    'printf "%s" "$x"; cat */package.json',
    `ls src/${'{a,b}'.repeat(12)}`,
  ])('%j', (command) => {
    expect(run(command), command).toMatchObject({ verdict: 'allow' });
  });
});
