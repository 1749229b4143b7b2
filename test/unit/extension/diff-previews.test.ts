import { describe, expect, it } from 'vitest';
import { proposedContent } from '../../../src/extension/diff-previews';

const SECRET = 'ghp_0123456789abcdefABCDEF0123456789abcd';
const hide = (text: string) => text.replaceAll(SECRET, '[REDACTED:github_token]');

describe('proposedContent', () => {
  it('computes an Edit as the tool does with the redactor: an old_string inside a hidden secret does not apply', () => {
    const file = `TOKEN=${SECRET}\nmode=dev\n`;
    const guess = { file_path: '.env', old_string: 'ghp_0123', new_string: 'x' };
    expect(proposedContent('Edit', guess, file, hide)).toMatchObject({ ok: false, error: expect.stringContaining('not found') });
    expect(proposedContent('Edit', guess, file)).toMatchObject({ ok: true });
    expect(proposedContent('Edit', { file_path: '.env', old_string: 'mode=dev', new_string: 'mode=prod' }, file, hide)).toEqual({
      ok: true,
      text: `TOKEN=${SECRET}\nmode=prod\n`,
    });
  });
});
