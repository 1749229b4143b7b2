import { MIN_SECRET_VALUE_LENGTH } from './audit/redactor';

/**
 * Which variables of an environment hold credentials. The Bash tool's shell does not inherit
 * them (unless the user passes one by name), and their values are registered with the
 * redactor so that they never reach the model, the transcript or a log.
 */

// One of these words anywhere in the name, alone or ending a longer word (PGPASSWORD, ACCESSTOKEN):
// GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY, GOOGLE_APPLICATION_CREDENTIALS; TOKENIZERS_PARALLELISM holds no token.
// A webhook's URL is its secret (SLACK_WEBHOOK_URL).
const SECRET_WORD = /(?:^|_)[A-Z0-9]*(?:TOKENS?|SECRETS?|PASSWORDS?|PASSWD|PASSPHRASE|CREDENTIALS?|COOKIES?|WEBHOOKS?)(?:_|$)/i;
// A word of the name, last or followed by a qualifier (OPENAI_API_KEY_BACKUP, STRIPE_KEY_LIVE, DB_PASS_PROD):
// OPENAI_API_KEY, STRIPE_KEY, SENTRY_DSN, DB_PASS, SSHPASS (what `sshpass -e` reads); not when the qualifier
// says the value describes the key rather than holds it (AWS_ACCESS_KEY_ID, CACHE_KEY_PREFIX, SSH_KEY_PATH).
// Only as the last word: MYSQL_PWD (but not PWD or OLDPWD), BASIC_AUTH (not SSH_AUTH_SOCK, the agent's socket,
// which git over ssh needs), GITHUB_PAT (a personal access token).
const KEY_DESCRIPTION = 'IDS?|PREFIX|SUFFIX|NAMES?|SEPARATOR|PATH|FILE|DIR|TYPE|SIZE|LENGTH|FORMAT|VERSION|ALIAS|REF|ARN';
const SECRET_SUFFIX = new RegExp(
  `(?:^|_)(?:API_?KEY|KEY|DSN|(?:SSH)?PASS)(?:_(?!(?:${KEY_DESCRIPTION})(?:_|$))|$)|(?:^|_)(?:AUTH|PAT)$|.+_PWD$`,
  'i',
);
// PRIVATE_KEY anywhere (MY_PRIVATE_KEY_PEM), connection strings, which carry a key or a password
// (AZURE_STORAGE_CONNECTION_STRING), registry logins (DOCKER_AUTH_CONFIG), npm's auth settings
// (NPM_AUTH_TOKEN, NPM_CONFIG__AUTH), the OTLP exporter's headers, which carry the collector's key
// (OTEL_EXPORTER_OTLP_TRACES_HEADERS), and password managers' unlocked sessions (BW_SESSION, OP_SESSION_my);
// not every *_SESSION: DESKTOP_SESSION names the desktop.
const SECRET_PREFIX_OR_PART =
  /PRIVATE_?KEY|CONNECTION_?STRINGS?|AUTH_?CONFIG|^NPM_(?:CONFIG_+)?AUTH|^OTEL_EXPORTER_OTLP_(?:[A-Z]+_)?HEADERS$|^BW_SESSION$|^OP_SESSION_/i;

// Names a git setting, whose value (GIT_CONFIG_VALUE_n) may be one: git fails every command when a key is missing for its count.
const GIT_CONFIG_KEY = /^GIT_CONFIG_KEY_\d+$/;

export function isSecretEnvName(name: string): boolean {
  if (GIT_CONFIG_KEY.test(name)) return false;
  return SECRET_WORD.test(name) || SECRET_SUFFIX.test(name) || SECRET_PREFIX_OR_PART.test(name);
}

/** The password of a URL with user info (`postgres://user:pw@host/db`), as written (percent-encoded), if it has one. */
export function urlPassword(value: string): string | undefined {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^\s/@]*:[^\s/@]*@/i.test(value)) return undefined;
  try {
    const password = new URL(value).password;
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}

/** A secret-named variable, or one whose value is a URL carrying a password (DATABASE_URL, HTTPS_PROXY). */
export function isSecretEnvEntry(name: string, value: string | undefined): boolean {
  return isSecretEnvName(name) || (value !== undefined && urlPassword(value) !== undefined);
}

// A file path (GOOGLE_APPLICATION_CREDENTIALS=/home/me/key.json) points at a secret but is none:
// redacting it would hide every mention of that folder from the model.
const FILE_PATH = /^(?:~|\.{1,2})?\/[\w./-]*$/;

/**
 * The secret values of an environment, for the redactor: every secret-named variable's value
 * (unless it is a file path), and the password of every URL-valued one (its whole value too
 * when the name is secret). Values under MIN_SECRET_VALUE_LENGTH are left out.
 */
export function secretEnvValues(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (isSecretEnvName(name) && !FILE_PATH.test(value.trim())) values.add(value.trim());
    const password = urlPassword(value.trim());
    if (password !== undefined) values.add(password).add(decodedUrlPart(password));
  }
  return [...values].filter((v) => v.length >= MIN_SECRET_VALUE_LENGTH);
}

/** A URL's part percent-decoded, or as written when it is no valid encoding. */
export function decodedUrlPart(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
