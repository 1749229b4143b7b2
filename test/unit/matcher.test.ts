import { describe, expect, it } from 'vitest';
import { compileMatcher, matchesContent, matchesValue } from '../../src/core/hooks/matcher';

describe('group matcher (Claude Code rules)', () => {
  it('absent, empty and * match everything', () => {
    for (const m of [undefined, '', '*']) {
      expect(matchesValue(m, 'Bash')).toBe(true);
      expect(matchesValue(m, 'mcp__x__y')).toBe(true);
    }
  });

  it('exact names and | or , lists are exact, case-sensitive sets', () => {
    expect(matchesValue('Bash', 'Bash')).toBe(true);
    expect(matchesValue('Bash', 'bash')).toBe(false);
    expect(matchesValue('Bash', 'BashOutput')).toBe(false);
    expect(matchesValue('Edit|Write', 'Write')).toBe(true);
    expect(matchesValue('Edit, Write', 'Edit')).toBe(true);
    expect(matchesValue('Edit|Write', 'NotebookEdit')).toBe(false);
  });

  it('a hyphenated name is exact: code-reviewer does not match senior-code-reviewer', () => {
    expect(matchesValue('code-reviewer', 'code-reviewer')).toBe(true);
    expect(matchesValue('code-reviewer', 'senior-code-reviewer')).toBe(false);
  });

  it('where Claude Code reads fewer matchers as names (FileChanged, StopFailure), `-`, `,` and spaces make a pattern', () => {
    expect(matchesValue('a,b', 'a', true)).toBe(false);
    expect(matchesValue('a,b', 'x a,b', true)).toBe(true);
    expect(matchesValue('my-file', 'old-my-file', true)).toBe(true);
    expect(matchesValue('rate_limit|server_error', 'server_error', true)).toBe(true);
    expect(matchesValue('rate_limit|server_error', 'server_error_2', true)).toBe(false);
    // The other events' reading is kept apart, whichever was compiled first.
    expect(matchesValue('a,b', 'a')).toBe(true);
  });

  it('anything else is an unanchored regex (RE2 syntax)', () => {
    expect(matchesValue('Edit.*', 'NotebookEdit')).toBe(true);
    expect(matchesValue('^Edit$', 'Edit')).toBe(true);
    expect(matchesValue('^Edit$', 'NotebookEdit')).toBe(false);
    expect(matchesValue('mcp__memory__.*', 'mcp__memory__create')).toBe(true);
  });

  it('a server prefix without .* is exact and matches no tool', () => {
    expect(matchesValue('mcp__memory', 'mcp__memory__create')).toBe(false);
  });

  it('prefix* is a prefix match', () => {
    expect(compileMatcher('file_*').kind).toBe('prefix');
    expect(matchesValue('file_*', 'file_write')).toBe(true);
    expect(matchesValue('file_*', 'search_papers')).toBe(false);
  });

  it('an invalid regex matches nothing instead of throwing', () => {
    expect(compileMatcher('([').kind).toBe('invalid');
    expect(matchesValue('([', 'Bash')).toBe(false);
  });

  it('matches in linear time: (a+)+$ against a long crafted value answers instead of hanging', () => {
    expect(matchesValue('(a+)+$', `${'a'.repeat(50_000)}b`)).toBe(false);
    expect(matchesValue('(a|aa)*c', 'a'.repeat(200_000))).toBe(false);
    expect(matchesValue('(a+)+$', 'aaa')).toBe(true);
  });

  it('refuses lookaround and backreferences, which need backtracking, with a reason', () => {
    for (const pattern of ['Bash(?!Output)', '(?<=mcp__)x', '(Edit)\\1']) {
      const compiled = compileMatcher(pattern);
      expect(compiled, pattern).toMatchObject({
        kind: 'invalid',
        error: expect.stringMatching(/lookaround and backreferences are not supported/),
      });
      expect(matchesValue(pattern, 'Bash')).toBe(false);
    }
  });

  it('no value (event without the field) only matches the match-all forms', () => {
    expect(matchesValue('Bash', undefined)).toBe(false);
    expect(matchesValue('*', undefined)).toBe(true);
  });
});

describe('content patterns', () => {
  it('key:substring tests one argument', () => {
    expect(matchesContent(['file_path:.env'], { file_path: '/w/.env.local' })).toBe(true);
    expect(matchesContent(['file_path:.env'], { file_path: '/w/src/a.ts' })).toBe(false);
  });
  it('a bare pattern tests the whole argument JSON; any pattern is enough', () => {
    expect(matchesContent(['rm -rf'], { command: 'rm -rf /' })).toBe(true);
    expect(matchesContent(['nope', 'command:git'], { command: 'git push' })).toBe(true);
    expect(matchesContent(['nope'], { command: 'git push' })).toBe(false);
  });
  it('no patterns match everything', () => {
    expect(matchesContent(undefined, {})).toBe(true);
    expect(matchesContent([], {})).toBe(true);
  });
});
