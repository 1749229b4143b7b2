import { describe, expect, it } from 'vitest';
import { resolveModelEndpoint } from '../../src/cli/cli-environment';
import { CliError, EXIT } from '../../src/cli/cli-error';

const EXAMPLES = 'OpenAI: https://api.openai.com/v1, Ollama: http://127.0.0.1:11434/v1, LM Studio: http://127.0.0.1:1234/v1';

function usageMessage(flags: { baseUrl?: string; model?: string }, env: NodeJS.ProcessEnv): string {
  try {
    resolveModelEndpoint(flags, env);
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    return (error as CliError).message;
  }
  throw new Error('resolved');
}

describe('resolveModelEndpoint (CLI)', () => {
  it('words each problem for the terminal, naming the flag or variable that fixes it', () => {
    expect(usageMessage({ model: 'm' }, { HOOKPILOT_BASE_URL: '  ' })).toBe(
      `no model server: pass --base-url URL or set HOOKPILOT_BASE_URL (${EXAMPLES})`,
    );
    expect(usageMessage({ baseUrl: 'nope' }, {})).toBe(`the base URL "nope" is not a URL (${EXAMPLES})`);
    expect(usageMessage({ baseUrl: 'file:///v1' }, {})).toBe('the base URL "file:///v1" must start with http:// or https://');
    expect(usageMessage({ baseUrl: 'http://127.0.0.1:9/v1' }, {})).toBe(
      'no model name: pass --model NAME or set HOOKPILOT_MODEL (e.g. gpt-4.1, or qwen2.5-coder:7b on Ollama)',
    );
    expect(usageMessage({}, { HOOKPILOT_BASE_URL: 'https://h.test/v1', HOOKPILOT_MODEL: 'gpt-4.1', OPENAI_API_KEY: ' ' })).toBe(
      'https://h.test/v1 is not on this machine and needs an API key: set HOOKPILOT_API_KEY (or OPENAI_API_KEY)',
    );
  });

  it('flags win over the environment; HOOKPILOT_API_KEY over OPENAI_API_KEY', () => {
    const env = {
      HOOKPILOT_BASE_URL: 'https://env.test/v1',
      HOOKPILOT_MODEL: 'env-model',
      HOOKPILOT_API_KEY: ' k1 ',
      OPENAI_API_KEY: 'k2',
    };
    expect(resolveModelEndpoint({ baseUrl: 'https://flag.test/v1', model: 'flag-model' }, env)).toEqual({
      baseURL: 'https://flag.test/v1',
      model: 'flag-model',
      apiKey: 'k1',
    });
    expect(resolveModelEndpoint({}, { ...env, HOOKPILOT_API_KEY: '' })).toEqual({
      baseURL: 'https://env.test/v1',
      model: 'env-model',
      apiKey: 'k2',
    });
  });
});
