import { describe, expect, it } from 'vitest';
import { analyzeBashCommand } from '../../src/core/permissions/bash-command';
import { bashAllowedBy } from '../../src/core/permissions/bash-rules';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';
import { literalPattern, wildcardMatch } from '../../src/core/permissions/wildcard';

// Spellings an attacker review found around deny rules, hook `if` filters and narrow allow rules.

const match = (rule: string, command: string) =>
  matchPermissionRule(parsePermissionRule(rule)!, 'Bash', { command }, { cwd: '/w', projectRoot: '/w', home: '/home/u' });
const allowed = (patterns: string[], command: string) => bashAllowedBy(patterns, analyzeBashCommand(command)).allowed;

describe('deny rules see the command however it is started', () => {
  it.each([
    '/bin/rm keep',
    './rm keep',
    '/usr/bin/env rm keep',
    'eval -- rm keep',
    "trap -- 'rm keep' EXIT",
    "/bin/sh -c 'rm keep'",
    "sh <<< 'rm keep'",
    "bash <<'EOF'\nrm keep\nEOF",
    'bash -s <<EOF\nrm keep\nEOF',
    "source /dev/stdin <<< 'rm keep'",
    'find . -name keep -exec rm {} +',
    'find . -name keep -execdir /bin/rm {} \\;',
    'find . -ok echo {} \\; -exec rm {} \\;',
    "env -S'rm keep'",
    "env --split-string='rm keep'",
    "su -c'rm keep'",
    "su --command='rm keep'",
    "fish -c 'rm keep'",
    "script -qc 'rm keep' /dev/null",
    'stdbuf -o0 rm keep',
    'setsid rm keep',
    'flock /tmp/lock rm keep',
    'ionice -c 3 rm keep',
    'busybox rm keep',
    'watch -n 5 rm keep',
    'echo hi #\\\nrm keep',
    'echo hi \\\r\nrm keep',
  ])('Bash(rm *) denies %j', (command) => {
    expect(match('Bash(rm *)', command)).toBe('match');
  });

  it('says "might match", never "no match", for a shell reading unknown input or nesting past the limit', () => {
    expect(match('Bash(rm *)', "echo 'rm keep' | sh")).toBe('unparseable');
    expect(match('Bash(rm *)', 'sh')).toBe('unparseable');
    const nested = (depth: number): string => (depth === 0 ? 'rm keep' : `sh -c ${JSON.stringify(nested(depth - 1))}`);
    expect(match('Bash(rm *)', nested(3))).toBe('match');
    expect(match('Bash(rm *)', nested(6))).toBe('unparseable');
    expect(match('Bash(rm *)', 'sh script.sh')).toBe('no-match');
  });
});

describe('deny rules look behind any number of wrappers and launcher arguments', () => {
  const repeated = (words: string, times: number) => Array(times).fill(words).join(' ');

  it.each(['nice', 'command', 'env', 'timeout 5'])('Bash(rm *) might match rm behind 40 x %s: it asks', (wrapper) => {
    expect(match('Bash(rm *)', `${repeated(wrapper, 40)} rm -f keep`)).toBe('unparseable');
  });

  it('Bash(rm *) might match rm run by find -exec behind 40 wrappers', () => {
    expect(match('Bash(rm *)', `find . -exec ${repeated('nice', 40)} rm {} \\;`)).toBe('unparseable');
  });

  it('Bash(rm *) matches rm behind a launcher, however many option values come first', () => {
    for (const values of [31, 32, 200]) expect(match('Bash(rm *)', `flock ${repeated('-w 5', values)} .lk rm -f keep`)).toBe('match');
  });

  it('might match when more later words could start the command than are tried', () => {
    expect(match('Bash(rm -rf *)', `flock ${repeated('-w rm', 40)} .lk rm -rf keep`)).toBe('unparseable');
  });

  it('still matches, or not, an ordinary line behind a few wrappers, long or short', () => {
    expect(match('Bash(rm *)', 'nice -n 5 timeout 10 env A=1 rm x')).toBe('match');
    expect(match('Bash(rm *)', `timeout 10 eslint ${repeated('a.ts', 40)}`)).toBe('no-match');
    expect(match('Bash(rm *)', `sudo apt install ${repeated('pkg', 40)}`)).toBe('no-match');
    expect(match('Bash(*secret*)', `sudo apt install ${repeated('pkg', 40)}`)).toBe('no-match');
  });
});

