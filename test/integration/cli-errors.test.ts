import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, cliEnv, nodeHook, runCli, startTestbed, type CliResult, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';

// Every failure is one clear line on stderr and a non-zero exit code, never a stack trace.

let bundle: { bundle: string; cleanup: () => void };
let home: string;
let bed: Testbed | undefined;
beforeAll(async () => {
  bundle = await buildCli();
  home = mkdtempSync(path.join(tmpdir(), 'hookpilot-cli-errors-'));
});
afterAll(() => {
  bundle.cleanup();
  rmSync(home, { recursive: true, force: true });
});
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const hookpilot = (args: string[], env: Record<string, string> = {}) => runCli(bundle.bundle, args, { env: cliEnv(home, env), cwd: home });

function expectOneLineError(r: CliResult, code: number, pattern: RegExp): void {
  expect(r.code).toBe(code);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^hookpilot: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('hookpilot --version and --help', () => {
  it('prints the version and the commands, exit 0', async () => {
    const version = await hookpilot(['--version']);
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await hookpilot(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run [options] [prompt]', 'hooks', 'timeline [options] [session]']) expect(help.stdout).toContain(command);
    const runHelp = await hookpilot(['run', '--help']);
    for (const flag of [
      '--cwd',
      '--base-url',
      '--model',
      '--allowed-tools',
      '--disallowed-tools',
      '--permission-mode',
      '--max-steps',
      '--output-format',
      '--hooks',
    ])
      expect(runHelp.stdout).toContain(flag);
  });
});

describe('hookpilot errors', () => {
  it('no base URL: says how to set one, with examples, exit 2', async () => {
    const r = await hookpilot(['run', 'hello', '--model', 'm']);
    expectOneLineError(r, 2, /no model server: pass --base-url URL or set HOOKPILOT_BASE_URL/);
    expect(r.stderr).toContain('https://api.openai.com/v1');
    expect(r.stderr).toContain('http://127.0.0.1:11434/v1');
    expect(r.stderr).toContain('http://127.0.0.1:1234/v1');
  });

  it('a remote base URL without a key names the variable to set; a loopback one needs none', async () => {
    const remote = await hookpilot(['run', 'hello'], { HOOKPILOT_BASE_URL: 'https://api.openai.com/v1', HOOKPILOT_MODEL: 'gpt-4.1' });
    expectOneLineError(remote, 2, /needs an API key: set HOOKPILOT_API_KEY \(or OPENAI_API_KEY\)/);
    const noModel = await hookpilot(['run', 'hello', '--base-url', 'http://127.0.0.1:9/v1']);
    expectOneLineError(noModel, 2, /no model name: pass --model NAME or set HOOKPILOT_MODEL/);
  });

  it('an unreachable model: one clear line, exit 1', async () => {
    const r = await hookpilot(['run', 'hello', '--cwd', home, '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--max-retries', '0']);
    expect(r.code).toBe(1);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^hookpilot: cannot reach the model at http:\/\/127\.0\.0\.1:9\/v1/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('bad flags: an invalid permission mode, an unbalanced rule, a missing --cwd', async () => {
    expectOneLineError(
      await hookpilot(['run', 'hello', '--permission-mode', 'yolo']),
      2,
      /'yolo' is invalid\. Allowed choices are default, acceptEdits, plan, bypassPermissions/,
    );
    expectOneLineError(
      await hookpilot(['run', 'hello', '--allowed-tools', 'Bash(git *'], {
        HOOKPILOT_BASE_URL: 'http://127.0.0.1:9/v1',
        HOOKPILOT_MODEL: 'm',
      }),
      2,
      /--allowed-tools: unbalanced parentheses/,
    );
    expectOneLineError(await hookpilot(['hooks', 'list', '--cwd', path.join(home, 'nope')]), 2, /--cwd: no such directory/);
    expectOneLineError(await hookpilot(['hooks', 'test', 'BeforeTheDawn']), 2, /unknown event "BeforeTheDawn"; events: SessionStart, /);
  });

  it('a broken hooks.json: validate points at every problem and exits 1; run still loads the valid hook and warns', async () => {
    const guard = nodeHook(
      `if (/rm\\s+-rf/.test(input.tool_input.command || '')) { process.stderr.write('rm -rf is not allowed'); process.exit(2); }`,
    );
    const brokenHooksJson = `{
  // a guard that works, and mistakes around it
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "node hooks/guard.js" }] },
      { "matcher": "(", "hooks": [{ "type": "command", "command": "echo never" }] },
      { "hooks": [{ "type": "command" }] }
    ],
    "PreToolUze": [{ "hooks": [{ "type": "command", "command": "echo typo" }] }],
    "PostToolUse": [{ "hooks": [{ "type": "command", "command": "./hooks/missing.sh" }] }]
  }
}
`;
    const settings = `{
  "editor.tabSize": 2,
  "hookpilot.hooks": {
    "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": 5 }] }] }
  }
}
`;
    bed = await startTestbed(
      bundle.bundle,
      { 'keep.txt': 'x', 'hooks/guard.js': guard, '.vscode/hooks.json': brokenHooksJson, '.vscode/settings.json': settings },
      [toolCalls([{ id: 'c1', name: 'Bash', arguments: { command: 'rm -rf keep.txt' } }]), text('kept')],
    );

    const validate = await bed.cli(['hooks', 'validate']);
    expect(validate.code).toBe(1);
    expect(validate.stdout.trim().split('\n')).toEqual([
      '.vscode/hooks.json:6:20: error: Matcher "(" is not a valid regular expression (missing closing ): `(`); its hooks are not loaded.',
      '.vscode/hooks.json:7:19: error: Missing required property "command".',
      '.vscode/hooks.json:9:5: warning: Unknown event "PreToolUze"; its hooks are ignored. Did you mean "PreToolUse"?',
      expect.stringMatching(/^\.vscode\/hooks\.json:10:33: warning: Hook script not found: \.\/hooks\/missing\.sh/),
      '.vscode/settings.json:4:69: error: "command" must be a string, not a number. (hookpilot.hooks.hooks.Stop[0].hooks[0].command)',
    ]);
    expect(validate.stderr).toMatch(/^3 error\(s\), 2 warning\(s\), 0 note\(s\); 2 hook\(s\) load/);

    const run = await bed.run(['delete keep.txt', '--permission-mode', 'bypassPermissions']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('blocked by hook "guard.js"');
    expect(bed.server.requests).toHaveLength(2);
    expect(run.stderr).toContain(
      `hookpilot: warning: ${bed.workspace.file('.vscode/hooks.json')}:6:20: Matcher "(" is not a valid regular expression`,
    );
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
