/**
 * Environment variable names that hold credentials: API keys, tokens, secrets and passwords
 * (OPENAI_API_KEY, GITHUB_TOKEN, CLIENT_SECRET, AWS_SECRET_ACCESS_KEY, DB_PASSWORD). Hook
 * processes, rpc servers and the Bash tool do not inherit them unless a hook's `env` names them.
 */
const SECRET_NAME = /(?:^|_)(?:API_KEY|TOKEN|SECRET|PASSWORD)$|(?:^|_)SECRET_/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}
