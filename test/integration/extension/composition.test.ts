import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type * as vscode from 'vscode';
import { afterEach, describe, expect, it } from 'vitest';
import { activate, deactivate } from '../../../src/extension/extension';
import { stub } from '../../support/vscode-stub';
import { makeWorkspace } from '../../support/workspace';
import { repoRoot } from './extension-harness';

interface Contributes {
  commands: { command: string; title: string; category: string }[];
  views: Record<string, { id: string; type: string }[]>;
  viewsContainers: { activitybar: { id: string; title: string }[] };
  jsonValidation: { fileMatch: string; url: string }[];
}

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  contributes: Contributes;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
};

const cleanups: (() => void)[] = [];
afterEach(async () => {
  await deactivate();
  for (const c of cleanups.splice(0)) c();
});

function freshWindow() {
  stub.reset();
  const workspace = makeWorkspace({
    '.vscode/hooks.json': JSON.stringify({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', name: 'noop' }] }] },
    }),
  });
  const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-storage-'));
  cleanups.push(() => {
    workspace.cleanup();
    rmSync(storage, { recursive: true, force: true });
  });
  stub.setWorkspaceFolders([workspace.dir]);
  return stub.context(storage, repoRoot);
}

describe('activation', () => {
  it('registers every contributed command, the chat view, the status bar and the diagnostics', async () => {
    const context = freshWindow();
    await activate(context as unknown as vscode.ExtensionContext);

    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    expect([...stub.state.commands.keys()].sort()).toEqual(contributed);
    for (const id of contributed) expect(manifest.activationEvents).toContain(`onCommand:${id}`);
    expect(stub.state.viewProviders.has('hookpilot.chat')).toBe(true);
    expect(manifest.contributes.views.hookpilot).toEqual([expect.objectContaining({ id: 'hookpilot.chat', type: 'webview' })]);
    expect(manifest.contributes.viewsContainers.activitybar).toEqual([expect.objectContaining({ id: 'hookpilot', title: 'Hookpilot' })]);
    expect(stub.state.statusBarItems[0]).toMatchObject({
      visible: true,
      command: 'hookpilot.openHookManager',
      text: expect.stringContaining('1 hook'),
    });
    expect(stub.state.logLines.some((l) => l.message.includes('Hookpilot is ready'))).toBe(true);
  });

  it('disposes everything it registered on deactivate', async () => {
    const context = freshWindow();
    await activate(context as unknown as vscode.ExtensionContext);
    await stub.state.commands.get('hookpilot.openHookManager')?.();
    expect(stub.state.registrations.active).toBeGreaterThan(0);

    await deactivate();
    for (const s of context.subscriptions) s.dispose();
    expect(stub.state.registrations.active).toBe(0);
    expect(stub.state.commands.size).toBe(0);
    expect(stub.state.viewProviders.size).toBe(0);
    expect(stub.state.statusBarItems.every((i) => i.disposed)).toBe(true);
    expect(stub.state.watchers.every((w) => w.disposed)).toBe(true);
    expect(stub.state.panels.every((p) => p.disposedFlag)).toBe(true);
    expect(stub.state.configChanged.listenerCount).toBe(0);
  });

  it('declares limited support for untrusted workspaces and the hooks.json schema', () => {
    expect(manifest.capabilities.untrustedWorkspaces.supported).toBe('limited');
    expect(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations).toEqual(
      expect.arrayContaining(['hookpilot.hooks', 'hookpilot.baseUrl', 'hookpilot.permissions', 'hookpilot.permissionMode']),
    );
    expect(manifest.activationEvents).toEqual(expect.arrayContaining(['onView:hookpilot.chat', 'workspaceContains:.vscode/hooks.json']));
    const schema = manifest.contributes.jsonValidation[0];
    expect(schema.fileMatch).toBe('**/.vscode/hooks.json');
    expect(JSON.parse(readFileSync(path.join(repoRoot, schema.url), 'utf8'))).toHaveProperty('properties.hooks');
  });
});
