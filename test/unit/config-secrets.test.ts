import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { envWithoutSecrets } from '../../src/core/agent/tools/shell-environment';
import { configSecretValues, headerSecretValues, mcpServerSecretValues } from '../../src/core/config-secrets';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadHooksValue } from '../../src/core/hooks/config/config-loader';
import type { McpServerConfig } from '../../src/core/mcp/mcp-config';

const hooksOf = (value: unknown) => loadHooksValue(value, { kind: 'user' });

const stdio = (fields: Partial<Extract<McpServerConfig, { transport: 'stdio' }>>): McpServerConfig => ({
  name: 's',
  source: { kind: 'user' },
  disabled: false,
  transport: 'stdio',
  command: 'node',
  args: [],
  env: {},
  ...fields,
});

/** A remote MCP server at `url`. */
const remote = (url: string, headers: Record<string, string> = {}, transport: 'http' | 'sse' = 'http'): McpServerConfig => ({
  name: 'remote',
  source: { kind: 'user' },
  disabled: false,
  transport,
  url,
  headers,
});

describe('the secrets of hook and server definitions', () => {
  it("a command hook's env: values under secret-looking names, with ${NAME} filled as the hook gets it, not ordinary ones", () => {
    const config = hooksOf({
      hooks: {
        Stop: [
          {
            type: 'command',
            command: 'deploy',
            env: {
              ACME_DEPLOY_TOKEN: 'deploy-token-4r5t6y7u',
              FROM_HOST_KEY: '${HOST_VALUE}',
              MODE: 'production-mode',
              TINY_TOKEN: 'short',
            },
          },
        ],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, { HOST_VALUE: 'host-value-8i9o0p' }).sort()).toEqual(['deploy-token-4r5t6y7u', 'host-value-8i9o0p']);
  });

  it("an http hook's literal headers (and the credential of Bearer X) and the variables it may send, not headers naming a variable", () => {
    const config = hooksOf({
      hooks: {
        Stop: [
          {
            type: 'http',
            url: 'http://127.0.0.1:9/hook',
            headers: {
              Authorization: 'Bearer literal-8i9o0p1a',
              'X-Team-Key': 'team-key-2w3e4r',
              'X-Sent': '$ACME_SENT',
              Accept: 'application/json',
            },
            allowedEnvVars: ['ACME_SENT', 'UNSET_VAR'],
          },
        ],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, { ACME_SENT: 'sent-value-1q2w3e4r' }).sort()).toEqual(
      ['Bearer literal-8i9o0p1a', 'literal-8i9o0p1a', 'sent-value-1q2w3e4r', 'team-key-2w3e4r'].sort(),
    );
  });

  it("an rpc server's env and the values of its secret-looking options", () => {
    const config = hooksOf({
      servers: {
        policy: {
          command: [
            'node',
            'server.js',
            '--token=rpc-arg-5t6y7u8i',
            '--verbose',
            '--db-password',
            'rpc-db-pw-9o0p1a',
            '--out',
            'output-folder',
          ],
          observe: ['PostToolUse'],
          env: { ACME_POLICY_TOKEN: 'rpc-env-6y7u8i9o', LOG_LEVEL: 'debugging' },
        },
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {}).sort()).toEqual(['rpc-arg-5t6y7u8i', 'rpc-db-pw-9o0p1a', 'rpc-env-6y7u8i9o']);
  });

  it('an MCP server: env (envFile values included) under secret-looking names, secret options, URL passwords; a boolean flag takes no value', () => {
    const server = stdio({
      args: ['server.js', '--api-key', 'mcp-arg-2b3n4m5q', '--token', '--read-only', 'postgres://app:mcp-db-pw-7h8j@db/app'],
      env: { ACME_SERVICE_PASSWORD: 'mcp-envfile-3k4j5h6g', MEMORY_FILE_PATH: '/home/me/memory.json', MODE: 'readonly-mode' },
    });
    expect(mcpServerSecretValues(server).sort()).toEqual(['mcp-arg-2b3n4m5q', 'mcp-db-pw-7h8j', 'mcp-envfile-3k4j5h6g']);
  });

  it('an MCP http server: every header value but the plain ones', () => {
    const server = remote('https://mcp.example.com/mcp', { Authorization: 'Token mcp-header-0p1a2s', 'Content-Type': 'application/json' });
    expect(mcpServerSecretValues(server).sort()).toEqual(['Token mcp-header-0p1a2s', 'mcp-header-0p1a2s']);
  });

  it('a header not named for a credential only when its value looks generated: never an ordinary word', () => {
    expect(
      headerSecretValues({
        'X-Env': 'production',
        'X-Region': 'eu-west-datacenter',
        'X-Hub-Signature': 'sha256=plainword',
        'X-Request-Key': 'release-channel',
        'X-Tenant': 'tn9f8e7d6c5b4a3z2y',
      }).sort(),
    ).toEqual(['release-channel', 'sha256=plainword', 'tn9f8e7d6c5b4a3z2y']);
  });

  it("an option's value that names a variable of the process's environment is no secret (`--api-key-env OPENAI_API_KEY`)", () => {
    const server = stdio({ args: ['server.js', '--api-key-env', 'OPENAI_API_KEY', '--token-var', 'ACME_TOKEN'], env: { ACME_TOKEN: 'x' } });
    expect(mcpServerSecretValues(server, { OPENAI_API_KEY: 'sk-host-value' })).toEqual([]);
    const rpc = hooksOf({
      servers: { policy: { command: ['node', 'p.js', '--api-key-env', 'OPENAI_API_KEY'], observe: ['PostToolUse'] } },
    });
    expect(configSecretValues(rpc, { OPENAI_API_KEY: 'sk-host-value' })).toEqual([]);
  });

  it('a shell-form command hook: secret options, credential headers and NAME=value words of its command line, not expansions', () => {
    const config = hooksOf({
      hooks: {
        Stop: [
          { type: 'command', command: 'node gate.js --api-key shell-apikey-7h6g5f --mode production-mode' },
          { type: 'command', command: "curl -s -H 'Authorization: Bearer curl-bearer-3e4r5t' -H 'X-Env: production' https://x.example" },
          { type: 'command', command: 'env ACME_TOKEN=env-word-token-9i8u cmd && docker run -e ACME_API_KEY=docker-key-1q2w3e img' },
          { type: 'command', command: 'node gate.js --token "$ACME_FROM_HOST" --password=literal-pw-5t6y7u' },
        ],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {}).sort()).toEqual(
      [
        'shell-apikey-7h6g5f',
        'Bearer curl-bearer-3e4r5t',
        'curl-bearer-3e4r5t',
        'env-word-token-9i8u',
        'docker-key-1q2w3e',
        'literal-pw-5t6y7u',
      ].sort(),
    );
  });

  it("a credential header after curl's combined short options (`-sH`, `-fsSLH`)", () => {
    const config = hooksOf({
      hooks: {
        Stop: [
          { type: 'command', command: "curl -sH 'x-honeycomb-team: hcaik01Q7w9Z1xK4pL8mN3' https://api.honeycomb.io/1/events" },
          { type: 'command', command: 'curl', args: ['-fsSLH', 'Authorization: Bearer combined-bearer-8u7y6t', 'https://x.example'] },
        ],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {}).sort()).toEqual(
      ['Bearer combined-bearer-8u7y6t', 'combined-bearer-8u7y6t', 'hcaik01Q7w9Z1xK4pL8mN3'].sort(),
    );
  });

  it('an MCP server: NAME=value arguments (`-e NAME=value`, `--env=NAME=value`) under secret-looking names', () => {
    const server = stdio({
      command: 'docker',
      args: [
        'run',
        '-e',
        'ACME_API_KEY=docker-key-1q2w3e',
        '--env=ACME_TOKEN=env-flag-4r5t6y',
        'ACME_SECRET=plain-word-7u8i9o',
        'MODE=production',
      ],
    });
    expect(mcpServerSecretValues(server, {}).sort()).toEqual(['docker-key-1q2w3e', 'env-flag-4r5t6y', 'plain-word-7u8i9o']);
  });

  it("an http hook's and a remote MCP server's URL token: generated-looking path segments and query values, not ordinary ones", () => {
    const config = hooksOf({
      hooks: {
        Stop: [
          {
            type: 'http',
            url: 'https://hooks.example.com/services/T01/B02/whk9Secret7f6g5h4j3k2l?code=qc8Token7y6t5r4e3w&mode=production',
          },
        ],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {}).sort()).toEqual(['qc8Token7y6t5r4e3w', 'whk9Secret7f6g5h4j3k2l']);
    expect(mcpServerSecretValues(remote('https://mcp.example.com/v1/sse/mcp9Path8Token7a6s5d', {}, 'sse'))).toEqual([
      'mcp9Path8Token7a6s5d',
    ]);
  });

  it('a shell-form command hook: a prefix assignment and the options of a `bash -c` script it runs', () => {
    const commandHook = (command: string) => hooksOf({ hooks: { Stop: [{ type: 'command', command }] } });
    expect(configSecretValues(commandHook('ACME_API_TOKEN=correcthorsebatterystaple node hook.js'), {})).toContain(
      'correcthorsebatterystaple',
    );
    expect(configSecretValues(commandHook("bash -c 'node gate.js --api-key nested-apikey-7h6g5f'"), {})).toContain('nested-apikey-7h6g5f');
  });

  it('a command hook with `shell: "bash"`, which runs its line as `bash -c <line>`: the secrets of the line', () => {
    const config = hooksOf({
      hooks: {
        Stop: [{ type: 'command', shell: 'bash', command: "curl -H 'Authorization: Bearer bash-line-bearer-5t6y' https://x.example" }],
      },
    });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {}).sort()).toEqual(['Bearer bash-line-bearer-5t6y', 'bash-line-bearer-5t6y']);
  });

  it('a query token as the settings file spells it, percent-encoded, and decoded', () => {
    const url = 'https://acct.blob.core.windows.net/c/hook?sv=2020-08-04&sig=AbCdEf%2BGhIjKl1234mnOpQ%3D';
    const secrets = configSecretValues(hooksOf({ hooks: { Stop: [{ type: 'http', url }] } }), {});
    expect(secrets).toEqual(expect.arrayContaining(['AbCdEf%2BGhIjKl1234mnOpQ%3D', 'AbCdEf+GhIjKl1234mnOpQ=']));
  });

  it('a query value named for a credential, however plain: a remote MCP server and an http hook', () => {
    const server = remote('https://mcp.example.com/mcp?api_key=plainkey&region=europe-west&access%5Ftoken=pass%2Fword1');
    expect(mcpServerSecretValues(server).sort()).toEqual(['pass%2Fword1', 'pass/word1', 'plainkey']);
    const hook = hooksOf({ hooks: { Stop: [{ type: 'http', url: 'https://hooks.example.com/x?token=letmein1&mode=production' }] } });
    expect(configSecretValues(hook, {})).toEqual(['letmein1']);
  });

  it.each([
    ['curl -u user:password', 'curl -sf -u deploy:Pa55w0rdDeploy99 https://ci.example/notify'],
    ['curl --user=user:password', 'curl -sf --user=deploy:Pa55w0rdDeploy99 https://ci.example/notify'],
    ['curl -uuser:password', 'curl -udeploy:Pa55w0rdDeploy99 https://ci.example/notify'],
    ['sshpass -p', 'sshpass -p Pa55w0rdDeploy99 ssh deploy@host true'],
    ['mysql -pPASSWORD', 'mysql -uroot -pPa55w0rdDeploy99 -e "select 1"'],
    ['a path to mysqldump', '/usr/bin/mysqldump -pPa55w0rdDeploy99 db > dump.sql'],
    ['curl -u :token (no user)', 'curl -u :Pa55w0rdDeploy99 https://ci.example/notify'],
    ['redis-cli -a', 'redis-cli -a Pa55w0rdDeploy99 ping'],
    ['docker login -p', 'docker login -u ci -p Pa55w0rdDeploy99 registry.example'],
  ])('a credential option of a shell-form hook command: %s', (_, command) => {
    const config = hooksOf({ hooks: { Stop: [{ type: 'command', command }] } });
    expect(config.problems).toEqual([]);
    expect(configSecretValues(config, {})).toContain('Pa55w0rdDeploy99');
  });

  it("no credential in options that only look alike: a user without a password, another program's -p", () => {
    const commandHook = (command: string) => hooksOf({ hooks: { Stop: [{ type: 'command', command }] } });
    expect(configSecretValues(commandHook('docker run -u builder image-name-x make'), {})).toEqual([]);
    expect(configSecretValues(commandHook('mkdir -parents-folder-x && tar -pxf archive.tar'), {})).toEqual([]);
    expect(configSecretValues(commandHook('mysql -u root -p -e "select 1"'), {})).toEqual([]);
    expect(configSecretValues(commandHook('docker run -p 127.0.0.1:8080:80 image-name-x'), {})).toEqual([]);
  });

  it('a header is named for a credential by a whole part of its name: not X-GitHub-Api-Version', () => {
    expect(headerSecretValues({ 'X-GitHub-Api-Version': '2022-11-28', 'X-Signature-Algorithm': 'hmac-sha256' })).toEqual([]);
    expect(
      headerSecretValues({ 'X-Hub-Signature-256': 'sha256=abcdef', 'Private-Token': 'glpat-short', 'X-Api-Key': 'k-12345678' }),
    ).toEqual(['sha256=abcdef', 'glpat-short', 'k-12345678']);
  });

  it('keeps the redactor minimum: a short header value is no secret', () => {
    expect(headerSecretValues({ 'X-Id': 'abc', Authorization: 'Bearer abc' })).toEqual(['Bearer abc']);
  });
});

describe('the variables http hooks send, in the Bash environment', () => {
  it('are dropped whatever their names, unless passed by name', () => {
    const env = { ACME_HOOK_BEARER: 'bearer-1q2w3e4r', HOME: '/home/me' };
    expect(envWithoutSecrets(env, [], ['ACME_HOOK_BEARER'])).toEqual({ HOME: '/home/me' });
    expect(envWithoutSecrets(env, ['ACME_HOOK_BEARER'], ['ACME_HOOK_BEARER'])).toEqual(env);
  });
});

describe('the engine registers the secrets of the configuration it applies', () => {
  let dir: string;
  let engine: HookEngine | undefined;
  afterEach(async () => {
    await engine?.dispose();
    engine = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  const commandHook = (token: string) => ({ hooks: { Stop: [{ type: 'command', command: 'deploy', env: { ACME_DEPLOY_TOKEN: token } }] } });

  it('at each reload, a changed value too; and names the variables http hooks send', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'config-secrets-'));
    engine = new HookEngine({
      projectDir: dir,
      storageDir: path.join(dir, 'storage'),
      trusted: true,
      env: { ACME_SENT: 'sent-value-1q2w3e4r' },
    });
    await engine.reload([hooksOf(commandHook('first-token-1a2b3c4d'))]);
    const redact = (text: string) => engine!.audit.redactor.redactForModel(text);
    expect(redact('got first-token-1a2b3c4d')).toBe('got [REDACTED:secret_value]');
    const http = { type: 'http', url: 'http://127.0.0.1:9/hook', headers: { 'X-Sent': '$ACME_SENT' }, allowedEnvVars: ['ACME_SENT'] };
    await engine.reload([hooksOf({ hooks: { Stop: [...commandHook('second-token-5e6f7g8h').hooks.Stop, http] } })]);
    expect(redact('got second-token-5e6f7g8h and sent-value-1q2w3e4r')).toBe('got [REDACTED:secret_value] and [REDACTED:secret_value]');
    expect(engine.credentialEnvNames()).toEqual(['ACME_SENT']);
  });
});
