import { describe, expect, it } from 'vitest';
import { analyzeBashCommand } from '../../src/core/permissions/bash-command';
import { bashAllowedBy } from '../../src/core/permissions/bash-rules';
import { matchPermissionRule, parsePermissionRule } from '../../src/core/permissions/permission-rule';
import { wildcardCouldMatch, wildcardMatch, HOLE } from '../../src/core/permissions/wildcard';

const match = (rule: string, tool: string, input: Record<string, unknown>, cwd = '/w') => {
  const parsed = parsePermissionRule(rule);
  if (!parsed) throw new Error(`bad rule ${rule}`);
  return matchPermissionRule(parsed, tool, input, { cwd, projectRoot: cwd, home: '/home/u' });
};

describe('permission rules Tool(pattern)', () => {
  it('parses bare tools and patterns', () => {
    expect(parsePermissionRule('Bash')).toEqual({ tool: 'Bash', pattern: undefined, text: 'Bash' });
    expect(parsePermissionRule('Bash(git status*)')?.pattern).toBe('git status*');
    expect(parsePermissionRule('not a rule!')).toBeUndefined();
  });

  // Deny, ask and a hook's `if`: a rule matches when ANY subcommand does.
  it('Bash(git *) matches a line when any subcommand matches', () => {
    expect(match('Bash(git *)', 'Bash', { command: 'FOO=1 git push' })).toBe('match');
    expect(match('Bash(git *)', 'Bash', { command: 'npm test && git push' })).toBe('match');
    expect(match('Bash(git *)', 'Bash', { command: 'npm test' })).toBe('no-match');
    expect(match('Bash(git status*)', 'Bash', { command: 'git status -s' })).toBe('match');
    expect(match('Bash(rm *)', 'Bash', { command: 'ls | rm -rf x' })).toBe('match');
  });

  it.each([
    'echo $(rm -rf x)',
    'echo `rm -rf x`',
    'cat <(rm -rf x)',
    'timeout 5 rm -rf x',
    'nice -n 5 nohup rm -rf x',
    'env -i FOO=1 rm -rf x',
    'command rm -rf x',
    'find . | xargs -n 1 rm -rf',
    'ls | xargs rm',
    'sudo -u root rm -rf x',
    'sudo -E -H rm -rf x',
    'env -C /tmp rm -rf x',
    'nohup -- rm -rf x',
    "bash -c 'rm -rf x'",
    "sh -ec 'cd /tmp && rm -rf x'",
    "eval 'rm -rf x'",
    "trap 'rm -rf x' EXIT",
    "r''m -rf x",
    "$'\\x72'm -rf x",
    'f() { rm -rf x; }',
    'echo "unterminated; rm -rf x',
  ])('a deny rule Bash(rm *) catches %j', (command) => {
    expect(match('Bash(rm *)', 'Bash', { command })).toBe('match');
  });

  it('says a rule might match when an expansion could become the command', () => {
    expect(match('Bash(rm *)', 'Bash', { command: '$CMD -rf x' })).toBe('unparseable');
    expect(match('Bash(rm *)', 'Bash', { command: 'bash -c "$SCRIPT"' })).toBe('unparseable');
    expect(match('Bash(rm *)', 'Bash', { command: 'r? -rf x' })).toBe('unparseable');
    expect(match('Bash(rm *)', 'Bash', { command: 'echo $HOME' })).toBe('no-match');
    expect(match('Bash(git push origin main)', 'Bash', { command: 'git push $REMOTE main' })).toBe('unparseable');
    expect(match('Bash(rm *)', 'Bash', { command: 'echo "unterminated' })).toBe('unparseable');
  });

  it('other tools do not match a Bash rule', () => {
    expect(match('Bash(git *)', 'Write', { file_path: 'git x' })).toBe('no-match');
  });

  it('file tools match a path glob relative to the cwd', () => {
    expect(match('Edit(src/**)', 'Edit', { file_path: '/w/src/a/b.ts' })).toBe('match');
    expect(match('Edit(src/**)', 'Edit', { file_path: '/w/lib/b.ts' })).toBe('no-match');
    expect(match('Read(**/.env*)', 'Read', { file_path: '/w/config/.env.local' })).toBe('match');
    expect(match('Write(*.md)', 'Write', { file_path: 'README.md' })).toBe('match');
  });

  it('a Read rule covers a search whose pattern is absolute as the path it names', () => {
    expect(match('Read(secrets/**)', 'Glob', { pattern: 'secrets/*' })).toBe('match');
    expect(match('Read(secrets/**)', 'Glob', { pattern: '/w/secrets/*' })).toBe('match');
    expect(match('Read(secrets/**)', 'Glob', { pattern: '/w/secrets/*', path: '/w/src' })).toBe('match');
    expect(match('Read(secrets/**)', 'Grep', { pattern: 'x', glob: '/w/secrets/*.txt' })).toBe('match');
    // Outside the cwd the relative rule does not apply (the tool keeps to the workspace itself).
    expect(match('Read(secrets/**)', 'Glob', { pattern: '/elsewhere/secrets/*' })).toBe('no-match');
  });
});

