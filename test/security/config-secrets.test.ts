import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditRecordsOf, jsonResult, REPO_ROOT, toolMessageSent, useTestbed, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// The secrets the user's own configuration hands to hooks, rpc servers and MCP servers. Those
// processes run as the user: the model reads their environment (/proc/<pid>/environ), their
// command line (ps), their stderr or the settings file itself. No request to the model may
// hold such a value.

const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const RPC_FIXTURE = path.join(REPO_ROOT, 'test/fixtures/rpc/fixture-server.js');
const REDACTED = '[REDACTED:secret_value]';

const testbed = useTestbed();

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
const glob = toolCalls([{ id: 'glob', name: 'Glob', arguments: { pattern: '*' } }]);
/** The value of NAME in every process's environment the model's shell can read. */
const fromAnyEnviron = (name: string) =>
  `for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f" 2>/dev/null; done | sed -n 's/^${name}=//p' | sort -u`;

function requestsHold(b: Testbed, secret: string): boolean {
  return JSON.stringify(b.server.requests.map((r) => r.body)).includes(secret);
}

interface RunConfig {
  /** The user settings; a function gets the run's home folder. */
  settings?: object | ((home: string) => object);
  /** Files written to the home folder first. */
  homeFiles?: Record<string, string>;
  hooks?: string;
  env?: Record<string, string>;
  tools?: string;
}

/** A run with the user's settings and `--hooks` file as given; each reply of `script` one model turn. */
async function runWith(script: ScriptedReply[], config: RunConfig): Promise<Testbed> {
  const b = await testbed({}, script);
  for (const [name, content] of Object.entries(config.homeFiles ?? {})) writeFileSync(path.join(b.home, name), content);
  const settings = typeof config.settings === 'function' ? config.settings(b.home) : config.settings;
  if (settings) writeFileSync(path.join(b.home, 'user-settings.json'), JSON.stringify(settings, null, 2));
  const hooksArgs: string[] = [];
  if (config.hooks) {
    writeFileSync(path.join(b.home, 'my-hooks.json'), config.hooks);
    hooksArgs.push('--hooks', path.join(b.home, 'my-hooks.json'));
  }
  const args = ['look', '--output-format', 'json', '--allowed-tools', config.tools ?? 'Bash', ...hooksArgs];
  const r = await b.run(args, { env: config.env, timeoutMs: 60_000 });
  expect(r.code, r.stderr).toBe(0);
  return b;
}

