import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { importHooks, mergeIntoHooksJson, planMerge, type ImportedHook, type ImportReportEntry } from '../../src/core/import/import-hooks';
import { copyFixture, loadCleanly, type FixtureCopy } from '../fixtures/import/fixture-project';

function hook(event: ImportedHook['event'], matcher: string | undefined, command: string): ImportedHook {
  const entry: ImportReportEntry = {
    tool: 'claude',
    file: '.claude/settings.json',
    original: command,
    sourceEvent: event,
    targetEvent: event,
    status: 'exact',
    reasons: [],
    notes: [],
  };
  return { event, matcher, handler: { type: 'command', command, timeout: 10 }, entry };
}

const EXISTING = `// Team hooks: reviewed in PRs.
{
  "hooks": {
    // Guards first.
    "preToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "./guard.sh", "timeout": 10, "enabled": false, "name": "guard" } // switched off on purpose
        ]
      }
    ],
    "Stop": [
      { "type": "command", "command": "npm test", "timeout": 10 }, // flat entry
    ],
  },
}
`;

describe('mergeIntoHooksJson', () => {
  it('starts a new document when there is none', () => {
    const text = mergeIntoHooksJson(undefined, {
      hooks: [hook('PreToolUse', 'Bash', './a.sh'), hook('PreToolUse', 'Bash', './b.sh'), hook('Stop', undefined, './c.sh')],
    });
    expect(JSON.parse(text)).toEqual({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'command', command: './a.sh', timeout: 10 },
              { type: 'command', command: './b.sh', timeout: 10 },
            ],
          },
        ],
        Stop: [{ hooks: [{ type: 'command', command: './c.sh', timeout: 10 }] }],
      },
    });
  });

  it('keeps the comments and formatting of an existing file and adds into the group with the same matcher', () => {
    const plan = planMerge(EXISTING, {
      hooks: [
        hook('PreToolUse', 'Bash', './new-guard.sh'),
        hook('PreToolUse', 'Edit', './fmt.sh'),
        hook('SessionStart', undefined, './hello.sh'),
      ],
    });
    expect(plan.added).toHaveLength(3);
    // Every existing line is kept as it was, except that the last item of a list gains its comma.
    const lines = plan.text.split('\n');
    expect(EXISTING.split('\n').filter((line) => !lines.includes(line))).toEqual([
      expect.stringContaining('"name": "guard" } // switched off on purpose'),
    ]);
    expect(plan.text).toContain('"name": "guard" }, // switched off on purpose\n');
    const config = loadCleanly(plan.text);
    expect(config.hooks.map((h) => [h.event, h.matcher ?? '', (h.spec as { command: string }).command])).toEqual([
      ['PreToolUse', 'Bash', './guard.sh'],
      ['PreToolUse', 'Bash', './new-guard.sh'],
      ['PreToolUse', 'Edit', './fmt.sh'],
      ['Stop', '', 'npm test'],
      ['SessionStart', '', './hello.sh'],
    ]);
    // The alias key is reused rather than a second "PreToolUse" key added next to it.
    expect(plan.text).not.toContain('"PreToolUse"');
  });

  it('does not add a hook that is already there, even disabled, renamed or written flat', () => {
    const plan = planMerge(EXISTING, { hooks: [hook('PreToolUse', 'Bash', './guard.sh'), hook('Stop', '*', 'npm test')] });
    expect(plan.added).toEqual([]);
    expect(plan.alreadyPresent.map((h) => h.handler.type === 'command' && h.handler.command)).toEqual(['./guard.sh', 'npm test']);
    expect(plan.text).toBe(EXISTING);
  });

  it('indents added hooks like the existing file (tabs here)', () => {
    const tabbed = '{\n\t"hooks": {\n\t\t"Stop": []\n\t}\n}\n';
    const text = mergeIntoHooksJson(tabbed, { hooks: [hook('Stop', undefined, './x.sh')] });
    expect(text).toMatch(/^\t\t\t{$/m);
    expect(text).not.toMatch(/^ +\S/m);
    loadCleanly(text);
  });

  it('refuses a file that writes a key twice: the edit would go into the copy the loader does not read', () => {
    const existing = '{\n  "hooks": { "PostToolUse": [] },\n  "hooks": {}\n}\n';
    expect(() => planMerge(existing, { hooks: [hook('PreToolUse', 'Bash', './guard.sh')] })).toThrow(
      /syntax error at line 3 \(Duplicate key "hooks".*fix it before importing/,
    );
  });

  it('keeps a file that has only comments, and refuses one with a syntax error', () => {
    const text = mergeIntoHooksJson('// hooks go here\n', { hooks: [hook('Stop', undefined, './x.sh')] });
    expect(text.startsWith('// hooks go here\n{')).toBe(true);
    loadCleanly(text);
    expect(() => mergeIntoHooksJson('{ "hooks": { "Stop": [ }', { hooks: [hook('Stop', undefined, './x.sh')] })).toThrow(
      /syntax error.*fix it before importing/,
    );
    expect(() => mergeIntoHooksJson('{ "hooks": { "Stop": {} } }', { hooks: [hook('Stop', undefined, './x.sh')] })).toThrow(
      /"hooks\.Stop" .* is not a list/,
    );
  });
});