const allowed = (patterns: Array<string | undefined>, command: string) => bashAllowedBy(patterns, analyzeBashCommand(command));

describe('Bash allow rules grant a line only when every subcommand matches', () => {
  it.each([
    'git status && touch ../x',
    'git status; touch ../x',
    'git status\ntouch ../x',
    'git status | touch ../x',
    'git status |& touch ../x',
    'git status || touch ../x',
    'git status & touch ../x',
    '(git status; touch ../x)',
    'git log $(touch ../x)',
    'git log `touch ../x`',
    'git log "$(git status)"',
    'git diff <(git show)',
    'git log >(touch ../x)',
    'git() { touch ../x; }; git status',
    'git log -n $((x))',
    "x='a[$(touch ../x)]'; [[ x -eq 1 ]] && git status",
    'git log -n ${x[$(touch ../x)]}',
    '$GIT status',
    'g?t status',
    '{git,status}',
    'PATH=. git status',
    'GIT_EXTERNAL_DIFF=../x git diff',
    'env PATH=. git status',
    "eval 'git status'",
    "bash -c 'git status'",
    'xargs git status',
    'sudo git status',
    'env -S "git status" x',
    'echo "unterminated',
  ])('Bash(git *) does not grant %j', (command) => {
    expect(allowed(['git *'], command)).toEqual({ allowed: false, reason: expect.any(String) });
  });

  it.each([
    'git status && git log',
    'git status | git log --stdin; git diff',
    'FOO=1 git push',
    'timeout 10 git fetch',
    'env CI=1 nice -n 5 git log',
    'git log "$BRANCH" ${REF}',
    'git add src/{a,b}.ts *.md',
    "g''it status",
    'if git diff --quiet; then git status; fi',
  ])('Bash(git *) grants %j', (command) => {
    expect(allowed(['git *'], command)).toEqual({ allowed: true, writes: [], anyCommand: false });
  });

  it('combines the allow rules: each subcommand may match a different one', () => {
    expect(allowed(['git *', 'npm test'], 'npm test && git push').allowed).toBe(true);
    expect(allowed(['git *'], 'npm test && git push').allowed).toBe(false);
  });

  it('grants a wrapper or a code runner only to a rule that names it', () => {
    expect(allowed(['xargs *'], 'xargs git status').allowed).toBe(true);
    expect(allowed(['timeout *'], 'timeout 5 rm -rf x').allowed).toBe(true);
    expect(allowed(['* --version'], "eval 'touch ../x' --version").allowed).toBe(false);
    expect(allowed(['* --version'], 'node --version').allowed).toBe(true);
  });

  it('returns the redirections that write, for the caller to judge as edits', () => {
    expect(allowed(['git *'], 'git log > log.txt 2>&1 < in.txt')).toEqual({
      allowed: true,
      writes: [{ target: 'log.txt', write: true }],
      anyCommand: false,
    });
    expect(allowed([undefined], 'git log $(x) > "$OUT"')).toEqual({
      allowed: true,
      writes: [{ target: undefined, write: true }],
      anyCommand: true,
    });
  });
});

describe('wildcard patterns', () => {
  it('match in steps bounded by pattern × text, however many stars', () => {
    const text = 'a'.repeat(50_000);
    expect(wildcardMatch('*a*a*a*a*a*a*a*a*b', text)).toBe(false);
    expect(wildcardMatch('*a*a*a*a*a*a*a*a*a', text)).toBe(true);
    expect(wildcardCouldMatch('*a*a*a*a*a*a*a*a*b', text)).toBe(false);
  });

  it('let only a star absorb a part the shell expands', () => {
    expect(wildcardMatch('git *', `git ${HOLE}`)).toBe(true);
    expect(wildcardMatch('git log*', `git ${HOLE}`)).toBe(false);
    expect(wildcardCouldMatch('git log*', `git ${HOLE}`)).toBe(true);
    expect(wildcardCouldMatch('rm *', `echo ${HOLE}`)).toBe(false);
  });

  it('read the legacy prefix form npm run test:*', () => {
    expect(wildcardMatch('npm run test:*', 'npm run test:unit')).toBe(true);
    expect(wildcardMatch('npm run test:*', 'npm run build')).toBe(false);
  });

  it('read the legacy prefix form X:* in an allow rule as X, X … or X:…, and in a guard as any text that starts with X', () => {
    for (const text of ['cat', 'cat a.txt', 'cat:x']) expect(wildcardMatch('cat:*', text, 'allow')).toBe(true);
    expect(wildcardMatch('cat:*', 'catchsegv id', 'allow')).toBe(false);
    expect(wildcardMatch('npx tsc:*', 'npx tsc-watch', 'allow')).toBe(false);
    expect(wildcardMatch('cat:*', 'catchsegv id')).toBe(true);
  });
});
