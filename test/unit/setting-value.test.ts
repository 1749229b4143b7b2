import { describe, expect, it } from 'vitest';
import { settingValue } from '../../src/core/hooks/config/setting-value';

describe('settingValue: a setting as VS Code reads a settings file', () => {
  it('reads the flat key, the nested form and any mix of the two', () => {
    const deny = { deny: ['Bash(rm *)'] };
    expect(settingValue({ 'hookpilot.permissions': deny }, 'hookpilot.permissions')).toEqual(deny);
    expect(settingValue({ hookpilot: { permissions: deny } }, 'hookpilot.permissions')).toEqual(deny);
    expect(settingValue({ 'hookpilot.tools': { bash: { passEnv: ['A'] } } }, 'hookpilot.tools.bash.passEnv')).toEqual(['A']);
    expect(settingValue({ hookpilot: { 'hooks.claudeSettings': 'off' } }, 'hookpilot.hooks.claudeSettings')).toBeUndefined();
    expect(settingValue({ 'hookpilot.permissions': deny }, 'hookpilot.permissionMode')).toBeUndefined();
  });

  it('a later key replaces what an earlier one put at its place; a deeper key adds to an object above it', () => {
    const flatFirst = { 'hookpilot.permissions': { deny: ['Read'] }, hookpilot: { permissions: { deny: ['Write'] } } };
    expect(settingValue(flatFirst, 'hookpilot.permissions')).toEqual({ deny: ['Write'] });
    const nestedFirst = {
      hookpilot: { permissions: { deny: ['Write'] }, permissionMode: 'plan' },
      'hookpilot.permissions': { deny: ['Read'] },
    };
    expect(settingValue(nestedFirst, 'hookpilot.permissions')).toEqual({ deny: ['Read'] });
    expect(settingValue(nestedFirst, 'hookpilot.permissionMode')).toBe('plan');
    // `hookpilot.hooks.claudeSettings` lands inside the `hookpilot.hooks` object, as in VS Code's settings model.
    const hooks = { 'hookpilot.hooks': { PreToolUse: [] }, 'hookpilot.hooks.claudeSettings': 'off' };
    expect(settingValue(hooks, 'hookpilot.hooks')).toEqual({ PreToolUse: [], claudeSettings: 'off' });
    expect(settingValue(hooks, 'hookpilot.hooks.claudeSettings')).toBe('off');
    expect(hooks['hookpilot.hooks']).toEqual({ PreToolUse: [] });
  });

  it('ignores a dotted key under a place that holds something other than an object, as VS Code does', () => {
    expect(settingValue({ hookpilot: 'x', 'hookpilot.permissions': { deny: [] } }, 'hookpilot.permissions')).toBeUndefined();
    expect(
      settingValue({ 'hookpilot.hooks': null, 'hookpilot.hooks.claudeSettings': 'off' }, 'hookpilot.hooks.claudeSettings'),
    ).toBeUndefined();
  });

  it('reads a setting of a file of 8,000 dotted keys under one object, each key placed once', () => {
    const settings: Record<string, unknown> = { 'hookpilot.permissions': { deny: ['Read'] } };
    for (let i = 0; i < 8_000; i++) settings[`hookpilot.x.k${i}`] = i;
    expect(settingValue(settings, 'hookpilot.permissions')).toEqual({ deny: ['Read'] });
    const x = settingValue(settings, 'hookpilot.x') as Record<string, unknown>;
    expect(Object.keys(x)).toHaveLength(8_000);
    expect(x.k7999).toBe(7_999);
  }, 10_000);
});
