import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';

let dir: string;
let engine: HookEngine | undefined;
afterEach(async () => {
  await engine?.dispose();
  engine = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("the user's own configuration files", () => {
  it('are protected paths before they exist: a program the model starts could create one', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'user-files-'));
    const home = path.join(dir, 'home');
    const project = path.join(dir, 'project');
    const userSettings = path.join(home, '.config', 'Code', 'User', 'settings.json');
    engine = new HookEngine({
      projectDir: project,
      storageDir: path.join(dir, 'storage'),
      trusted: true,
      env: { HOME: home },
      userSettingsFile: userSettings,
    });
    await engine.reload(loadWorkspaceConfigs(project, { userSettingsFile: userSettings, home }));
    const claudeUser = path.join(home, '.claude', 'settings.json');
    expect(existsSync(claudeUser)).toBe(false);
    expect(engine.protectedPaths()).toEqual(expect.arrayContaining([claudeUser, userSettings]));
  });

  it("are VS Code's profiles' settings and a remote host's machine settings too", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'user-files-'));
    const data = path.join(dir, '.vscode-server', 'data');
    const userSettings = path.join(data, 'User', 'settings.json');
    mkdirSync(path.join(data, 'User', 'profiles', '-5a3e1f'), { recursive: true });
    engine = new HookEngine({
      projectDir: path.join(dir, 'project'),
      storageDir: path.join(dir, 'storage'),
      trusted: true,
      userSettingsFile: userSettings,
    });
    await engine.reload([]);
    expect(engine.protectedPaths()).toEqual(
      expect.arrayContaining([
        userSettings,
        path.join(data, 'User', 'profiles', '-5a3e1f', 'settings.json'),
        path.join(data, 'Machine', 'settings.json'),
      ]),
    );
  });
});
