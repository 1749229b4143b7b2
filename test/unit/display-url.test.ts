import { APIConnectionError } from 'openai';
import { describe, expect, it } from 'vitest';
import { displayUrl } from '../../src/core/agent/llm/display-url';
import { requestErrorToModelError } from '../../src/core/agent/llm/openai-error-mapping';

describe('a base URL in a message', () => {
  it('loses its user info, query and fragment, even when it is no valid URL', () => {
    expect(displayUrl('http://alice:s3cr3t@127.0.0.1:9/v1?api_key=k#f')).toBe('http://127.0.0.1:9/v1');
    expect(displayUrl('https://token@example.com/v1')).toBe('https://example.com/v1');
    expect(displayUrl('http://a:b@c@[bad/v1')).toBe('http://[bad/v1');
    expect(displayUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1');
  });

  it('a connection error names the endpoint and quotes its cause without the credentials', () => {
    const baseURL = 'http://alice:s3cr3t@127.0.0.1:9/v1?key=k3y';
    const cause = new TypeError(`Request cannot be constructed from a URL that includes credentials: ${baseURL}/chat/completions`);
    const error = requestErrorToModelError(new APIConnectionError({ cause }), { baseURL, timeoutMs: 1000 });
    expect(error.message).toBe(
      'cannot reach the model at http://127.0.0.1:9/v1: Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:9/v1',
    );
  });
});
