import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cliEnv, runCli, useCliBundle } from '../fixtures/cli/cli-harness';
import { IMPORT_FIXTURES, loadCleanly } from '../fixtures/import/fixture-project';

// hookpilot hooks import, through the bundled CLI.

const bundle = useCliBundle();
let root: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hookpilot-cli-import-'));
  home = path.join(root, 'home');
  mkdirSync(home);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function project(...fixtures: string[]): string {
  const dir = path.join(root, 'project');
  mkdirSync(dir, { recursive: true });
  for (const fixture of fixtures) cpSync(path.join(IMPORT_FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

const cli = (args: string[], cwd?: string) => runCli(bundle.bundle, ['hooks', 'import', ...args], { cwd, env: cliEnv(home) });

describe('hookpilot hooks import', () => {
  it('writes .vscode/hooks.json and prints the report; hooks validate then finds no error', async () => {
    const dir = project('gemini', 'cursor');
    const r = await cli(['--cwd', dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^Hooks found in 2 file\(s\):\n {2}\.cursor\/hooks\.json {5}Cursor \(project\)\n {2}\.gemini\/settings\.json {2}Gemini CLI \(project\)\n/,
    );
    expect(r.stdout).toContain('Converted, but the meaning changed: 20');
    expect(r.stdout).toContain('Cannot carry over (not imported): 2');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('.vscode/hooks.json: 21 hook(s) added.');
    const written = readFileSync(path.join(dir, '.vscode', 'hooks.json'), 'utf8');
    expect(loadCleanly(written).hooks).toHaveLength(21);

    const validate = await runCli(bundle.bundle, ['hooks', 'validate', '--cwd', dir], { env: cliEnv(home) });
    expect(validate.stderr).toMatch(/^0 error\(s\), /);
    expect(validate.code).toBe(0);

    const again = await cli([], dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Already imported, not added again: 21');
    expect(readFileSync(path.join(dir, '.vscode', 'hooks.json'), 'utf8')).toBe(written);
  });

  it('--dry-run prints the report, then exactly what would be written as a diff, and writes nothing', async () => {
    const dir = project('claude/project');
    const r = await cli(['--cwd', dir, '--dry-run', '--from', 'claude']);
    expect(r.code).toBe(0);
    const [report, written] = r.stdout.split('What the import writes to .vscode/hooks.json, in full:');
    expect(report).toContain('Dry run: nothing written;');
    expect(written).toMatch(/^\n\n```diff\n/);
    expect(written).toContain('+++ .vscode/hooks.json (after the import)');
    // Every command of what would be written is in the diff, whatever the report shortened.
    const json = await cli(['--cwd', dir, '--dry-run', '--json', '--from', 'claude']);
    const { text } = JSON.parse(json.stdout) as { text: string };
    for (const line of text.split('\n').filter((l) => l.includes('"command"'))) expect(written).toContain(`+${line}`);
    expect(existsSync(path.join(dir, '.vscode'))).toBe(false);
  });

  it('--dry-run --json prints the report and the text, and writes nothing', async () => {
    const dir = project('claude/project');
    mkdirSync(path.join(home, '.claude'));
    cpSync(path.join(IMPORT_FIXTURES, 'claude', 'home', '.claude', 'settings.json'), path.join(home, '.claude', 'settings.json'));
    const r = await cli(['--cwd', dir, '--dry-run', '--json', '--from', 'claude']);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as {
      report: { entries: Array<{ status: string; file: string }>; added: number; dryRun: boolean };
      written: string | null;
      text: string;
    };
    expect(json.written).toBeNull();
    expect(json.report).toMatchObject({ dryRun: true, added: 15 });
    expect(json.report.entries).toHaveLength(19);
    expect(json.report.entries.filter((e) => e.file === '~/.claude/settings.json')).toHaveLength(2);
    expect(loadCleanly(json.text).hooks).toHaveLength(15);
    expect(existsSync(path.join(dir, '.vscode'))).toBe(false);
  });

  it('exits 1 and says where it looked when there is nothing to import', async () => {
    const dir = project('claude/project');
    const r = await cli(['--cwd', dir, '--from', 'cursor']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`hookpilot: no hooks found to import in ${dir} (looked in .cursor/hooks.json)\n`);
    expect(existsSync(path.join(dir, '.vscode'))).toBe(false);
  });

  it('rejects an unknown tool, and leaves a broken hooks.json alone', async () => {
    const dir = project('coding-agent');
    const bad = await cli(['--cwd', dir, '--from', 'vim']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(
      /--from <tool>' argument 'vim' is invalid\. Allowed choices are claude, copilot, cline, cursor, gemini, coding-agent, atomcode/,
    );

    mkdirSync(path.join(dir, '.vscode'));
    writeFileSync(path.join(dir, '.vscode', 'hooks.json'), '{ "hooks": { ');
    const broken = await cli(['--cwd', dir]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /^hookpilot: cannot import hooks: the existing hooks\.json has a syntax error .* fix it before importing\n$/,
    );
    expect(readFileSync(path.join(dir, '.vscode', 'hooks.json'), 'utf8')).toBe('{ "hooks": { ');
  });
});