describe('secrets in MCP server definitions', () => {
  it("an MCP server's env value is redacted from its /proc environ", async () => {
    const SECRET = 'mcp-env-literal-9d8c7b6a5f';
    const memory = { command: process.execPath, args: [MEMORY], env: { ACME_MCP_TOKEN: SECRET } };
    const b = await runWith([bash('peek', fromAnyEnviron('ACME_MCP_TOKEN')), text('Done.')], {
      settings: { 'hookpilot.mcpServers': { memory } },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain(REDACTED);
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it("an MCP server's envFile value is redacted from its /proc environ", async () => {
    const SECRET = 'mcp-envfile-value-3k4j5h6g';
    const b = await runWith([bash('peek', fromAnyEnviron('ACME_SERVICE_PASSWORD')), text('Done.')], {
      homeFiles: { 'mcp-secrets.env': `ACME_SERVICE_PASSWORD=${SECRET}\n` },
      settings: (home) => ({
        'hookpilot.mcpServers': { memory: { command: process.execPath, args: [MEMORY], envFile: path.join(home, 'mcp-secrets.env') } },
      }),
    });
    expect(toolMessageSent(b.server, 'peek')).toContain(REDACTED);
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it("an MCP server's --api-key argument is redacted from ps", async () => {
    const SECRET = 'mcp-arg-token-2b3n4m5q';
    const memory = { command: process.execPath, args: [MEMORY, '--api-key', SECRET] };
    const b = await runWith([bash('peek', 'ps -eo args | grep -- --api-key'), text('Done.')], {
      settings: { 'hookpilot.mcpServers': { memory } },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain(`--api-key ${REDACTED}`);
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);
});

describe('secrets in hook definitions', () => {
  it("an rpc hook server's env value is redacted from its /proc environ", async () => {
    const SECRET = 'rpc-env-literal-6y7u8i9o';
    const policy = { command: [process.execPath, RPC_FIXTURE], observe: ['PostToolUse'], env: { ACME_POLICY_TOKEN: SECRET } };
    const b = await runWith([bash('peek', fromAnyEnviron('ACME_POLICY_TOKEN')), text('Done.')], {
      hooks: hooksJson({}, { servers: { policy } }),
    });
    expect(toolMessageSent(b.server, 'peek')).toContain(REDACTED);
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it("a command hook's own env value is redacted from the block reason that quotes it", async () => {
    const SECRET = 'hook-env-literal-4r5t6y7u';
    const gate = {
      type: 'command',
      command: `node -e "process.stderr.write('deploy gate refused token ' + process.env.ACME_DEPLOY_TOKEN); process.exit(2)"`,
      env: { ACME_DEPLOY_TOKEN: SECRET },
    };
    const b = await runWith([glob, text('Done.')], {
      hooks: hooksJson({ PreToolUse: [{ matcher: 'Glob', hooks: [gate] }] }),
      tools: 'Glob',
    });
    expect(toolMessageSent(b.server, 'glob')).toContain(`deploy gate refused token ${REDACTED}`);
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it("an http hook's literal header is redacted when the model reads the user settings", async () => {
    const SECRET = 'hook-header-literal-8i9o0p1a';
    const hook = { type: 'http', url: 'http://127.0.0.1:9/hook', headers: { Authorization: `Bearer ${SECRET}` } };
    const b = await runWith([bash('peek', 'cat "$HOOKPILOT_USER_SETTINGS"'), text('Done.')], {
      settings: { 'hookpilot.hooks': { hooks: { Stop: [{ hooks: [hook] }] } } },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain('Authorization');
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it('a variable an http hook sends (allowedEnvVars) is kept from the Bash tool, whatever its name', async () => {
    const SECRET = 'hook-bearer-value-1q2w3e4r';
    const hook = {
      type: 'http',
      url: 'http://127.0.0.1:9/hook',
      headers: { Authorization: 'Bearer $ACME_HOOK_BEARER' },
      allowedEnvVars: ['ACME_HOOK_BEARER'],
    };
    const b = await runWith([bash('peek', 'echo "b=${ACME_HOOK_BEARER:-unset}"'), text('Done.')], {
      hooks: hooksJson({ Stop: [{ hooks: [hook] }] }),
      env: { ACME_HOOK_BEARER: SECRET },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain('b=unset');
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it.each([
    [
      'a deny answer',
      200,
      JSON.stringify({
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not now' },
      }),
    ],
    ['a failure with onFailure block', 500, 'oops'],
  ])(
    "an http hook URL's path (a webhook token) is not quoted to the model with %s",
    async (_label, status, body) => {
      const SECRET = 'whpath-Secret-5f6g7h8j9k';
      const receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(body);
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      try {
        const { port } = receiver.address() as AddressInfo;
        const hook = { type: 'http', url: `http://127.0.0.1:${port}/services/T01/B02/${SECRET}?code=${SECRET}`, onFailure: 'block' };
        const b = await runWith([glob, text('Done.')], {
          hooks: hooksJson({ PreToolUse: [{ matcher: 'Glob', hooks: [hook] }] }),
          tools: 'Glob',
        });
        expect(toolMessageSent(b.server, 'glob')).toContain(`127.0.0.1:${port}/…`);
        expect(requestsHold(b, SECRET)).toBe(false);
      } finally {
        receiver.close();
      }
    },
    90_000,
  );
});

describe('the OTLP headers of the user settings', () => {
  it.each([
    ['export is off (no endpoint)', {}, {}],
    ['OTEL_SDK_DISABLED turns export off', { 'hookpilot.telemetry.otlpEndpoint': 'http://127.0.0.1:9' }, { OTEL_SDK_DISABLED: 'true' }],
  ])(
    'are redacted when the model reads the settings file and %s',
    async (_label, extra, env) => {
      const SECRET = 'otlp-header-literal-2w3e4r5t';
      const b = await runWith([bash('peek', 'cat "$HOOKPILOT_USER_SETTINGS"'), text('Done.')], {
        settings: { ...extra, 'hookpilot.telemetry.otlpHeaders': { 'x-honeycomb-team': SECRET } },
        env,
      });
      expect(toolMessageSent(b.server, 'peek')).toContain(`"x-honeycomb-team": "${REDACTED}"`);
      expect(requestsHold(b, SECRET)).toBe(false);
    },
    90_000,
  );
});

describe('secrets written into command lines', () => {
  it("a shell-form command hook's --api-key value is redacted when the model reads the user settings", async () => {
    const SECRET = 'shellform-apikey-7h6g5f4d3s';
    const hook = { type: 'command', command: `node -e "" --api-key ${SECRET}` };
    const b = await runWith([bash('peek', 'cat "$HOOKPILOT_USER_SETTINGS"'), text('Done.')], {
      settings: { 'hookpilot.hooks': { hooks: { Stop: [{ hooks: [hook] }] } } },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain('--api-key');
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);

  it('a command hook without a name is named without any part of a credential of its command line', async () => {
    const KEY = 'hcaik01Q7w9Z1xK4pL8mN3';
    // The default name is the command's first 40 characters: the cut falls in the key.
    const hook = { type: 'command', command: `false -H 'x-honeycomb-team: ${KEY}' || { echo 'not now' >&2; exit 2; }` };
    const b = await testbed({ '.vscode/hooks.json': hooksJson({ PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] }) }, [
      bash('c1', 'echo hi'),
      text('Done.'),
    ]);
    const r = await b.run(['go', '--output-format', 'json', '--allowed-tools', 'Bash'], { timeoutMs: 60_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['blocked']);
    expect(toolMessageSent(b.server, 'c1')).toContain("x-honeycomb-team: ***' ||");
    for (const where of [JSON.stringify(b.server.requests.map((q) => q.body)), r.stdout, JSON.stringify(await auditRecordsOf(b))])
      expect(where).not.toContain(KEY.slice(0, 6));
  }, 90_000);

  it.each([
    ['-e NAME=value (docker run)', ['-e', 'ACME_API_KEY=Dockerform.Secret.4f5g6h7j']],
    ['a NAME=value word (env NAME=value cmd)', ['ACME_API_KEY=Dockerform.Secret.4f5g6h7j']],
  ])(
    "an MCP server's %s argument is redacted from ps",
    async (_label, extra) => {
      const SECRET = 'Dockerform.Secret.4f5g6h7j';
      const memory = { command: process.execPath, args: [MEMORY, ...extra] };
      const b = await runWith([bash('peek', 'ps -eo args | grep -- ACME_API_KEY= | grep -v grep'), text('Done.')], {
        settings: { 'hookpilot.mcpServers': { memory } },
      });
      expect(toolMessageSent(b.server, 'peek')).toContain(`ACME_API_KEY=${REDACTED}`);
      expect(requestsHold(b, SECRET)).toBe(false);
    },
    90_000,
  );
});

describe('ordinary words of the configuration stay readable', () => {
  it('an http hook header `X-Env: production` does not hide the word production', async () => {
    const hook = { type: 'http', url: 'http://127.0.0.1:9/hook', headers: { 'X-Env': 'production' } };
    const b = await runWith([bash('peek', 'echo NODE_ENV=production'), text('Done.')], { hooks: hooksJson({ Stop: [{ hooks: [hook] }] }) });
    expect(toolMessageSent(b.server, 'peek')).toContain('NODE_ENV=production');
  }, 90_000);

  it("an rpc server's --api-key-env NAME option does not hide the variable's name", async () => {
    const policy = { command: [process.execPath, RPC_FIXTURE, '--api-key-env', 'OPENAI_API_KEY'], observe: ['PostToolUse'] };
    const b = await runWith([bash('peek', 'echo "Set OPENAI_API_KEY before you start."'), text('Done.')], {
      hooks: hooksJson({}, { servers: { policy } }),
      env: { OPENAI_API_KEY: 'sk-host-key-9a8b7c6d5e' },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain('Set OPENAI_API_KEY before');
  }, 90_000);

  it('a variable CACHE_KEY_PREFIX=production does not hide the word production', async () => {
    const b = await runWith([bash('peek', 'echo NODE_ENV=production'), text('Done.')], { env: { CACHE_KEY_PREFIX: 'production' } });
    expect(toolMessageSent(b.server, 'peek')).toContain('NODE_ENV=production');
  }, 90_000);
});

describe('the token of an http hook URL', () => {
  it('is redacted when the model reads the user settings', async () => {
    const SECRET = 'whk9Secret7f6g5h4j3k2l';
    const hook = { type: 'http', url: `http://127.0.0.1:9/services/T01/B02/${SECRET}` };
    const b = await runWith([bash('peek', 'cat "$HOOKPILOT_USER_SETTINGS"'), text('Done.')], {
      settings: { 'hookpilot.hooks': { hooks: { Stop: [{ hooks: [hook] }] } } },
    });
    expect(toolMessageSent(b.server, 'peek')).toContain('127.0.0.1:9/services/T01/B02/');
    expect(requestsHold(b, SECRET)).toBe(false);
  }, 90_000);
});