describe('importHooks into an existing .vscode/hooks.json', () => {
  let project: FixtureCopy;
  beforeEach(() => {
    project = copyFixture('cursor');
  });
  afterEach(() => project.cleanup());

  const target = () => path.join(project.dir, '.vscode', 'hooks.json');

  it('--dry-run writes nothing and returns the text it would write', () => {
    const result = importHooks({ cwd: project.dir, home: project.home, dryRun: true });
    expect(existsSync(path.join(project.dir, '.vscode'))).toBe(false);
    expect(result.written).toBeUndefined();
    expect(result.report).toMatchObject({ dryRun: true, written: false, added: 9 });
    expect(loadCleanly(result.text).hooks).toHaveLength(9);
  });

  it('keeps existing comments, and a second import adds nothing and says so', () => {
    mkdirSync(path.dirname(target()));
    writeFileSync(target(), EXISTING);
    const first = importHooks({ cwd: project.dir, home: project.home, dryRun: false });
    expect(first.written).toBe(target());
    expect(first.report.added).toBe(9);
    const written = readFileSync(target(), 'utf8');
    expect(written).toContain('// switched off on purpose');
    expect(loadCleanly(written).hooks).toHaveLength(11);

    const second = importHooks({ cwd: project.dir, home: project.home, dryRun: false });
    expect(second.written).toBeUndefined();
    expect(second.report).toMatchObject({ added: 0, written: false });
    expect(readFileSync(target(), 'utf8')).toBe(written);
    const carried = second.report.entries.filter((e) => e.status !== 'unsupported');
    expect(
      carried.every((e) => e.skipped === 'already-present' && e.notes.includes('already in .vscode/hooks.json: not added again')),
    ).toBe(true);
  });

  it.each([
    ['hooks.json is a link to a file outside', 'file'],
    ['hooks.json is a dangling link', 'dangling'],
    ['.vscode is a link to a folder outside', 'folder'],
  ])('never writes through a link a repository shipped: %s', (_, kind) => {
    const outside = mkdtempSync(path.join(tmpdir(), 'import-outside-'));
    try {
      const victim = path.join(outside, 'settings.json');
      if (kind !== 'dangling') writeFileSync(victim, '{ "hooks": {} }');
      if (kind === 'folder') symlinkSync(outside, path.join(project.dir, '.vscode'));
      else {
        mkdirSync(path.dirname(target()));
        symlinkSync(kind === 'file' ? victim : path.join(outside, '.bash_profile'), target());
      }
      for (const dryRun of [true, false]) {
        expect(() => importHooks({ cwd: project.dir, home: project.home, dryRun })).toThrow(/is a symbolic link/);
      }
      expect(kind === 'dangling' ? existsSync(path.join(outside, '.bash_profile')) : readFileSync(victim, 'utf8')).toBe(
        kind === 'dangling' ? false : '{ "hooks": {} }',
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('refuses to touch a hooks.json it cannot parse', () => {
    mkdirSync(path.dirname(target()));
    writeFileSync(target(), '{ "hooks": ');
    expect(() => importHooks({ cwd: project.dir, home: project.home, dryRun: false })).toThrow(/syntax error/);
    expect(readFileSync(target(), 'utf8')).toBe('{ "hooks": ');
  });
});
