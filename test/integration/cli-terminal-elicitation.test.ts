import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { runOnTerminal } from '../fixtures/cli/terminal-run';
import { SCRIPTED_MODEL_ID, text, toolCalls } from '../support/model-server';

// A server's form filled in at a real terminal (`script` gives the CLI a pseudo-terminal with
// echo on): what is typed shows, but a credential's never does.

const SERVER = path.join(REPO_ROOT, 'test/fixtures/mcp/elicit-server.mjs');
const MCP = JSON.stringify({ mcpServers: { deploy: { command: process.execPath, args: [SERVER] } } });

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('an MCP form at the terminal', () => {
  it("shows what is typed into a plain field and hides what is typed into a credential's (text or a number), which reaches the server", async () => {
    const [token, accessKey] = ['dpl_typed_7c6b5a4d3e2f1a0b', 'wJalrXUtnFEMI/K7MDENG/typedKEY'];
    bed = await startTestbed(bundle.bundle, { '.mcp.json': MCP }, [
      toolCalls([{ id: 'd1', name: 'mcp__deploy__deploy', arguments: {} }]),
      text('done'),
    ]);
    const args = ['deploy it', '--cwd', bed.workspace.dir, '--base-url', bed.server.url, '--model', SCRIPTED_MODEL_ID];
    const { code, output } = await runOnTerminal(
      bundle.bundle,
      bed,
      [...args, '--allowed-tools', 'mcp__deploy'],
      [
        { prompt: 'Answer? [a]nswer', line: 'a' },
        { prompt: 'Environment (', line: 'staging' },
        { prompt: 'Deploy token (', line: token },
        { prompt: 'secretAccessKey (', line: accessKey },
        { prompt: 'replicas (', line: '2' },
        { prompt: 'PIN (', line: '4821' },
        // A number, typed unseen as well.
        { prompt: 'Backup code (', line: '83920175' },
      ],
    );
    expect(code, output).toBe(0);
    // The terminal echoed the plain answers as they were typed.
    expect(output).toMatch(/Environment \([^)]*\): staging\r?\n/);
    expect(output).toMatch(/replicas \([^)]*\): 2\r?\n/);
    expect(output).not.toContain(token);
    expect(output).not.toContain(accessKey);
    expect(output).not.toContain('4821');
    expect(output).not.toContain('83920175');
    // The server got them: the answer holds a PIN, so its echo of it is withheld from the model.
    expect(toolMessageSent(bed.server, 'd1')).toMatch(/^\[result withheld: the server was given a PIN/);
  }, 60_000);

  it('turns echo back on when Ctrl-\\ ends the run while a credential is being typed', async () => {
    bed = await startTestbed(bundle.bundle, { '.mcp.json': MCP }, [toolCalls([{ id: 'd1', name: 'mcp__deploy__deploy', arguments: {} }])]);
    const args = ['deploy it', '--cwd', bed.workspace.dir, '--base-url', bed.server.url, '--model', SCRIPTED_MODEL_ID];
    const { output } = await runOnTerminal(
      bundle.bundle,
      bed,
      [...args, '--allowed-tools', 'mcp__deploy'],
      [
        { prompt: 'Answer? [a]nswer', line: 'a' },
        { prompt: 'Environment (', line: 'staging' },
        // What Ctrl-\ sends: the CLI has no `exit` event then.
        { prompt: 'Deploy token (', signal: 'SIGQUIT' },
      ],
      // The shell outlives the signal (a trap, not an ignore, which the CLI would inherit), then shows the terminal's modes.
      { before: "trap 'true' QUIT; ", after: '; stty -a' },
    );
    expect(output).toMatch(/[\s;]-?echo[\s;]/);
    expect(output).not.toMatch(/[\s;]-echo[\s;]/);
  }, 60_000);
});
