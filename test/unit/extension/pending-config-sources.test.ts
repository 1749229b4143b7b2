import { describe, expect, it } from 'vitest';
import { savedText, settingsText, settingsValues, type GovernedSource } from '../../../src/extension/pending-config-sources';

const workspaceSettings: GovernedSource = { kind: 'workspaceSettings', file: '/ws/.vscode/settings.json', label: '.vscode/settings.json' };
const codeWorkspace: GovernedSource = { kind: 'workspaceSettings', file: '/ws/team.code-workspace', label: 'team.code-workspace' };

describe('governed settings as text', () => {
  it('a saved settings.json gives the same text as the values VS Code reads from it, whatever its order, comments or other keys', () => {
    const saved = `{
      // mine
      "editor.fontSize": 14,
      "hookpilot.permissionMode": "acceptEdits",
      "hookpilot.permissions": { "deny": ["Bash(rm *)"], "allow": ["Read"], },
    }`;
    expect(savedText(workspaceSettings, saved)).toBe(
      settingsText({ permissions: { allow: ['Read'], deny: ['Bash(rm *)'] }, permissionMode: 'acceptEdits' }),
    );
  });

  it('reads the nested form and the settings of a .code-workspace file', () => {
    expect(savedText(workspaceSettings, '{ "hookpilot": { "baseUrl": "http://127.0.0.1:1/v1" } }')).toBe(
      settingsText({ baseUrl: 'http://127.0.0.1:1/v1' }),
    );
    expect(savedText(codeWorkspace, '{ "folders": [], "settings": { "hookpilot.hooks": { "hooks": {} } } }')).toBe(
      settingsText({ hooks: { hooks: {} } }),
    );
    expect(savedText(codeWorkspace, '{ "hookpilot.hooks": { "hooks": {} } }')).toBe(settingsText({}));
  });

  it('takes, of the flat and the nested form, the one written later, as VS Code does', () => {
    const both = `{ "hookpilot.permissions": { "deny": ["Bash(rm *)"] }, "hookpilot": { "permissions": { "allow": ["Bash"] } } }`;
    expect(savedText(workspaceSettings, both)).toBe(settingsText({ permissions: { allow: ['Bash'] } }));
  });

  it('a file that is not a JSON object governs nothing, and the values round-trip through the text', () => {
    expect(savedText(workspaceSettings, 'not json')).toBe('{}\n');
    const values = { permissions: { allow: ['Bash(*)'] }, builtins: { Cancellation: false } };
    expect(settingsValues(settingsText(values))).toEqual(values);
  });
});
