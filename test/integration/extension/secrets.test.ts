import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { text, toolCalls } from '../../support/model-server';
import { stub } from '../../support/vscode-stub';
import { cleanEnv, postedText, startChat, type ChatHarness } from './extension-harness';

// In VS Code too, the model's shell gets no secret the user did not pass by name (from the
// user's settings only), and what the model, the transcript and the chat see is redacted.

const GITHUB_TOKEN = 'gh-token-ext-0a9b8c7d6e';
const NPM_AUTH_TOKEN = 'npm-auth-ext-2k3j4h5g';

let h: ChatHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  vi.unstubAllEnvs();
});

describe('secrets in the extension', () => {
  it('hookpilot.tools.bash.passEnv from user settings passes a variable to Bash; a workspace value is ignored; the model sees it redacted', async () => {
    const command = 'echo "gh=$GITHUB_TOKEN npm=$NPM_AUTH_TOKEN" | tee seen.txt';
    // The extension host's own environment, which the agent's tools start from.
    vi.stubEnv('GITHUB_TOKEN', GITHUB_TOKEN);
    vi.stubEnv('NPM_AUTH_TOKEN', NPM_AUTH_TOKEN);
    h = await startChat({}, [toolCalls([{ id: 'gh', name: 'Bash', arguments: { command } }]), text('Done.')], {
      env: cleanEnv(),
      setup: () => {
        stub.setConfig('hookpilot.permissions', { allow: ['Bash'] });
        stub.setConfig('hookpilot.tools.bash.passEnv', ['GITHUB_TOKEN']);
        stub.setConfig('hookpilot.tools.bash.passEnv', ['GITHUB_TOKEN', 'NPM_AUTH_TOKEN'], 'workspaceValue');
      },
    });
    await h.prompt('use gh');
    expect(readFileSync(h.workspace.file('seen.txt'), 'utf8')).toBe(`gh=${GITHUB_TOKEN} npm=\n`);
    const sent = JSON.stringify(h.server.requests.map((r) => r.body));
    expect(sent).toContain('gh=[REDACTED:secret_value] npm=');
    for (const where of [sent, postedText(h.webview), ...transcripts(h.storageDir)]) {
      expect(where).not.toContain(GITHUB_TOKEN);
      expect(where).not.toContain(NPM_AUTH_TOKEN);
    }
  });
});

function transcripts(storageDir: string): string[] {
  const dir = join(storageDir, 'transcripts');
  return readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'));
}
