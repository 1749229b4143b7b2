import { describe, expect, it } from 'vitest';
import { toTimelineRow } from '../../webview-ui/manager/timeline-rows';

describe('timeline row of a permission_required record', () => {
  it('names the event, the tool and the permission, with the hook for the hook filter and no decision badge (advisory)', () => {
    const row = toTimelineRow({
      ts: '2025-05-01T09:00:00.000Z',
      session_id: 's1',
      seq: 7,
      type: 'permission_required',
      tool_name: 'Bash',
      tool_use_id: 'b1',
      permission: 'network access',
      hook_name: 'net-auditor',
    });
    expect(row).toMatchObject({
      event: 'PermissionRequired',
      subject: 'Bash · network access',
      hookName: 'net-auditor',
      badge: 'none',
      decisionText: 'advisory',
    });
  });
});
