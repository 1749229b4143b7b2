import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  convertSources,
  discoverHookSources,
  formatImportReport,
  importHooks,
  searchedLocations,
} from '../../src/core/import/import-hooks';
import { IMPORT_FIXTURES, loadCleanly } from '../fixtures/import/fixture-project';

let root: string;
let project: string;
const userHome = path.join(IMPORT_FIXTURES, 'claude', 'home');

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hookpilot-discover-'));
  project = path.join(root, 'project');
  // One project with every tool's hooks in it.
  for (const fixture of ['claude/project', 'copilot', 'cline', 'cursor', 'gemini', 'coding-agent', 'atomcode'])
    cpSync(path.join(IMPORT_FIXTURES, fixture), project, { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('discoverHookSources', () => {
  it("finds every tool's files, in tool order, with their scope", () => {
    const found = discoverHookSources(project, { home: userHome });
    expect(found.map((s) => [s.tool, s.displayPath, s.scope])).toEqual([
      ['claude', '.claude/settings.json', 'project'],
      ['claude', '.claude/settings.local.json', 'local'],
      ['claude', '~/.claude/settings.json', 'user'],
      ['copilot', '.github/hooks/policy.json', 'project'],
      ['copilot', '.github/hooks/vscode.json', 'project'],
      ['cline', '.clinerules/hooks/PostToolUse', 'project'],
      ['cline', '.clinerules/hooks/PreCompact.sh', 'project'],
      ['cline', '.clinerules/hooks/PreToolUse', 'project'],
      ['cline', '.clinerules/hooks/TaskComplete', 'project'],
      ['cline', '.clinerules/hooks/TaskResume', 'project'],
      ['cline', '.clinerules/hooks/TaskStart', 'project'],
      ['cline', '.clinerules/hooks/UserPromptSubmit.ps1', 'project'],
      ['cursor', '.cursor/hooks.json', 'project'],
      ['gemini', '.gemini/settings.json', 'project'],
      ['coding-agent', '.coding-agent/hooks.json', 'project'],
      ['atomcode', '.hooks.json', 'project'],
      ['atomcode', '.atomcode/hooks/hooks.toml', 'project'],
    ]);
    expect(found.find((s) => s.format === 'cline-script' && s.event === 'PostToolUse')).toMatchObject({ executable: false });
    expect(found.find((s) => s.format === 'cline-script' && s.event === 'PreToolUse')).toMatchObject({ executable: true });
  });

  it('--from limits the search to one tool', () => {
    expect(discoverHookSources(project, { home: userHome, from: 'gemini' }).map((s) => s.displayPath)).toEqual(['.gemini/settings.json']);
    expect(searchedLocations('claude')).toEqual(['.claude/settings.json', '.claude/settings.local.json', '~/.claude/settings.json']);
    expect(searchedLocations()).toHaveLength(10);
  });

  it('reads a file reached twice (the project is the home directory) once, as a project file', () => {
    const found = discoverHookSources(project, { home: project, from: 'claude' });
    expect(found.map((s) => [s.displayPath, s.scope])).toEqual([
      ['.claude/settings.json', 'project'],
      ['.claude/settings.local.json', 'local'],
    ]);
  });
});

describe('importing everything at once', () => {
  it('converts all seven tools into one hooks.json that loads without a problem', () => {
    const result = importHooks({ cwd: project, home: userHome, dryRun: false });
    const config = loadCleanly(result.text);
    expect(config.hooks.length).toBe(result.report.added);
    expect(new Set(result.report.entries.map((e) => e.tool))).toEqual(
      new Set(['claude', 'copilot', 'cline', 'cursor', 'gemini', 'coding-agent', 'atomcode']),
    );
    // The text report names every entry.
    const text = formatImportReport(result.report);
    for (const entry of result.report.entries) expect(text).toContain(`  ${entry.file}: ${entry.original}`);
  });

  it('reports a file that is not valid JSON instead of skipping it', () => {
    writeFileSync(path.join(project, '.cursor', 'hooks.json'), '{ "version": 1, "hooks": { "stop": [ }');
    const { entries } = convertSources(discoverHookSources(project, { from: 'cursor' }));
    expect(entries).toEqual([
      expect.objectContaining({
        file: '.cursor/hooks.json',
        sourceEvent: '(file)',
        status: 'unsupported',
        reasons: [expect.stringMatching(/^not valid JSON at line 1, column \d+ .*none of its hooks were imported$/)],
      }),
    ]);
  });

  it('finds nothing in an empty project', () => {
    const empty = path.join(root, 'empty');
    mkdirSync(empty);
    const result = importHooks({ cwd: empty, home: path.join(root, 'no-home'), dryRun: false });
    expect(result.report.entries).toEqual([]);
    expect(result.written).toBeUndefined();
    expect(formatImportReport(result.report)).toBe(`No hooks found to import. Looked in: ${searchedLocations().join(', ')}\n`);
  });
});
