import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import type { HookPayload } from '../../src/core/hooks/types';
import { convertClaudeHooks } from '../../src/core/import/claude';
import { importHooks } from '../../src/core/import/import-hooks';
import {
  copyFixture,
  entryOf,
  hookOf,
  IMPORT_FIXTURES,
  loadCleanly,
  statusTable,
  type FixtureCopy,
} from '../fixtures/import/fixture-project';

const userHome = path.join(IMPORT_FIXTURES, 'claude', 'home');
let project: FixtureCopy;

beforeEach(() => {
  project = copyFixture('claude/project');
});
afterEach(() => project.cleanup());

describe('importing Claude Code settings', () => {
  it('carries a SessionStart hook that writes $CLAUDE_ENV_FILE over exactly (Hookpilot sets it); a plugin variable is a change', () => {
    const [envFile, plugin] = convertClaudeHooks(
      {
        SessionStart: [
          { hooks: [{ type: 'command', command: 'echo "export NODE_ENV=test" >> "$CLAUDE_ENV_FILE"' }] },
          { hooks: [{ type: 'command', command: '"${CLAUDE_PLUGIN_ROOT}/start.sh"' }] },
        ],
      },
      { fileNotes: [], disabled: false },
    );
    expect(envFile.changes).toEqual([]);
    expect(plugin.changes).toEqual(['$CLAUDE_PLUGIN_ROOT is not set by Hookpilot: it only exists for plugin hooks']);
  });

  it('reports every hook of the three settings files with its status', () => {
    const { report } = importHooks({ cwd: project.dir, home: userHome, dryRun: true });
    expect(report.sources).toEqual([
      { tool: 'claude', file: '.claude/settings.json', scope: 'project' },
      { tool: 'claude', file: '.claude/settings.local.json', scope: 'local' },
      { tool: 'claude', file: '~/.claude/settings.json', scope: 'user' },
    ]);
    expect(statusTable(report.entries)).toEqual([
      ['.claude/settings.json', 'PreToolUse', 'PreToolUse', 'exact'],
      ['.claude/settings.json', 'PreToolUse', 'PreToolUse', 'exact'],
      ['.claude/settings.json', 'PreToolUse', 'PreToolUse', 'exact'],
      ['.claude/settings.json', 'PreToolUse', 'PreToolUse', 'exact'],
      ['.claude/settings.json', 'PostToolUse', 'PostToolUse', 'exact'],
      ['.claude/settings.json', 'PostToolUse', 'PostToolUse', 'exact'],
      ['.claude/settings.json', 'UserPromptSubmit', 'UserPromptSubmit', 'exact'],
      ['.claude/settings.json', 'SessionStart', 'SessionStart', 'exact'],
      ['.claude/settings.json', 'Notification', 'Notification', 'exact'],
      ['.claude/settings.json', 'SubagentStart', '-', 'unsupported'],
      ['.claude/settings.json', 'PreCompact', 'PreCompact', 'exact'],
      ['.claude/settings.json', 'StopFailure', 'StopFailure', 'exact'],
      ['.claude/settings.json', 'Setup', '-', 'unsupported'],
      ['.claude/settings.json', 'CwdChanged', '-', 'unsupported'],
      ['.claude/settings.json', 'PostToolBatch', 'PostToolBatch', 'exact'],
      ['.claude/settings.local.json', 'PreToolUse', 'PreToolUse', 'exact (duplicate)'],
      ['.claude/settings.local.json', 'PreToolUse', 'PreToolUse', 'exact'],
      ['~/.claude/settings.json', 'Stop', 'Stop', 'exact'],
      ['~/.claude/settings.json', 'SessionEnd', 'SessionEnd', 'exact'],
    ]);
  });

  it('says why what cannot carry over does not, and what changed', () => {
    const { entries } = importHooks({ cwd: project.dir, home: userHome, dryRun: true }).report;
    expect(entryOf(entries, 'PreToolUse', 'prompt `Does this edit').notes).toEqual([
      expect.stringMatching(/the model configured for Hookpilot answers it/),
    ]);
    expect(entryOf(entries, 'SubagentStart', 'Stay read-only').reasons[0]).toMatch(/PowerShell/);
    expect(entryOf(entries, 'PreCompact', 'mcp_tool').reasons).toEqual([]);
    expect(entryOf(entries, 'PreCompact', 'mcp_tool').notes).toEqual([expect.stringMatching(/MCP server named `memory` is configured/)]);
    expect(entryOf(entries, 'Setup', 'npm ci').reasons[0]).toMatch(/^Hookpilot has no Setup event/);
    expect(entryOf(entries, 'CwdChanged', 'direnv').reasons[0]).toMatch(/^Hookpilot has no CwdChanged event/);
    expect(entryOf(entries, 'PostToolUse', 'npm test').reasons).toEqual([]);
    expect(entryOf(entries, 'PostToolUse', 'npm test').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/"asyncRewake": exit code 2 brings its stderr/)]),
    );
    expect(entryOf(entries, 'StopFailure', 'rate limited').reasons).toEqual([]);
    expect(entryOf(entries, 'PreToolUse', 'my-bash-logger').notes).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/settings\.local\.json, a personal file/),
        expect.stringMatching(/"once" is honoured only in skill frontmatter/),
      ]),
    );
    expect(entryOf(entries, 'Stop', 'notify-done').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/user settings.*applies to this workspace only/)]),
    );
    expect(entryOf(entries, 'SessionStart', 'context.md').notes).toEqual(
      expect.arrayContaining([expect.stringMatching(/never sends source "fork"/)]),
    );
    // Hooks get the whole environment, as under Claude Code: a token the command uses needs no "env".
    const tokenUser = entryOf(entries, 'PreToolUse', 'GITHUB_TOKEN').notes;
    expect(tokenUser).toEqual(expect.arrayContaining([expect.stringMatching(/written as "\(\?:mcp__github__\*\)"/)]));
    expect(tokenUser.join('\n')).not.toMatch(/passed through "env"/);
  });

  it('writes hooks.json that loads without a problem, with matchers, if, timeouts and async kept', () => {
    const result = importHooks({ cwd: project.dir, home: userHome, dryRun: false });
    const file = path.join(project.dir, '.vscode', 'hooks.json');
    expect(result.written).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe(result.text);
    const config = loadCleanly(result.text);
    expect(config.hooks).toHaveLength(15);
    expect(config.hooks.find((h) => h.spec.type === 'mcp_tool')).toMatchObject({
      event: 'PreCompact',
      spec: { server: 'memory', tool: 'save_context', input: { note: '${trigger}' } },
    });
    expect(config.hooks.find((h) => h.spec.type === 'prompt')).toMatchObject({
      event: 'PreToolUse',
      matcher: 'Edit|Write',
      timeoutMs: 20_000,
      spec: { type: 'prompt', prompt: 'Does this edit remove a test? $ARGUMENTS' },
    });

    const guard = hookOf(config, 'PreToolUse', 'block-rm.sh');
    expect(guard).toMatchObject({
      matcher: 'Bash',
      timeoutMs: 10_000,
      statusMessage: 'Checking the command…',
      spec: { type: 'command', command: '"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh' },
    });
    expect(hookOf(config, 'PreToolUse', 'protect-env.js')).toMatchObject({
      matcher: 'Edit|Write',
      if: 'Edit(**/.env*)',
      timeoutMs: 600_000,
    });
    expect(hookOf(config, 'PreToolUse', 'audit.example.com')).toMatchObject({ matcher: '(?:mcp__github__*)' });
    expect(hookOf(config, 'PreToolUse', 'audit.example.com')?.spec).not.toHaveProperty('env');
    expect(hookOf(config, 'PostToolUse', 'prettier')).toMatchObject({ matcher: 'Write|Edit', timeoutMs: 30_000, spec: { async: true } });
    expect(hookOf(config, 'PostToolUse', 'npm test')).toMatchObject({ timeoutMs: 300_000, spec: { async: true, asyncRewake: true } });
    expect(hookOf(config, 'UserPromptSubmit', '127.0.0.1:8787')).toMatchObject({
      timeoutMs: 30_000,
      spec: { type: 'http', headers: { Authorization: 'Bearer $AUDIT_TOKEN' }, allowedEnvVars: ['AUDIT_TOKEN'] },
    });
    expect(hookOf(config, 'Notification', 'notify-send')).toMatchObject({
      matcher: 'permission_prompt',
      spec: { command: 'bash', args: ['-c', 'notify-send Claude "$(jq -r .message)"'] },
    });
    expect(hookOf(config, 'StopFailure', 'rate limited')).toMatchObject({ matcher: 'rate_limit' });
    expect(hookOf(config, 'Stop', 'notify-done')).toMatchObject({ timeoutMs: 600_000 });
    expect(hookOf(config, 'SessionEnd', 'archive-transcript').timeoutMs).toBeUndefined();
    // The same guard in settings.json and settings.local.json is imported once, as Claude Code runs it once.
    expect(config.hooks.filter((h) => JSON.stringify(h.spec).includes('block-rm.sh'))).toHaveLength(1);
  });

  it('converts prompt and agent hooks, but never as exact where they would not fire or name a Claude model', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-model-'));
    try {
      mkdirSync(path.join(dir, '.claude'));
      const hooks = {
        Stop: [{ hooks: [{ type: 'agent', prompt: 'Did the tests pass? $ARGUMENTS', timeout: 120 }] }],
        PostToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'prompt', prompt: 'Safe? $ARGUMENTS', model: 'claude-haiku-4-5', continueOnBlock: true }] },
        ],
        SessionStart: [{ hooks: [{ type: 'prompt', prompt: 'Summarize' }] }],
      };
      writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks }));
      const result = importHooks({ cwd: dir, home: project.home, dryRun: false });
      expect(statusTable(result.report.entries)).toEqual([
        ['.claude/settings.json', 'Stop', 'Stop', 'exact'],
        ['.claude/settings.json', 'PostToolUse', 'PostToolUse', 'changed'],
        ['.claude/settings.json', 'SessionStart', '-', 'unsupported'],
      ]);
      expect(result.report.entries[2].reasons[0]).toMatch(/prompt hooks run only on .*not on SessionStart/);
      expect(result.report.entries[1].reasons[0]).toMatch(/`claude-haiku-4-5` is a Claude model: left out/);
      expect(loadCleanly(result.text).hooks).toMatchObject([
        { event: 'Stop', timeoutMs: 120_000, spec: { type: 'agent', prompt: 'Did the tests pass? $ARGUMENTS' } },
        { event: 'PostToolUse', matcher: 'Bash', spec: { type: 'prompt', prompt: 'Safe? $ARGUMENTS', continueOnBlock: true } },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('converts ConfigChange hooks: same matcher on source, and a note on where they can block; "skills" never fires', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-configchange-'));
    try {
      mkdirSync(path.join(dir, '.claude'));
      const hooks = {
        ConfigChange: [
          {
            matcher: 'project_settings|local_settings',
            hooks: [{ type: 'command', command: 'node .claude/hooks/keep-guard.js', timeout: 15 }],
          },
          { matcher: 'skills', hooks: [{ type: 'command', command: 'echo skills' }] },
        ],
      };
      writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ hooks }));
      const result = importHooks({ cwd: dir, home: project.home, dryRun: false });
      expect(statusTable(result.report.entries)).toEqual([
        ['.claude/settings.json', 'ConfigChange', 'ConfigChange', 'exact'],
        ['.claude/settings.json', 'ConfigChange', 'ConfigChange', 'changed'],
      ]);
      expect(result.report.entries[0].notes).toEqual(
        expect.arrayContaining([expect.stringMatching(/before a change to the workspace configuration applies .* can block it/)]),
      );
      expect(result.report.entries[1].reasons).toEqual([expect.stringMatching(/never sends source "skills" on ConfigChange.*never fires/)]);
      expect(loadCleanly(result.text).hooks).toMatchObject([
        {
          event: 'ConfigChange',
          matcher: 'project_settings|local_settings',
          timeoutMs: 15_000,
          spec: { type: 'command', command: 'node .claude/hooks/keep-guard.js' },
        },
        { event: 'ConfigChange', matcher: 'skills' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('imports the hooks of a file with "disableAllHooks": true switched off', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-off-'));
    try {
      mkdirSync(path.join(dir, '.claude'));
      const settings = { disableAllHooks: true, hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npm test', timeout: 120 }] }] } };
      writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify(settings));
      const result = importHooks({ cwd: dir, home: project.home, dryRun: false });
      // Imported switched off, it does not fire: never "converted exactly".
      expect(result.report.entries[0]).toMatchObject({
        status: 'changed',
        reasons: [expect.stringContaining('imported turned off')],
        notes: [expect.stringMatching(/"disableAllHooks": true in this file: imported with "enabled": false/)],
      });
      expect(loadCleanly(result.text).hooks).toMatchObject([{ event: 'Stop', enabled: false, timeoutMs: 120_000 }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the http bounds of the Claude Code files read', () => {
  it('an http hook bounded in place by ~/.claude/settings.json lists is imported as changed, saying the lists stay behind', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-bounds-'));
    try {
      const home = path.join(root, 'home');
      const ws = path.join(root, 'ws');
      mkdirSync(path.join(home, '.claude'), { recursive: true });
      mkdirSync(path.join(ws, '.claude'), { recursive: true });
      writeFileSync(
        path.join(home, '.claude', 'settings.json'),
        JSON.stringify({ allowedHttpHookUrls: ['https://hooks.mycorp.example/*'] }),
      );
      const http = { type: 'http', url: 'https://collector.elsewhere.example/x', allowedEnvVars: ['GITHUB_TOKEN'] };
      const command = { type: 'command', command: 'npm test' };
      writeFileSync(path.join(ws, '.claude', 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [http, command] }] } }));
      const { entries } = importHooks({ cwd: ws, home, dryRun: true }).report;
      expect(entries.find((e) => e.original.includes('collector'))).toMatchObject({
        status: 'changed',
        reasons: [expect.stringContaining('allowedHttpHookUrls of ~/.claude/settings.json bound this http hook')],
      });
      expect(entries.find((e) => e.original.includes('npm test'))).toMatchObject({ status: 'exact', reasons: [] });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a hook that would not fire is never "converted exactly"', () => {
  it('an "if" on an event that is not a tool event', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-if-'));
    try {
      mkdirSync(path.join(dir, '.claude'));
      const settings = { hooks: { Stop: [{ hooks: [{ type: 'command', command: 'npm test', timeout: 120, if: 'Bash(git *)' }] }] } };
      writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify(settings));
      const result = importHooks({ cwd: dir, home: project.home, dryRun: true });
      expect(result.report.entries[0]).toMatchObject({
        status: 'changed',
        reasons: [expect.stringContaining('it never runs: "if" applies only to tool events')],
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an imported Claude Code guard', () => {
  let engine: HookEngine;
  let storage: string;

  beforeEach(async () => {
    importHooks({ cwd: project.dir, home: userHome, dryRun: false });
    storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-import-engine-'));
    engine = new HookEngine({ projectDir: project.dir, storageDir: storage, trusted: true });
    await engine.reload(loadWorkspaceConfigs(project.dir));
  });
  afterEach(async () => {
    await engine.dispose();
    rmSync(storage, { recursive: true, force: true });
  });

  const payload = (extra: Record<string, unknown>): HookPayload => ({
    hook_event_name: 'PreToolUse',
    session_id: 'import-test',
    transcript_path: '',
    cwd: project.dir,
    tool_use_id: 't1',
    ...extra,
  });
  const idOf = (text: string) => {
    const state = engine.registry.current().states.find((s) => s.hook.event === 'PreToolUse' && JSON.stringify(s.hook.spec).includes(text));
    if (!state) throw new Error(`no imported hook running ${text}`);
    return state.hook.id;
  };

  it('blocks rm -rf with exit 2 and lets ls through, unchanged', async () => {
    const blocked = await engine.testFire(idOf('block-rm.sh'), payload({ tool_name: 'Bash', tool_input: { command: 'rm -rf /' } }));
    expect(blocked.outcome).toMatchObject({ status: 'blocking-error', reason: expect.stringContaining('rm -rf is not allowed here') });
    const allowed = await engine.testFire(idOf('block-rm.sh'), payload({ tool_name: 'Bash', tool_input: { command: 'ls' } }));
    expect(allowed.outcome.status).toBe('success');
  });

  it('denies an edit of .env with its JSON answer', async () => {
    const { outcome } = await engine.testFire(
      idOf('protect-env.js'),
      payload({ tool_name: 'Edit', tool_input: { file_path: path.join(project.dir, '.env'), old_string: 'a', new_string: 'b' } }),
    );
    expect(outcome.status === 'success' && outcome.effects).toMatchObject({ decision: 'deny', reason: '.env files are protected' });
  });
});
