import { describe, expect, it } from 'vitest';
import { isSecretEnvEntry, isSecretEnvName, secretEnvValues, urlPassword } from '../../src/core/secret-env-names';

describe('secret-looking environment variables', () => {
  it.each([
    'OPENAI_API_KEY',
    'HOOKPILOT_API_KEY',
    'MY_APIKEY',
    'GITHUB_TOKEN',
    'GH_TOKEN',
    'AWS_SESSION_TOKEN',
    'ACCESSTOKEN',
    'NPM_AUTH_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'CLIENT_SECRET',
    'SECRET_KEY_BASE',
    'DB_PASSWORD',
    'PGPASSWORD',
    'MYSQL_PWD',
    'DB_PASS',
    'SMTP_PASSWD',
    'SENTRY_DSN',
    'MY_PRIVATE_KEY',
    'PRIVATE_KEY_PEM',
    'NPM_AUTH',
    'NPM_CONFIG__AUTH',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'OTEL_EXPORTER_OTLP_HEADERS',
    'OTEL_EXPORTER_OTLP_METRICS_HEADERS',
    'AWS_CREDENTIALS_FILE',
    'STRIPE_KEY',
    'BASIC_AUTH',
    'SESSION_COOKIE',
    'gpg_passphrase',
    'github_token',
    'GITHUB_PAT',
    'AZURE_DEVOPS_PAT',
    'BW_SESSION',
    'OP_SESSION_my',
    'AZURE_STORAGE_CONNECTION_STRING',
    'APPLICATIONINSIGHTS_CONNECTION_STRING',
    'DOCKER_AUTH_CONFIG',
    'SLACK_WEBHOOK_URL',
    'DISCORD_WEBHOOK',
    'DB_PASS_PROD',
    'OPENAI_API_KEY_BACKUP',
    'STRIPE_KEY_LIVE',
    'SENTRY_DSN_PROD',
    'SSHPASS',
    // Holds a folder, not a password: kept from the Bash tool as before (pass it with passEnv), its value never redacted.
    'PASSWORD_STORE_DIR',
  ])('%s is secret', (name) => {
    expect(isSecretEnvName(name)).toBe(true);
  });

  it.each([
    'PATH',
    'HOME',
    'PWD',
    'OLDPWD',
    'TOKENIZERS_PARALLELISM',
    'SSH_AUTH_SOCK',
    'KEYBOARD_LAYOUT',
    'AWS_ACCESS_KEY_ID',
    'DATABASE_URL',
    'LANG',
    'PASSAGE',
    'NODE_ENV',
    'OTEL_EXPORTER_OTLP_ENDPOINT',
    'DESKTOP_SESSION',
    'XDG_SESSION_ID',
    'DBUS_SESSION_BUS_ADDRESS',
    'SESSION_MANAGER',
    'TMUX',
    'DOCKER_CONFIG',
    'PATH_PATTERN',
    'KEYBOARD',
    'MONKEYPATCH',
    'MONKEY_PATCH',
    'COMPASS_HOME',
    'BYPASS_CACHE',
    'HOTKEY_MODE',
    'GPG_KEY_ID',
    // A qualifier that describes the key: where it is, what it is called, its form.
    'CACHE_KEY_PREFIX',
    'SSH_KEY_PATH',
    'KEY_FILE',
    'SIGNING_KEY_NAME',
    'PUBLIC_KEY_ID',
    'OPENAI_API_KEY_TYPE',
    'DB_PASS_FILE',
    'KMS_KEY_ARN',
    // The name of a git setting given through the environment (its GIT_CONFIG_VALUE_n may be secret).
    'GIT_CONFIG_KEY_0',
    'GIT_CONFIG_KEY_12',
  ])('%s is not secret by its name', (name) => {
    expect(isSecretEnvName(name)).toBe(false);
  });

  it('counts a URL with a password as secret, whatever its name', () => {
    expect(urlPassword('postgres://app:Pa55w0rd@db/app')).toBe('Pa55w0rd');
    expect(urlPassword('https://token@github.com/x')).toBeUndefined();
    expect(urlPassword('https://example.invalid/a:b@c')).toBeUndefined();
    expect(urlPassword('not a url')).toBeUndefined();
    expect(isSecretEnvEntry('DATABASE_URL', 'postgres://u:pw@h/db')).toBe(true);
    expect(isSecretEnvEntry('HTTPS_PROXY', 'http://me:proxypw@proxy:3128')).toBe(true);
    expect(isSecretEnvEntry('DATABASE_URL', 'postgres://h/db')).toBe(false);
  });

  it('collects the values to redact: secret-named values and URL passwords (as written and decoded), not short ones or file paths', () => {
    const values = secretEnvValues({
      GITHUB_TOKEN: 'ghp_value_long_enough',
      PGPASSWORD: 'short',
      SENTRY_DSN: 'https://public1234@o1.ingest.example/1',
      DATABASE_URL: 'postgres://u:p%40ssword99@h/db',
      REDIS_URL: 'redis://:pw@h',
      PATH: '/usr/bin:/bin',
      FLAG_TOKEN: 'true',
      GOOGLE_APPLICATION_CREDENTIALS: '/home/me/.config/gcloud/key.json',
      AWS_SHARED_CREDENTIALS_FILE: '~/.aws/credentials',
    });
    expect(values.sort()).toEqual(['ghp_value_long_enough', 'https://public1234@o1.ingest.example/1', 'p%40ssword99', 'p@ssword99'].sort());
  });

  it('does not redact the folder PASSWORD_STORE_DIR names', () => {
    expect(secretEnvValues({ PASSWORD_STORE_DIR: '/home/me/.password-store' })).toEqual([]);
  });
});
