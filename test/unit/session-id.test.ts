import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Transcript } from '../../src/core/agent/transcript';
import { receiveChatToHost } from '../../src/shared/chat-protocol';

const TRAVERSALS = ['../../x/planted', '..', '.', 'a/b', 'a\\b', '/etc/passwd', 'x\0y', ''];

describe('session ids that name a file', () => {
  it('a transcript path is only ever built inside its folder', () => {
    const dir = path.join('/storage', 'transcripts');
    expect(Transcript.pathFor(dir, 'e3b0c442-98fc-4c14-9afb-f4c8996fb924')).toBe(
      path.join(dir, 'e3b0c442-98fc-4c14-9afb-f4c8996fb924.jsonl'),
    );
    for (const id of TRAVERSALS) expect(() => Transcript.pathFor(dir, id), JSON.stringify(id)).toThrow(/invalid session id/);
  });

  it("the chat webview's resume is refused on receipt for an id that is not one", () => {
    expect(receiveChatToHost({ type: 'resume', sessionId: 'replay-1.2_x' })).toMatchObject({ ok: true });
    for (const sessionId of TRAVERSALS)
      expect(receiveChatToHost({ type: 'resume', sessionId }), JSON.stringify(sessionId)).toMatchObject({ ok: false });
  });
});
