import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonResult, REPO_ROOT, toolMessageSent, useCliBundle, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';
import { MAX_TOOL_OUTPUT_CHARS } from '../../src/core/agent/tools/output-limits';

// Secrets must be redacted before any cut: a cut value matches neither itself nor its pattern.
useCliBundle();
const newBed = useTestbed();
// In .env, so the engine registers it as a secret value.
const SECRET = 'Zq8vN3kLpW2xR7tY5mB1cD4Xe';

function projectDir(home: string): string {
  const projects = path.join(home, '.hookpilot', 'projects');
  return path.join(projects, readdirSync(projects)[0]);
}

describe('secrets cut by an output limit', () => {
  it('Read does not show the start of a .env secret that a long line cuts at 2000 characters', async () => {
    const pad = 'a'.repeat(1990 - 24);
    const bed = await newBed({ '.env': `API_TOKEN=${SECRET}\n` }, [
      toolCalls([{ name: 'Edit', arguments: { file_path: '.env', old_string: 'API_TOKEN=', new_string: `API_TOKEN=${pad}` } }]),
      // Longer still, so that the line is cut even once the value is redacted.
      toolCalls([{ name: 'Edit', arguments: { file_path: '.env', old_string: '\n', new_string: `${'b'.repeat(100)}\n` } }]),
      toolCalls([{ name: 'Read', arguments: { file_path: '.env' } }]),
      text('done'),
    ]);
    const r = await bed.run(['--permission-mode', 'acceptEdits', '--output-format', 'json', 'go']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'executed']);
    const sent = JSON.stringify(bed.server.requests.map((q) => q.body.messages));
    expect(sent).toContain('[line truncated]');
    expect(sent).not.toContain(SECRET.slice(0, 12));
  });

  it('a Read window that starts inside a private key does not show the key body', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const bed = await newBed({ 'certs/dev.key': pem }, [
      toolCalls([{ id: 'whole', name: 'Read', arguments: { file_path: 'certs/dev.key' } }]),
      toolCalls([{ id: 'window', name: 'Read', arguments: { file_path: 'certs/dev.key', offset: 2, limit: 5 } }]),
      text('done'),
    ]);
    const r = await bed.run(['--allowed-tools', 'Read', '--output-format', 'json', 'go'], { timeoutMs: 60_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(toolMessageSent(bed.server, 'whole')).toContain('[REDACTED:private_key]');
    expect(toolMessageSent(bed.server, 'window')).toBeDefined();
    const sent = JSON.stringify(bed.server.requests.map((q) => q.body.messages));
    for (const line of pem.split('\n').slice(1, 6)) expect(sent).not.toContain(line);
  }, 90_000);

  it('Read does not show the second line of a .env value that spans two lines, which Bash cat redacts', async () => {
    const bed = await newBed({ '.env': 'SIGNING_SECRET="alpha bravo charlie delta\necho foxtrot golf hotel"\n' }, [
      toolCalls([{ id: 'cat', name: 'Bash', arguments: { command: 'cat .env' } }]),
      toolCalls([{ id: 'read', name: 'Read', arguments: { file_path: '.env' } }]),
      text('done'),
    ]);
    const r = await bed.run(['--allowed-tools', 'Read,Bash', '--output-format', 'json', 'go'], { timeoutMs: 60_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(toolMessageSent(bed.server, 'cat')).toBe('SIGNING_SECRET="[REDACTED:secret_value]"');
    expect(toolMessageSent(bed.server, 'read')).toBe('     1\tSIGNING_SECRET="[REDACTED:secret_value]"');
    expect(JSON.stringify(bed.server.requests.map((q) => q.body.messages))).not.toContain('echo foxtrot');
  }, 90_000);

  it('Bash does not show the start of a secret that the middle cut splits', async () => {
    // 40,000 characters with the value across the end of the head that truncateMiddle keeps.
    const note = `\n\n... [10000 characters truncated] ...\n\n`;
    const head = Math.ceil((MAX_TOOL_OUTPUT_CHARS - note.length) / 2);
    const [before, after] = [head - 10, 40_000 - (head - 10) - SECRET.length];
    const command = `head -c ${before} /dev/zero | tr '\\0' x; printf '${SECRET}'; head -c ${after} /dev/zero | tr '\\0' y`;
    const bed = await newBed({ '.env': `API_TOKEN=${SECRET}\n` }, [toolCalls([{ name: 'Bash', arguments: { command } }]), text('done')]);
    const r = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    const sent = JSON.stringify(bed.server.requests.map((q) => q.body.messages));
    expect(sent).toContain('characters truncated');
    expect(sent).not.toContain(SECRET.slice(0, 8));
  });

  it('an MCP result does not show the start of a .env secret that the middle cut splits', async () => {
    const fs = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');
    // read_multiple_files joins `${path}:\n${content}\n` with `\n---\n`: padding, .env, more padding,
    // sized so that the head truncateMiddle keeps ends 10 characters into the value.
    const note = `\n\n... [10000 characters truncated] ...\n\n`;
    const head = Math.ceil((MAX_TOOL_OUTPUT_CHARS - note.length) / 2);
    const before = (pad: number) => `a.txt:\n${'x'.repeat(pad)}\n\n---\n.env:\nAPI_TOKEN=`;
    const padA = head - 10 - before(0).length;
    const padB = 40_000 - (before(padA) + `${SECRET}\n\n\n---\nb.txt:\n\n`).length;
    const bed = await newBed(
      {
        '.env': `API_TOKEN=${SECRET}\n`,
        'a.txt': 'x'.repeat(padA),
        'b.txt': 'y'.repeat(padB),
        '.mcp.json': JSON.stringify({ mcpServers: { fs: { command: process.execPath, args: [fs, '${workspaceFolder}'] } } }),
      },
      [toolCalls([{ name: 'mcp__fs__read_multiple_files', arguments: { paths: ['a.txt', '.env', 'b.txt'] } }]), text('done')],
    );
    const r = await bed.run(['--allowed-tools', 'mcp__fs', '--output-format', 'json', 'go']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    const sent = JSON.stringify(bed.server.requests.map((q) => q.body.messages));
    expect(sent).toContain('characters truncated');
    expect(sent).not.toContain(SECRET.slice(0, 8));
  });

  it('Bash does not show the start of a secret that the 1 MiB capture cap cuts', async () => {
    const command = `head -c 1048566 /dev/zero | tr '\\0' x; printf '${SECRET}'`;
    const bed = await newBed({ '.env': `API_TOKEN=${SECRET}\n` }, [toolCalls([{ name: 'Bash', arguments: { command } }]), text('done')]);
    const r = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    const sent = JSON.stringify(bed.server.requests.map((q) => q.body.messages));
    expect(sent).toContain('was discarded');
    expect(sent).not.toContain(SECRET.slice(0, 6));
  });

  it("hooks test does not show the start of a .env secret that the 400-character excerpt of a hook's output cuts", async () => {
    const print = `require('fs').readFileSync(0); process.stdout.write('${'a'.repeat(390)} ${SECRET} tail'); process.stderr.write('${'b'.repeat(390)} ${SECRET} tail');`;
    const bed = await newBed({
      '.env': `API_TOKEN=${SECRET}\n`,
      'hooks/print.js': print,
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'node hooks/print.js', name: 'print' }] }],
      }),
    });
    const r = await bed.cli(['hooks', 'test', 'PreToolUse']);
    expect(r.code, r.stderr).toBe(0);
    // Redacted, then cut: the cut falls in the label.
    expect(r.stdout).toContain(`stdout: ${'a'.repeat(390)} [REDACTE`);
    expect(r.stdout).toContain(`stderr: ${'b'.repeat(390)} [REDACTE`);
    expect(r.stdout).not.toContain(SECRET.slice(0, 6));
  });
});

