import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliEnv, jsonResult, REPO_ROOT, runCli, toolMessageSent, useCliBundle, useTestbed } from '../fixtures/cli/cli-harness';
import { SCRIPTED_MODEL_ID, startModelServer, text, toolCalls, type ModelServer } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A replay runs the recorded model's commands again: every protection `run` gives them, its
// session must give them too (the guards, the storage, the credentials, the secrets).

const bundle = useCliBundle();
const newBed = useTestbed();
const SECRET = 'hunter2hunter2xyz';
const reversed = (value: string) => value.split('').reverse().join('');
const guard = hooksJson({
  PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no touching" >&2; exit 2', name: 'guard' }] }],
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('replay: the guards configured through links', () => {
  let base: string | undefined;
  let server: ModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    if (base) rmSync(base, { recursive: true, force: true });
    base = undefined;
  });

  it('a hooks.json that is a relative link out of the workspace still guards the replayed commands', async () => {
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookpilot-mono-')));
    const home = path.join(base, 'home');
    const app = path.join(base, 'mono', 'packages', 'app');
    const marker = path.join(base, 'unguarded-command-ran');
    mkdirSync(home, { recursive: true });
    mkdirSync(path.join(app, '.vscode'), { recursive: true });
    mkdirSync(path.join(base, 'mono', 'tools'), { recursive: true });
    writeFileSync(path.join(base, 'mono', 'tools', 'hooks.json'), guard);
    symlinkSync('../../../tools/hooks.json', path.join(app, '.vscode', 'hooks.json'));
    server = await startModelServer([toolCalls([{ name: 'Bash', arguments: { command: `touch ${marker}` } }]), text('done')]);
    const env = cliEnv(home);
    const run = ['run', 'go', '--cwd', app, '--base-url', server.url, '--model', SCRIPTED_MODEL_ID, '--allowed-tools', 'Bash'];
    const recorded = jsonResult(await runCli(bundle.bundle, [...run, '--output-format', 'json'], { env, timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['blocked']);

    const replay = await runCli(bundle.bundle, ['replay', recorded.session_id, '--cwd', app, '--allowed-tools', 'Bash', '--json'], {
      env,
      timeoutMs: 60_000,
    });
    expect(replay.stdout, replay.stderr).toContain('"differs": false');
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it('is refused (exit 2) when the copy of the workspace would not load a hook the workspace loads', async () => {
    // The configuration lives in .git, which the copy leaves out: the link dangles there.
    const bed = await newBed({ '.git/hooks.json': guard }, [
      toolCalls([{ name: 'Bash', arguments: { command: 'touch ran.txt' } }]),
      text('done'),
    ]);
    mkdirSync(bed.workspace.file('.vscode'));
    symlinkSync('../.git/hooks.json', bed.workspace.file('.vscode/hooks.json'));
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['blocked']);

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json']);
    expect(replay.code, replay.stdout).toBe(2);
    expect(replay.stderr).toContain('does not load the hooks the workspace loads, "guard" (PreToolUse) among them');
    expect(replay.stdout).toBe('');
  }, 120_000);

  it('is refused (exit 2), as run is, when a configuration file cannot be read', async () => {
    const bed = await newBed({ '.vscode/hooks.json': guard }, [
      toolCalls([{ name: 'Bash', arguments: { command: 'touch ran.txt' } }]),
      text('done'),
    ]);
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['blocked']);
    // A FIFO is not copied: the copy would have no hooks.json at all.
    rmSync(bed.workspace.file('.vscode/hooks.json'));
    execFileSync('mkfifo', [bed.workspace.file('.vscode/hooks.json')]);

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json']);
    expect(replay.code, replay.stdout).toBe(2);
    expect(replay.stderr).toMatch(
      /cannot read .*hooks\.json: it is not a regular file .*; fix or remove it \(the hooks configured there would not run\)/,
    );
    expect(replay.stdout).toBe('');
  }, 120_000);
});

describe("replay: the session gets run's protections", () => {
  it('a replayed `rm -rf` of the storage folder (written as a glob) asks, as in run, and every record stays', async () => {
    let storage = '';
    const bed = await newBed({ 'a.txt': 'x' }, (_request, i) =>
      i === 0
        ? toolCalls([{ name: 'Bash', arguments: { command: `rm -rf ${storage.replace('.hookpilot', '.hookpil?t')}` } }])
        : text('done'),
    );
    storage = path.join(bed.home, '.hookpilot', 'projects');
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['denied']);
    const records = filesUnder(storage);
    expect(records.some((file) => file.endsWith(`${recorded.session_id}.jsonl`))).toBe(true);

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json']);
    expect(replay.stdout, replay.stderr).toContain('"differs": false');
    for (const file of records) expect(existsSync(file), file).toBe(true);
  }, 120_000);

  it('a variable an http hook sends (allowedEnvVars) is kept from a replayed command, as in run', async () => {
    const hook = {
      type: 'http',
      url: 'http://127.0.0.1:9/hook',
      headers: { Authorization: 'Bearer $ACME_HOOK_BEARER' },
      allowedEnvVars: ['ACME_HOOK_BEARER'],
    };
    const bed = await newBed({ '.vscode/hooks.json': hooksJson({ Notification: [{ hooks: [hook] }] }) }, [
      toolCalls([{ id: 'peek', name: 'Bash', arguments: { command: 'printenv ACME_HOOK_BEARER | rev; echo tesnu=b' } }]),
      text('Done.'),
    ]);
    const env = { ACME_HOOK_BEARER: SECRET };
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { env, timeoutMs: 60_000 }));
    expect(toolMessageSent(bed.server, 'peek')).toContain('tesnu=b');
    expect(toolMessageSent(bed.server, 'peek')).not.toContain(reversed(SECRET));

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json'], { env });
    const replaySession = (JSON.parse(replay.stdout) as { replay_session_id: string }).replay_session_id;
    const timeline = await bed.cli(['timeline', replaySession, '--json', '--all'], { env });
    const records = (
      JSON.parse(timeline.stdout) as { records: Array<{ type: string; event?: string; payload?: { tool_response?: unknown } }> }
    ).records;
    const output = JSON.stringify(
      records.find((record) => record.type === 'event' && record.event === 'PostToolUse')?.payload?.tool_response,
    );
    // A reversed value slips past redaction: the variable must not be there at all.
    expect(output).toContain('tesnu=b');
    expect(output).not.toContain(reversed(SECRET));
  }, 120_000);

  it('an mcp_tool guard, whose server a replay does not start, blocks rather than letting the command through', async () => {
    const policy = {
      policy: { command: process.execPath, args: [path.join(REPO_ROOT, 'test/fixtures/mcp/policy-server.mjs'), 'deny', 'user'] },
    };
    let marker = '';
    const bed = await newBed({}, (_request, i) =>
      i === 0 ? toolCalls([{ name: 'Bash', arguments: { command: `touch ${marker}` } }]) : text('done'),
    );
    marker = path.join(bed.home, 'unguarded-command-ran');
    writeFileSync(
      path.join(bed.home, 'user-settings.json'),
      JSON.stringify({
        'hookpilot.mcpServers': policy,
        'hookpilot.hooks': { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'mcp_tool', server: 'policy', tool: 'check' }] }] } },
      }),
    );
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['blocked']);

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json']);
    expect(replay.stderr).toContain('MCP server "policy" is not connected');
    expect(existsSync(marker)).toBe(false);
  }, 120_000);
});

