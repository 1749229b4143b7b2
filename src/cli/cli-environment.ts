import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { displayUrl } from '../core/agent/llm/display-url';
import { checkModelEndpoint, type EndpointProblem, type ModelEndpoint } from '../core/agent/llm/model-endpoint';
import { settingValue } from '../core/hooks/config/setting-value';
import { readSettingsFile } from '../core/hooks/config/workspace-config-files';
import { secretEnvValues } from '../core/secret-env-names';
import { usageError } from './cli-error';

export type { ModelEndpoint };

const EXAMPLES = 'OpenAI: https://api.openai.com/v1, Ollama: http://127.0.0.1:11434/v1, LM Studio: http://127.0.0.1:1234/v1';

/** Where the model is and how to reach it, from flags first, then the environment. */
export function resolveModelEndpoint(flags: { baseUrl?: string; model?: string }, env: NodeJS.ProcessEnv): ModelEndpoint {
  const check = checkModelEndpoint({
    baseURL: flags.baseUrl ?? nonEmpty(env.HOOKPILOT_BASE_URL),
    model: flags.model ?? nonEmpty(env.HOOKPILOT_MODEL),
    apiKey: apiKeyOf(env),
  });
  if (check.ok) return check.endpoint;
  throw usageError(endpointUsageMessage(check.problem));
}

function apiKeyOf(env: NodeJS.ProcessEnv): string | undefined {
  return nonEmpty(env.HOOKPILOT_API_KEY) ?? nonEmpty(env.OPENAI_API_KEY);
}

/**
 * The secrets of this CLI invocation: the model's API key and the values of secret-looking
 * variables. Every command registers them with its redactor, whatever it prints or logs.
 */
export function cliSecretValues(env: NodeJS.ProcessEnv): string[] {
  const apiKey = apiKeyOf(env);
  return [...(apiKey ? [apiKey] : []), ...secretEnvValues(env)];
}

function endpointUsageMessage(problem: EndpointProblem): string {
  switch (problem.kind) {
    case 'no-base-url':
      return `no model server: pass --base-url URL or set HOOKPILOT_BASE_URL (${EXAMPLES})`;
    case 'not-a-url':
      return `the base URL "${displayUrl(problem.baseURL)}" is not a URL (${EXAMPLES})`;
    case 'not-http':
      return `the base URL "${displayUrl(problem.baseURL)}" must start with http:// or https://`;
    case 'no-model':
      return 'no model name: pass --model NAME or set HOOKPILOT_MODEL (e.g. gpt-4.1, or qwen2.5-coder:7b on Ollama)';
    case 'no-api-key':
      return `${displayUrl(problem.baseURL)} is not on this machine and needs an API key: set HOOKPILOT_API_KEY (or OPENAI_API_KEY)`;
  }
}

/** One folder per project (audit/, transcripts/, spill/, summaries/), named by a hash of its path. */
export function projectStorageDir(root: string, projectDir: string): string {
  let real = projectDir;
  try {
    real = realpathSync(projectDir);
  } catch {
    // A folder that does not exist yet still gets a stable name from its path.
  }
  const hash = createHash('sha256').update(real).digest('hex').slice(0, 16);
  const label =
    path
      .basename(real)
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .slice(0, 40) || 'root';
  return path.join(root, 'projects', `${label}-${hash}`);
}

/** HOOKPILOT_USER_SETTINGS, else VS Code's user settings.json for this platform. */
export function userSettingsFile(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const explicit = nonEmpty(env.HOOKPILOT_USER_SETTINGS);
  if (explicit) return explicit;
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(homedir(), 'AppData', 'Roaming'), 'Code', 'User', 'settings.json');
  if (platform === 'darwin') return path.join(homedir(), 'Library', 'Application Support', 'Code', 'User', 'settings.json');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(homedir(), '.config'), 'Code', 'User', 'settings.json');
}

const passEnvSchema = z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/));

/**
 * `hookpilot.tools.bash.passEnv` from the user's settings file, as in VS Code; never from the
 * workspace's settings, which a cloned repository controls. A bad value is ignored with a problem.
 */
export function userPassEnv(settingsFile: string): { names: string[]; problem?: string } {
  const value = settingValue(readSettingsFile(settingsFile).settings, 'hookpilot.tools.bash.passEnv');
  if (value === undefined) return { names: [] };
  const parsed = passEnvSchema.safeParse(value);
  if (parsed.success) return { names: parsed.data };
  return { names: [], problem: `${settingsFile}: hookpilot.tools.bash.passEnv must be a list of variable names; it is ignored` };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value.trim() : undefined;
}
