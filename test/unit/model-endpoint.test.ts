import { describe, expect, it } from 'vitest';
import { checkModelEndpoint, isLoopbackUrl } from '../../src/core/agent/llm/model-endpoint';

describe('checkModelEndpoint', () => {
  it('names each missing or bad part, in the order a person fixes them', () => {
    expect(checkModelEndpoint({ baseURL: undefined, model: 'm', apiKey: 'k' })).toEqual({ ok: false, problem: { kind: 'no-base-url' } });
    expect(checkModelEndpoint({ baseURL: '', model: 'm', apiKey: 'k' })).toEqual({ ok: false, problem: { kind: 'no-base-url' } });
    expect(checkModelEndpoint({ baseURL: 'api.openai.com/v1', model: undefined, apiKey: undefined })).toEqual({
      ok: false,
      problem: { kind: 'not-a-url', baseURL: 'api.openai.com/v1' },
    });
    expect(checkModelEndpoint({ baseURL: 'ftp://127.0.0.1/v1', model: 'm', apiKey: 'k' })).toEqual({
      ok: false,
      problem: { kind: 'not-http', baseURL: 'ftp://127.0.0.1/v1' },
    });
    expect(checkModelEndpoint({ baseURL: 'https://h.test/v1', model: '', apiKey: 'k' })).toEqual({
      ok: false,
      problem: { kind: 'no-model', baseURL: 'https://h.test/v1' },
    });
    expect(checkModelEndpoint({ baseURL: 'https://h.test/v1', model: 'm', apiKey: undefined })).toEqual({
      ok: false,
      problem: { kind: 'no-api-key', baseURL: 'https://h.test/v1' },
    });
  });

  it('a server on this machine needs no key, and the endpoint carries none', () => {
    for (const baseURL of ['http://127.0.0.1:11434/v1', 'http://localhost:1234/v1', 'http://[::1]:8080/v1', 'http://127.9.8.7/v1']) {
      const check = checkModelEndpoint({ baseURL, model: 'm', apiKey: undefined });
      expect(check).toEqual({ ok: true, endpoint: { baseURL, model: 'm' } });
      expect(check.ok && 'apiKey' in check.endpoint).toBe(false);
    }
    expect(checkModelEndpoint({ baseURL: 'https://h.test/v1', model: 'm', apiKey: 'k' })).toEqual({
      ok: true,
      endpoint: { baseURL: 'https://h.test/v1', model: 'm', apiKey: 'k' },
    });
  });

  it('a host that only looks local is remote: the key is still required', () => {
    for (const url of [
      'http://127.0.0.1.h.test/v1',
      'http://localhost@h.test/v1',
      'http://localhost.h.test/v1',
      'http://127.0.0.1x/v1',
      'http://[::ffff:127.0.0.1]/v1',
    ]) {
      expect(isLoopbackUrl(new URL(url)), url).toBe(false);
      expect(checkModelEndpoint({ baseURL: url, model: 'm', apiKey: undefined }), url).toMatchObject({
        ok: false,
        problem: { kind: 'no-api-key' },
      });
    }
  });
});
