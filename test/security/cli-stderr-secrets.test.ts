import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, runCli, useCliBundle, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Whatever a command writes besides its run output (stderr, the `hooks test` report, its audit
// log) holds the invocation's secrets no more than the run's JSON does: the environment's
// secret values, the API key, and a password in the base URL.

const bundle = useCliBundle();
const newBed = useTestbed();
const SECRET = 'hunter2hunter2xyz';

function auditLogs(home: string): string {
  const projects = path.join(home, '.hookpilot', 'projects');
  return readdirSync(projects)
    .flatMap((p) => readdirSync(path.join(projects, p, 'audit')).map((f) => readFileSync(path.join(projects, p, 'audit', f), 'utf8')))
    .join('');
}

describe('run: stderr is redacted like stdout', () => {
  it('the reason a hook blocked the prompt with is redacted on stderr', async () => {
    const bed = await newBed({
      '.vscode/hooks.json': hooksJson({
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "vault refused $DEPLOY_PASS" >&2; exit 2', name: 'gate' }] }],
      }),
    });
    const r = await bed.run(['--output-format', 'json', 'go'], { env: { DEPLOY_PASS: SECRET } });
    expect(jsonResult(r).stop_reason).toBe('blocked');
    expect(r.stderr).toContain('the prompt was blocked by hook "gate": vault refused [REDACTED');
    expect(r.stderr).not.toContain(SECRET);
  });

  it('a base URL is named without its user info, query and fragment, from the flag or the environment', async () => {
    const bed = await newBed({});
    const url = `http://alice:${SECRET}@127.0.0.1:9/v1?key=${SECRET}#${SECRET}`;
    const args = ['run', 'x', '--cwd', bed.workspace.dir, '--model', 'm', '--max-retries', '0'];
    const viaFlag = await runCli(bundle.bundle, [...args, '--base-url', url], { env: bed.env });
    const viaEnv = await runCli(bundle.bundle, args, { env: { ...bed.env, HOOKPILOT_BASE_URL: url } });
    for (const r of [viaFlag, viaEnv]) {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('cannot reach the model at http://127.0.0.1:9/v1:');
      expect(r.stderr).not.toContain(SECRET);
    }
  });

  it('a usage error about the base URL does not quote its password', async () => {
    const bed = await newBed({});
    const r = await runCli(
      bundle.bundle,
      ['run', 'x', '--cwd', bed.workspace.dir, '--model', 'm', '--base-url', `ftp://alice:${SECRET}@host/v1`],
      {
        env: bed.env,
      },
    );
    expect(r.stderr).toContain('the base URL "ftp://host/v1" must start with http:// or https://');
    expect(r.stderr).not.toContain(SECRET);
  });
});

describe('replay: stderr is redacted', () => {
  it("a failing hook's warning does not print the environment's secret", async () => {
    const bed = await newBed(
      {
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', command: 'echo "cannot deploy with $DEPLOY_PASS" >&2; exit 1', name: 'failing' }],
            },
          ],
        }),
      },
      [toolCalls([{ name: 'Bash', arguments: { command: 'echo hi' } }]), text('done')],
    );
    const r = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { env: { DEPLOY_PASS: SECRET } });
    const replay = await bed.cli(['replay', jsonResult(r).session_id, '--allowed-tools', 'Bash'], { env: { DEPLOY_PASS: SECRET } });
    expect(replay.stderr).toContain('cannot deploy with [REDACTED');
    expect(replay.stderr).not.toContain(SECRET);
  });
});

describe('hooks test: the secrets of a run are redacted', () => {
  const files = {
    '.vscode/hooks.json': hooksJson({
      PreToolUse: [
        { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "using $DEPLOY_PASS" >&2; exit 1', name: 'leaky' }] },
        // A configuration warning on stderr quotes the matcher, which happens to hold the value.
        { matcher: `(${SECRET}`, hooks: [{ type: 'command', command: 'true' }] },
      ],
    }),
  };

  it('text report, stderr and audit log', async () => {
    const bed = await newBed(files);
    const r = await bed.cli(['hooks', 'test', 'PreToolUse'], { env: { DEPLOY_PASS: SECRET } });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('stderr: using [REDACTED');
    expect(r.stderr).toContain('Matcher "([REDACTED');
    for (const where of [r.stdout, r.stderr, auditLogs(bed.home)]) expect(where).not.toContain(SECRET);
  });

  it('JSON report', async () => {
    const bed = await newBed(files);
    const r = await bed.cli(['hooks', 'test', 'PreToolUse', '--json'], { env: { DEPLOY_PASS: SECRET } });
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { hooks: Array<{ name: string; stderr: string }> };
    expect(report.hooks.find((h) => h.name === 'leaky')?.stderr).toMatch(/^using \[REDACTED/);
    expect(r.stdout).not.toContain(SECRET);
  });

  it("a collector key of the user's settings, which a run redacts though it exports nothing", async () => {
    const bed = await newBed({
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'cat "$HOOKPILOT_USER_SETTINGS" >&2', name: 'peek' }] }],
      }),
    });
    writeFileSync(
      path.join(bed.home, 'user-settings.json'),
      JSON.stringify({ 'hookpilot.telemetry.otlpHeaders': { 'x-honeycomb-team': SECRET } }),
    );
    const textReport = await bed.cli(['hooks', 'test', 'PreToolUse']);
    const jsonReport = await bed.cli(['hooks', 'test', 'PreToolUse', '--json']);
    expect(textReport.code, textReport.stderr).toBe(0);
    expect(textReport.stdout).toContain('"x-honeycomb-team":"[REDACTED');
    for (const r of [textReport, jsonReport]) expect(r.stdout + r.stderr).not.toContain(SECRET);
  });
});

describe('hooks list: the secrets of the configuration are redacted', () => {
  it("an http hook's webhook token and a command hook's credential header, in the table and in JSON", async () => {
    const TOKEN = 'Xq7Wm2Lp9Rt4Vb6Nc8zk';
    const KEY = 'hcaik01Q7w9Z1xK4pL8mN3';
    const bed = await newBed({
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'http', url: `https://hooks.example.com/services/T01/B02/${TOKEN}`, name: 'slack' },
              { type: 'command', command: `curl -sH 'x-honeycomb-team: ${KEY}' https://api.honeycomb.io/1/events`, name: `hc ${KEY}` },
            ],
          },
        ],
      }),
    });
    const table = await bed.cli(['hooks', 'list']);
    const json = await bed.cli(['hooks', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as Array<{ name: string; target: string }>;
    expect(rows.find((row) => row.name === 'slack')?.target).toBe('https://hooks.example.com/services/T01/B02/[REDACTED:secret_value]');
    expect(table.stdout).toContain('hc [REDACTED');
    for (const out of [table.stdout, json.stdout]) {
      expect(out).not.toContain(TOKEN);
      expect(out).not.toContain(KEY);
    }
  });
});
