import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { checkHookScripts } from '../../src/core/hooks/config/script-diagnostics';

const isWindows = process.platform === 'win32';

describe('checkHookScripts', () => {
  let projectDir: string;

  beforeAll(() => {
    projectDir = mkdtempSync(join(tmpdir(), 'hookpilot-scripts-'));
    mkdirSync(join(projectDir, '.claude', 'hooks'), { recursive: true });
    mkdirSync(join(projectDir, 'tools'));
    writeFileSync(join(projectDir, '.claude', 'hooks', 'ok.sh'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(projectDir, '.claude', 'hooks', 'ok.sh'), 0o755);
    writeFileSync(join(projectDir, '.claude', 'hooks', 'plain.sh'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(projectDir, '.claude', 'hooks', 'plain.sh'), 0o644);
    writeFileSync(join(projectDir, 'tools', 'check.js'), 'process.exit(0);\n');
    chmodSync(join(projectDir, 'tools', 'check.js'), 0o644);
  });

  afterAll(() => rmSync(projectDir, { recursive: true, force: true }));

  function check(handlers: string[]) {
    const text = `{
  "hooks": {
    "PreToolUse": [
${handlers.map((h) => `      ${h}`).join(',\n')}
    ]
  }
}`;
    const config = loadHooksDocument(text, { kind: 'hooksJson', file: '.vscode/hooks.json' });
    expect(config.problems).toEqual([]);
    return { config, problems: checkHookScripts(config.hooks, projectDir) };
  }

  it('accepts existing executable scripts and scripts run through an interpreter', () => {
    const { problems } = check([
      '{ "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/ok.sh --flag" }',
      '{ "type": "command", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/ok.sh" }',
      '{ "type": "command", "command": "./.claude/hooks/ok.sh" }',
      '{ "type": "command", "command": "bash .claude/hooks/plain.sh" }',
      '{ "type": "command", "command": "node", "args": ["tools/check.js"] }',
      '{ "type": "command", "command": "node check.js", "cwd": "tools" }',
      '{ "type": "command", "command": "echo hi && true" }',
      '{ "type": "command", "command": "python3 -c \\"print(1)\\"" }',
      '{ "type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/x.sh" }',
    ]);
    expect(problems).toEqual([]);
  });

  it('warns about a missing script, at the hook position', () => {
    const { config, problems } = check([
      '{ "type": "command", "command": "echo fine" }',
      '{ "type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/gone.sh" }',
      '{ "type": "command", "command": "node tools/missing.js" }',
    ]);
    expect(problems.map((p) => [p.code, p.severity, p.hookId])).toEqual([
      ['script-missing', 'warning', config.hooks[1].id],
      ['script-missing', 'warning', config.hooks[2].id],
    ]);
    expect(problems[0]).toMatchObject({ file: '.vscode/hooks.json', line: 5, column: 7, path: 'hooks.PreToolUse[1]' });
    expect(problems[0].message).toContain(join(projectDir, '.claude', 'hooks', 'gone.sh'));
  });

  it.skipIf(isWindows)('warns about a script run directly that is not executable', () => {
    const { config, problems } = check([
      '{ "type": "command", "command": "FOO=1 ./.claude/hooks/plain.sh" }',
      '{ "type": "command", "command": "sh ./.claude/hooks/plain.sh" }',
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'script-not-executable', severity: 'warning', hookId: config.hooks[0].id, line: 4 });
    expect(problems[0].message).toContain('chmod +x');
  });
});
