import { describe, expect, it } from 'vitest';
import { matchPermissionRule, parsePermissionRule, splitBashCommand } from '../../src/core/permissions/permission-rule';

const match = (rule: string, tool: string, input: Record<string, unknown>, cwd = '/w') => {
  const parsed = parsePermissionRule(rule);
  if (!parsed) throw new Error(`bad rule ${rule}`);
  return matchPermissionRule(parsed, tool, input, cwd);
};

describe('permission rules Tool(pattern)', () => {
  it('parses bare tools and patterns', () => {
    expect(parsePermissionRule('Bash')).toEqual({ tool: 'Bash', pattern: undefined, text: 'Bash' });
    expect(parsePermissionRule('Bash(git status*)')?.pattern).toBe('git status*');
    expect(parsePermissionRule('not a rule!')).toBeUndefined();
  });

  it('Bash(git *) matches every subcommand form (conformance §3.20 item 6)', () => {
    expect(match('Bash(git *)', 'Bash', { command: 'FOO=1 git push' })).toBe('match');
    expect(match('Bash(git *)', 'Bash', { command: 'npm test && git push' })).toBe('match');
    expect(match('Bash(git *)', 'Bash', { command: 'npm test' })).toBe('no-match');
    expect(match('Bash(git status*)', 'Bash', { command: 'git status -s' })).toBe('match');
    expect(match('Bash(rm *)', 'Bash', { command: 'ls | rm -rf x' })).toBe('match');
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

  it('splits commands on operators and strips assignments', () => {
    expect(splitBashCommand('A=1 B=2 git push; echo ok | cat')).toEqual(['git push', 'echo ok', 'cat']);
  });
});