describe('deny rules might match what bash runs from a value or a rebound name', () => {
  it.each([
    'shopt -s expand_aliases\nalias r=rm\nr keep',
    'hash -p /bin/rm ls; ls keep',
    'BASH_CMDS[ls]=/bin/rm; ls keep',
    'BASH_CMDS=/bin/rm; 0 keep',
    "bash -c 'hash -p /bin/rm ls; ls keep'",
    'bash <(echo rm keep)',
    'source <(echo rm keep)',
    '. <(printf "rm keep")',
    'bash "$SCRIPT"',
    'BASH_ENV=<(echo rm keep) bash -c :',
    'export BASH_ENV=<(echo rm keep); bash -c :',
    'env BASH_ENV=<(echo rm keep) bash -c :',
    "env 'BASH_FUNC_ls%%=() { rm \"$@\"; }' bash -c 'ls keep'",
    "PS4='$(rm keep)'; set -x; true",
    "declare 'PS4=$(rm keep)'; set -x; true",
    "x='a[$(rm keep)]'; : $((x))",
    "x='a[$(rm keep)]'; (( x ))",
    "x='a[$(rm keep)]'; let x",
    "x='a[$(rm keep)]'; [[ x -eq 1 ]]",
    "x='a[$(rm keep)]'; [[ -v a[x] ]]",
    "x='a[$(rm keep)]'; a[x]=1",
    "x='a[$(rm keep)]'; echo ${a[x]}",
    "x='a[$(rm keep)]'; echo ${!x}",
    "x='$(rm keep)'; : ${x@P}",
  ])('Bash(rm *) might match %j', (command) => {
    expect(match('Bash(rm *)', command)).toBe('unparseable');
  });

  it.each([
    'ls',
    'git status',
    'echo $((1+2)) $[0x1f + 2#101]',
    'set -x; make',
    "PS4='+ $LINENO: '; set -x; make",
    '[[ $# -eq 0 && -f x ]] && echo none',
    'echo "${args[@]}" ${#args[@]} ${!args[@]} ${x:-default}',
    'bash scripts/build.sh',
    'source venv/bin/activate',
    'env FOO=1 make',
    'alias',
  ])('Bash(rm *) does not match %j', (command) => {
    expect(match('Bash(rm *)', command)).toBe('no-match');
  });

  it('allow rules do not grant a command name rebound to another program', () => {
    expect(allowed(['hash *', 'ls *'], 'hash -p /bin/rm ls; ls keep')).toBe(false);
    expect(allowed(['alias *', 'shopt *', 'r *'], 'shopt -s expand_aliases\nalias r=rm\nr keep')).toBe(false);
    expect(allowed(['hash *', 'ls *'], 'hash -r; ls keep')).toBe(true);
  });
});

