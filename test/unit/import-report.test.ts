import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatImportReport, importHooks } from '../../src/core/import/import-hooks';
import { copyFixture, IMPORT_FIXTURES, type FixtureCopy } from '../fixtures/import/fixture-project';

let project: FixtureCopy;
beforeEach(() => {
  project = copyFixture('claude/project');
});
afterEach(() => project.cleanup());

const home = path.join(IMPORT_FIXTURES, 'claude', 'home');

describe('formatImportReport', () => {
  it('lists the sources, then every hook grouped by status, then what happens to hooks.json', () => {
    const { report } = importHooks({ cwd: project.dir, home, dryRun: true });
    const text = formatImportReport(report);
    const headings = text.split('\n').filter((line) => /^\S/.test(line));
    expect(headings).toEqual([
      'Hooks found in 3 file(s):',
      'Converted exactly: 15',
      'Cannot carry over (not imported): 3',
      'Already imported, not added again: 1',
      'Dry run: nothing written; 15 hook(s) would be added to .vscode/hooks.json.',
    ]);
    expect(text).toContain('  .claude/settings.json        Claude Code (project)\n');
    expect(text).toContain('  ~/.claude/settings.json      Claude Code (user)\n');
    // One line per hook, with its target, then the why.
    expect(text.split('\n').filter((line) => /^ {2}\S.*: /.test(line) && !line.includes('Claude Code ('))).toHaveLength(
      report.entries.length,
    );
    expect(text).toContain(
      [
        "  .claude/settings.json: StopFailure matcher `rate_limit`: command `notify-send Claude 'rate limited'`",
        '    → StopFailure [rate_limit]',
      ].join('\n'),
    );
    expect(text).toContain(['  .claude/settings.json: Setup: command `npm ci`', '    why: Hookpilot has no Setup event:'].join('\n'));
    expect(text).toMatch(
      / {2}\.claude\/settings\.local\.json: PreToolUse matcher `Bash`: command `"\$CLAUDE_PROJECT_DIR"\/\.claude\/hooks\/block-rm\.sh`\n {4}→ PreToolUse \[Bash\] \(exact\)\n/,
    );
  });

  it('says what was written, or that there was nothing to add', () => {
    const first = importHooks({ cwd: project.dir, home, dryRun: false });
    expect(formatImportReport(first.report).trimEnd().split('\n').pop()).toBe('.vscode/hooks.json: 15 hook(s) added.');
    const second = importHooks({ cwd: project.dir, home, dryRun: false });
    const text = formatImportReport(second.report);
    expect(text.trimEnd().split('\n').pop()).toBe('.vscode/hooks.json: nothing to add.');
    expect(text).toContain('Already imported, not added again: 16');
  });
});