describe('replay: secrets stay out of what it keeps and prints', () => {
  it("a replayed `cat` of the user settings leaves the collector's key (otlpHeaders) out of the audit log and transcript", async () => {
    const key = 'Zq8mW3rT6yP1vK4nB7cX';
    const bed = await newBed({}, [toolCalls([{ name: 'Bash', arguments: { command: 'cat "$HOOKPILOT_USER_SETTINGS"' } }]), text('Done.')]);
    writeFileSync(
      path.join(bed.home, 'user-settings.json'),
      JSON.stringify({ 'hookpilot.telemetry.otlpHeaders': { 'x-honeycomb-team': key } }),
    );
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));
    expect(recorded.tool_calls.map((call) => call.outcome)).toEqual(['executed']);
    const storage = path.join(bed.home, '.hookpilot');

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash', '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(filesUnder(storage).some((file) => readFileSync(file, 'utf8').includes('x-honeycomb-team'))).toBe(true);
    expect(filesUnder(storage).filter((file) => readFileSync(file, 'utf8').includes(key))).toEqual([]);
  }, 120_000);

  it("--json prints a hook's reason quoting a secret variable redacted", async () => {
    const bed = await newBed(
      {
        '.vscode/hooks.json': hooksJson({
          PostToolBatch: [{ hooks: [{ type: 'command', command: 'echo "cannot deploy with $DEPLOY_PASS" >&2; exit 2', name: 'gate' }] }],
        }),
      },
      [toolCalls([{ name: 'Bash', arguments: { command: 'echo hi' } }]), text('done')],
    );
    const env = { DEPLOY_PASS: SECRET };
    const recorded = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { env, timeoutMs: 60_000 });
    expect(recorded.stdout).not.toContain(SECRET);

    const replay = await bed.cli(['replay', jsonResult(recorded).session_id, '--allowed-tools', 'Bash', '--json'], { env });
    expect(replay.stdout).toContain('cannot deploy with [REDACTED');
    expect(replay.stdout).not.toContain(SECRET);
  }, 120_000);

  it("the turn error a hook's reason ends, quoting a value of the workspace's .env, is redacted on stderr", async () => {
    const bed = await newBed(
      {
        '.env': `DEPLOY_PASSWORD=${SECRET}\n`,
        '.vscode/hooks.json': hooksJson({
          PostToolBatch: [
            { hooks: [{ type: 'command', command: 'echo "cannot deploy with $(cut -d= -f2 .env)" >&2; exit 2', name: 'gate' }] },
          ],
        }),
      },
      [toolCalls([{ name: 'Bash', arguments: { command: 'echo hi' } }]), text('done')],
    );
    const recorded = jsonResult(await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 }));

    const replay = await bed.cli(['replay', recorded.session_id, '--allowed-tools', 'Bash']);
    expect(replay.stderr).toContain('cannot deploy with [REDACTED');
    expect(replay.stderr).not.toContain(SECRET);
  }, 120_000);
});