describe('narrow allow rules do not grant hidden code', () => {
  it.each([
    ['printf *', "x='a[$(touch ../p)]'; printf -v 'b[x]' hi"],
    ['test *', "x='a[$(touch ../p)]'; test -v 'b[x]'"],
    ['read *', "x='a[$(touch ../p)]'; read 'b[x]' <<< hi"],
    ['unset *', "unset 'b[x]'"],
    ['declare *', "declare 'b[x]'"],
    ['mapfile *', "mapfile 'b[x]' < /dev/null"],
    ['getopts *', "getopts ab 'b[x]'"],
    ['wait *', "wait -p 'b[x]'"],
    ['git *', 'PATH=$PWD/bin:$PATH; git status'],
    ['git *', 'IFS=/; git status'],
    ['git *', 'GIT_DIR=/tmp/x; git status'],
    ['git *', 'BASH_ENV=./x; git status'],
    ['git *,export *', 'export PATH=./bin; git status'],
    ['git *,declare *', 'declare LD_PRELOAD=./x.so; git status'],
    ['git *', 'for PATH in ./bin; do git status; done'],
    ['read *', 'read PATH <<< ./bin'],
    ['bash', 'bash <<< "rm -f victim.txt"'],
    ['bash *', "bash -s <<< 'rm -f victim.txt'"],
    ['echo *,sh', "echo 'rm -f victim.txt' | sh"],
    ['timeout *,bash', "timeout 5 bash <<< 'rm -f victim.txt'"],
    ['source *', "source /dev/stdin <<< 'rm -f victim.txt'"],
    ['bash *', "bash -o pipefail <<< 'rm -f victim.txt'"],
    ['bash *', "bash -es x <<< 'rm -f victim.txt'"],
    ['bash *', "bash /dev/fd/3 3<<< 'rm -f victim.txt'"],
    ['bash *', "bash -O extglob <<< 'rm -f victim.txt'"],
    ['bash *', "bash --rcfile x <<< 'rm -f victim.txt'"],
    ['bash *', "bash //dev/stdin <<< 'rm -f victim.txt'"],
    ['bash *', "bash /dev/./stdin <<< 'rm -f victim.txt'"],
    ['bash *', "bash /proc/$$/fd/0 <<< 'rm -f victim.txt'"],
    ['sh *', "sh -o errexit <<< 'rm -f victim.txt'"],
    ['busybox *', "busybox sh <<< 'rm -f victim.txt'"],
  ])('Bash(%s) does not grant %j', (patterns, command) => {
    expect(allowed(patterns.split(','), command)).toBe(false);
  });

  it.each([
    ['echo *', 'echo hi #\\\nrm keep'],
    ['echo *', 'echo hi \\\r\nrm keep'],
  ])('Bash(%s) does not grant %j: bash runs the next line as a command of its own', (patterns, command) => {
    expect(allowed(patterns.split(','), command)).toBe(false);
  });

  it.each([
    ['npm test', "npm_config_node_options='--import=./x.mjs' npm test"],
    ['npm test', 'NPM_CONFIG_SCRIPT_SHELL=./x npm test'],
    ['npm *', 'env Npm_Config_Node_Options=--require=./x npm test'],
    ['yarn test', 'YARN_YARN_PATH=./x.cjs yarn test'],
    ['cargo *', 'RUSTC_WRAPPER=./x cargo build'],
    ['cargo *', "RUSTFLAGS='-C linker=./x' cargo build"],
    ['go *', 'GOFLAGS=-toolexec=./x go test'],
    ['make', 'MAKEFLAGS=-f./x.mk make'],
    ['make', 'MAKEFILES=./x.mk make'],
    ['make', 'CC=./x make'],
    ['make', 'CXX=./x make'],
    ['pytest *', "PYTEST_ADDOPTS='-p x' pytest tests"],
    ['gradle *', "GRADLE_OPTS='-javaagent:./x.jar' gradle build"],
    ['mvn *', "MAVEN_OPTS='-javaagent:./x.jar' mvn test"],
    ['java *', "JAVA_OPTS='-javaagent:./x.jar' java -jar app.jar"],
    ['rsync *', 'RSYNC_RSH=./x rsync a host:b'],
    ['less *', "LESSOPEN='|./x %s' less README.md"],
    ['less *', "LESSCLOSE='./x %s %s' less README.md"],
    ['ssh *', 'SSH_ASKPASS=./x SSH_ASKPASS_REQUIRE=force ssh host true'],
  ])('Bash(%s) does not grant %j: the variable decides what runs', (patterns, command) => {
    expect(allowed(patterns.split(','), command)).toBe(false);
  });

  it('still grants plain assignments and plain uses of those builtins', () => {
    expect(allowed(['npm test'], 'CI=1 npm test')).toBe(true);
    expect(allowed(['git *'], 'msg=hello; git status')).toBe(true);
    expect(allowed(['git *', 'export *'], 'export CI=1; git status')).toBe(true);
    expect(allowed(['printf *'], "printf '%s[x]\\n' a")).toBe(true);
    expect(allowed(['read *'], 'read -r line <<< hi')).toBe(true);
    expect(allowed(['bash *'], 'bash scripts/build.sh')).toBe(true);
    expect(allowed(['cat *'], 'cat <<< hi')).toBe(true);
  });

  it.each([
    "git -c alias.x='!touch ../p' x",
    "git -calias.x='!touch ../p' x",
    'git --config-env=core.pager=X log',
    'git --exec-path=. status',
    "git fetch --upload-pack='touch ../p' origin",
    "git push --receive-pack='touch ../p' origin",
    "git clone -u 'touch ../p' ../r x",
    'git config core.hooksPath .h',
    "git rebase -x 'touch ../p' HEAD~1",
    "git difftool -x 'touch ../p'",
    "git bisect run 'touch ../p'",
    "git submodule foreach 'touch ../p'",
    'git grep --open-files-in-pager=touch x',
    'git archive --remote=ext::sh HEAD',
  ])('Bash(git *) does not grant %j: the rule must name the option', (command) => {
    expect(allowed(['git *'], command)).toBe(false);
  });

  it('grants those options to a rule that names them', () => {
    expect(allowed(['git -c *'], 'git -c color.ui=never status')).toBe(true);
    expect(allowed(['git config *'], 'git config --get user.name')).toBe(true);
    expect(allowed(['find * -exec *'], 'find . -exec cat {} +')).toBe(true);
    expect(allowed(['find *'], 'find . -exec rm {} +')).toBe(false);
    expect(allowed(['find *'], 'find . -name x -delete')).toBe(false);
    expect(allowed(['tar *'], 'tar --to-command=sh -xf a.tar')).toBe(false);
    expect(allowed(['git *'], 'git log -n 3 --oneline')).toBe(true);
  });
});

describe('a literal star in a rule', () => {
  it('\\* is a literal star and \\\\ a literal backslash', () => {
    expect(wildcardMatch('rm -rf build/\\*', 'rm -rf build/*')).toBe(true);
    expect(wildcardMatch('rm -rf build/\\*', 'rm -rf build/ ~')).toBe(false);
    expect(wildcardMatch('rm \\*', 'rm')).toBe(false);
    expect(wildcardMatch(literalPattern('echo a\\*b*'), 'echo a\\*b*')).toBe(true);
    expect(wildcardMatch(literalPattern('echo a\\*b*'), 'echo a\\xb*')).toBe(false);
    expect(wildcardMatch('git *', 'git status')).toBe(true);
  });
});
