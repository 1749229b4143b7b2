import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { persistAllowRule } from '../../src/cli/persist-allow-rule';
import { loadPermissions } from '../../src/cli/workspace-permissions';

let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

function layout(): { workspace: string; userSettings: string } {
  root = mkdtempSync(path.join(tmpdir(), 'hookpilot-persist-'));
  const workspace = path.join(root, 'repo');
  const userSettings = path.join(root, 'user', 'settings.json');
  mkdirSync(workspace);
  mkdirSync(path.dirname(userSettings));
  writeFileSync(userSettings, '{ "editor.fontSize": 14 }\n');
  return { workspace, userSettings };
}

describe('"Always allow" writes the workspace settings file', () => {
  it('adds the rule, keeping comments', async () => {
    const { workspace } = layout();
    mkdirSync(path.join(workspace, '.vscode'));
    writeFileSync(path.join(workspace, '.vscode/settings.json'), '{\n  // mine\n  "a": 1\n}\n');
    await persistAllowRule(workspace, 'Bash(npm test)');
    const text = readFileSync(path.join(workspace, '.vscode/settings.json'), 'utf8');
    expect(text).toContain('// mine');
    expect(text).toContain('"allow": [\n      "Bash(npm test)"');
  });

  it("adds the rule to VS Code's nested form when that is where the setting is, keeping its deny rules", async () => {
    const { workspace, userSettings } = layout();
    mkdirSync(path.join(workspace, '.vscode'));
    const file = path.join(workspace, '.vscode/settings.json');
    writeFileSync(file, JSON.stringify({ hookpilot: { permissions: { deny: ['Bash(rm *)'] } } }));
    await persistAllowRule(workspace, 'Bash(npm test)');
    expect(loadPermissions(workspace, userSettings, { allowedTools: [], disallowedTools: [] }, {}).settings).toMatchObject({
      allow: ['Bash(npm test)'],
      deny: ['Bash(rm *)'],
    });
  });

  it.each([
    [
      'settings.json is a link',
      (workspace: string, target: string) => {
        mkdirSync(path.join(workspace, '.vscode'));
        symlinkSync(target, path.join(workspace, '.vscode/settings.json'));
      },
    ],
    ['.vscode is a link', (workspace: string, target: string) => symlinkSync(path.dirname(target), path.join(workspace, '.vscode'))],
  ])('never through a link a repository planted (%s): the file it leads to is untouched', async (_, plant) => {
    const { workspace, userSettings } = layout();
    plant(workspace, userSettings);
    await expect(persistAllowRule(workspace, 'Bash(echo first)')).rejects.toThrow('is a link; the rule is not written through it');
    expect(readFileSync(userSettings, 'utf8')).toBe('{ "editor.fontSize": 14 }\n');
  });
});
