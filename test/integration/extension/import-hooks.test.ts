import { existsSync, readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { stub } from '../../support/vscode-stub';
import { startHost, type HostHarness } from './extension-harness';

const CLAUDE_SETTINGS = JSON.stringify({
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '${CLAUDE_PROJECT_DIR}/.claude/hooks/guard.sh', timeout: 20 }] }],
  },
});

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('Import Hooks…', () => {
  it('shows the report, writes .vscode/hooks.json only after confirmation, and reloads', async () => {
    h = await startHost({ '.claude/settings.json': CLAUDE_SETTINGS, '.claude/hooks/guard.sh': '#!/bin/sh\nexit 0\n' });
    const hooksJson = h.workspace.file('.vscode/hooks.json');
    stub.state.answerQuickPick = () => 'All tools';
    stub.state.answerMessage = () => undefined;
    await stub.state.commands.get('hookpilot.importHooks')?.();
    expect(existsSync(hooksJson)).toBe(false);
    const confirm = stub.state.messages.find((m) => m.modal);
    expect(confirm?.message).toMatch(/Import 1 hook/);

    stub.state.answerMessage = (shown) => (shown.modal ? 'Import' : undefined);
    await stub.state.commands.get('hookpilot.importHooks')?.();
    expect(JSON.parse(readFileSync(hooksJson, 'utf8')).hooks.PreToolUse[0].matcher).toBe('Bash');
    const imported = h.root.engineHost.engine.registry.current().states.find((s) => s.hook.source.kind === 'hooksJson');
    expect(imported?.hook).toMatchObject({ event: 'PreToolUse', matcher: 'Bash', timeoutMs: 20_000 });
  });
});
