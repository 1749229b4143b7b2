import { describe, expect, it } from 'vitest';
import { configChangeSource, configChangeVerdict, describeBlockedChange } from '../../src/core/hooks/config-change';
import { emptyResult, type DispatchResult } from '../../src/core/hooks/dispatch-result';
import { validatePayload } from '../../src/core/hooks/payloads';
import { samplePayload } from '../../src/shared/sample-payload';

const PROJECT = '/home/dev/project';
const where = { projectDirs: [PROJECT, '/home/dev/second'] };

function blockedBy(hookName: string, reason: string): DispatchResult {
  return { ...emptyResult('ConfigChange', 'd1'), blocked: true, blockReason: reason, blockingErrors: [{ hookName, reason }] };
}

describe('ConfigChange source of a configuration file', () => {
  it.each([
    [`${PROJECT}/.vscode/hooks.json`, 'project_settings'],
    [`${PROJECT}/.vscode/settings.json`, 'project_settings'],
    [`${PROJECT}/.claude/settings.json`, 'project_settings'],
    ['/home/dev/second/.vscode/hooks.json', 'project_settings'],
    [`${PROJECT}/.claude/settings.local.json`, 'local_settings'],
    ['/home/dev/.config/hookpilot/settings.json', 'user_settings'],
    ['/home/dev/.config/Code/User/settings.json', 'user_settings'],
    ['/home/dev/.claude/settings.json', 'user_settings'],
    ['/etc/hookpilot/managed-settings.json', 'policy_settings'],
    ['/etc/hookpilot/managed-settings.d/10-team.json', 'policy_settings'],
  ])('%s is %s', (file, source) => {
    expect(configChangeSource(file, where)).toBe(source);
  });

  it('a path that only looks like the workspace (a sibling with the same prefix, or ../ out of it) is not the project', () => {
    expect(configChangeSource(`${PROJECT}-evil/.vscode/hooks.json`, where)).toBe('user_settings');
    expect(configChangeSource(`${PROJECT}/../other/.vscode/hooks.json`, where)).toBe('user_settings');
    expect(configChangeSource('/etc/hookpilot-not/managed-settings.json', where)).toBe('user_settings');
  });

  it('policy paths can be given (a test or another platform)', () => {
    expect(configChangeSource('/opt/policy/managed-settings.json', { ...where, policyPaths: ['/opt/policy'] })).toBe('policy_settings');
  });
});

describe('ConfigChange verdict', () => {
  it('no hook blocked: the change applies, with the warnings of hooks that failed', () => {
    const result = { ...emptyResult('ConfigChange', 'd1'), warnings: ['hook "x" failed: boom'] };
    expect(configChangeVerdict(result, 'project_settings')).toEqual({ blocked: false, warnings: ['hook "x" failed: boom'] });
  });

  it.each(['project_settings', 'local_settings', 'user_settings'] as const)(
    'a block keeps a %s change out, naming the hook and its reason',
    (source) => {
      const verdict = configChangeVerdict(blockedBy('keep-guard', 'the rm guard must stay'), source);
      expect(verdict).toEqual({ blocked: true, hookName: 'keep-guard', reason: 'the rm guard must stay', warnings: [] });
      if (!verdict.blocked) throw new Error('expected a block');
      expect(describeBlockedChange('.vscode/hooks.json', verdict)).toBe(
        'ConfigChange hook "keep-guard" blocked the change to .vscode/hooks.json: the rm guard must stay',
      );
    },
  );

  it('a policy change cannot be blocked: the block becomes a warning', () => {
    expect(configChangeVerdict(blockedBy('keep-guard', 'no'), 'policy_settings')).toEqual({
      blocked: false,
      warnings: ['hook "keep-guard" tried to block a policy change, which cannot be blocked: no'],
    });
  });
});

describe('ConfigChange payload', () => {
  it('the sample passes the schema; a source Hookpilot never sends (skills) does not', () => {
    const sample = samplePayload('ConfigChange');
    expect(sample).toMatchObject({
      hook_event_name: 'ConfigChange',
      source: 'project_settings',
      file_path: '/home/user/project/.vscode/hooks.json',
    });
    expect(validatePayload('ConfigChange', sample)).toEqual({ ok: true });
    expect(validatePayload('ConfigChange', { ...sample, new_content: null })).toEqual({ ok: true });
    expect(validatePayload('ConfigChange', { ...sample, source: 'skills' }).ok).toBe(false);
  });
});
