import { describe, expect, it } from 'vitest';
import { HOOK_EVENTS } from '../../src/core/hooks/events';
import { validatePayload } from '../../src/core/hooks/payloads';
import { samplePayload, toolNameFromMatcher } from '../../src/shared/sample-payload';

describe('samplePayload', () => {
  it.each(HOOK_EVENTS)('%s: the sample passes the engine payload schema', (event) => {
    const payload = samplePayload(event);
    expect(payload.hook_event_name).toBe(event);
    expect(validatePayload(event, payload)).toEqual({ ok: true });
    // The editor shows it as JSON: it must survive a round trip.
    expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
  });

  it.each(['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep', 'TodoWrite', 'Task', 'mcp__github__create_issue'])(
    'tool events carry a %s input and response',
    (tool) => {
      for (const event of ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied'] as const) {
        const payload = samplePayload(event, tool);
        expect(payload.tool_name).toBe(tool);
        expect(validatePayload(event, payload)).toEqual({ ok: true });
      }
    },
  );

  it('uses the input shape of the named tool', () => {
    expect(samplePayload('PreToolUse', 'Bash').tool_input).toMatchObject({ command: expect.any(String) });
    expect(samplePayload('PreToolUse', 'Edit').tool_input).toMatchObject({
      file_path: expect.any(String),
      old_string: expect.any(String),
      new_string: expect.any(String),
    });
    expect(samplePayload('PostToolUse', 'Bash').tool_response).toMatchObject({
      stdout: expect.any(String),
      stderr: '',
      interrupted: false,
    });
  });

  it('takes the session and workspace from the context', () => {
    const payload = samplePayload('Stop', undefined, { sessionId: 's-9', cwd: '/w/p', transcriptPath: '/w/t.jsonl' });
    expect(payload).toMatchObject({ session_id: 's-9', cwd: '/w/p', transcript_path: '/w/t.jsonl', stop_hook_active: false });
  });
});

describe('toolNameFromMatcher', () => {
  it('takes a plain tool name or the first alternative, and nothing from patterns', () => {
    expect(toolNameFromMatcher('Bash')).toBe('Bash');
    expect(toolNameFromMatcher('Edit|Write')).toBe('Edit');
    expect(toolNameFromMatcher('mcp__github__create_issue')).toBe('mcp__github__create_issue');
    expect(toolNameFromMatcher('*')).toBeUndefined();
    expect(toolNameFromMatcher('')).toBeUndefined();
    expect(toolNameFromMatcher('mcp__.*')).toBeUndefined();
    expect(toolNameFromMatcher(undefined)).toBeUndefined();
  });
});
