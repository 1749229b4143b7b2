import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };
let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.session.end();
  await h?.close();
  h = undefined;
});

// A direnv-like FileChanged hook: a large DIRENV_DIFF on every change of .envrc, and the person's
// token (ANSI-C quoted, as direnv writes values) once .envrc loads it.
const HOOK = `#!/usr/bin/env node
const fs = require('fs');
const envrc = fs.readFileSync('.envrc', 'utf8');
let out = "export DIRENV_DIFF=$'" + 'eJzsz'.repeat(4000) + "';\\n";
if (envrc.includes('vault')) out += "export DEPLOY_TOKEN=$'" + fs.readFileSync('../vault-token', 'utf8').trim() + "';\\n";
fs.appendFileSync(process.env.CLAUDE_ENV_FILE, out);
console.log(JSON.stringify({ systemMessage: 'exported' }));
`;

describe('secrets a FileChanged hook exports', () => {
  it('stay redacted after the model has rewritten the watched file many times', async () => {
    const config = hooksJson({ FileChanged: [{ matcher: '.envrc', hooks: [{ type: 'command', command: 'node hooks/direnv.js' }] }] });
    h = await startAgent(
      { 'hooks/direnv.js': HOOK, '.vscode/hooks.json': config, '.envrc': '# empty' },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'printf "%s\\n" "$DEPLOY_TOKEN"' } }]), text('done')],
      { session: bypass },
    );
    const token = 'tok_8f7e6d5c4b3a29180716abcd';
    writeFileSync(`${h.workspace.dir}/../vault-token`, token);
    const notices: string[] = [];
    h.session.onEvent((e) => {
      if (e.type === 'notice') notices.push(e.message);
    });
    // What the model's `for i in $(seq 8); do echo "# $i" > .envrc; sleep 1; done` does (20 KB of exports each time).
    for (let i = 1; i <= 8; i++) {
      writeFileSync(h.workspace.file('.envrc'), `# ${i}`);
      await vi.waitFor(() => expect(notices.filter((n) => n === 'exported')).toHaveLength(i), { timeout: 20_000 });
    }
    // Then the person's .envrc loads the deploy token.
    writeFileSync(h.workspace.file('.envrc'), 'export DEPLOY_TOKEN=$(vault read -field=token secret/deploy)');
    await vi.waitFor(() => expect(notices.filter((n) => n === 'exported')).toHaveLength(9), { timeout: 20_000 });
    expect(notices.filter((n) => n !== 'exported')).toEqual([]);
    expect((await h.session.prompt('show it')).reason).toBe('completed');
    const sent = toolMessageSent(h.server, 'b1') ?? '';
    expect(sent).toContain('[REDACTED:');
    expect(sent).not.toContain(token);
  }, 120_000);
});
