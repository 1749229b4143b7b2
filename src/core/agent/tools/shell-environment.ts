import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Variable names a command should not inherit: API keys, tokens, secrets and passwords
 * (OPENAI_API_KEY, GITHUB_TOKEN, CLIENT_SECRET, AWS_SECRET_ACCESS_KEY, DB_PASSWORD).
 */
const SECRET_NAME = /(?:^|_)(?:API_KEY|TOKEN|SECRET|PASSWORD)$|(?:^|_)SECRET_/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A copy of `env` without the variables that look like credentials. */
export function envWithoutSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !isSecretName(name)));
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** bash from the command's PATH, else the POSIX shell every system has. */
export function resolveShell(env: NodeJS.ProcessEnv): string {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'bash');
    if (isExecutableFile(candidate)) return candidate;
  }
  return '/bin/sh';
}