describe('secrets kept at rest', () => {
  it('SessionSummary stores a prompt redacted, readable by the owner only', async () => {
    const bed = await newBed({}, [text('ok')]);
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    // The token sits across the 200-character cut of a stored prompt.
    const r = await bed.run(['--output-format', 'json', `${'p'.repeat(180)} ${token}`]);
    expect(r.code).toBe(0);
    const dir = path.join(projectDir(bed.home), 'summaries');
    const [file] = readdirSync(dir);
    const summary = readFileSync(path.join(dir, file), 'utf8');
    expect(summary).toContain('[REDACTED');
    expect(summary).not.toContain('ghp_abcdefgh');
    expect(statSync(path.join(dir, file)).mode & 0o777).toBe(0o600);
  });

  it('a spilled hook output is saved and previewed redacted', async () => {
    // The value straddles the 2000-character preview cut and is in the saved file.
    const message = `'x'.repeat(1990) + process.env.DEPLOY_PASS + 'y'.repeat(11000)`;
    const bed = await newBed(
      {
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'command', name: 'big', command: `node -e "console.log(JSON.stringify({systemMessage: ${message}}))"` }],
            },
          ],
        }),
      },
      [toolCalls([{ name: 'Bash', arguments: { command: 'echo hi' } }]), text('done')],
    );
    const r = await bed.run(['--allowed-tools', 'Bash', '--output-format', 'json', 'go'], { env: { DEPLOY_PASS: 'hunter2hunter2xyz' } });
    expect(r.code).toBe(0);
    const spill = path.join(projectDir(bed.home), 'spill');
    const saved = readdirSync(spill).map((f) => readFileSync(path.join(spill, f), 'utf8'));
    expect(saved).toHaveLength(1);
    expect(saved[0]).toContain('[REDACTED');
    expect(saved[0]).not.toContain('hunter2hunter2xyz');
    expect(r.stdout + r.stderr).not.toContain('hunter2h');
  });
});
