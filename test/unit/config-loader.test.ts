import { describe, expect, it } from 'vitest';
import { loadHooksDocument, loadHooksValue } from '../../src/core/hooks/config/config-loader';
import type { ConfigProblem } from '../../src/core/hooks/config/config-problems';

const FILE = '.vscode/hooks.json';
const load = (text: string) => loadHooksDocument(text, { kind: 'hooksJson', file: FILE });

/** 1-based line/column of the nth occurrence of `needle`, computed independently of the loader. */
function positionOf(text: string, needle: string, nth = 0): { line: number; column: number } {
  let offset = -1;
  for (let i = 0; i <= nth; i++) {
    offset = text.indexOf(needle, offset + 1);
    if (offset < 0) throw new Error(`"${needle}" not found`);
  }
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before[before.length - 1].length + 1 };
}

function only(problems: ConfigProblem[], code: string): ConfigProblem {
  const found = problems.filter((p) => p.code === code);
  expect(found, JSON.stringify(problems, null, 2)).toHaveLength(1);
  return found[0];
}

describe('loadHooksDocument: shapes', () => {
  it('loads Claude Code matcher groups with every handler field', () => {
    const text = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          { "type": "command", "command": "\${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "args": ["--strict"], "timeout": 10,
            "if": "Bash(rm *)", "statusMessage": "Checking…", "async": false, "name": "no rm", "description": "blocks rm",
            "enabled": false, "priority": -1, "onFailure": "block", "contentPatterns": ["command:rm"], "cwd": "tools", "env": { "A": "1" } }
        ]
      }
    ]
  }
}`;
    const config = load(text);
    expect(config.problems).toEqual([]);
    expect(config.hooks).toHaveLength(1);
    const [hook] = config.hooks;
    expect(hook).toMatchObject({
      name: 'no rm',
      description: 'blocks rm',
      event: 'PreToolUse',
      matcher: 'Bash',
      if: 'Bash(rm *)',
      statusMessage: 'Checking…',
      contentPatterns: ['command:rm'],
      priority: -1,
      onFailure: 'block',
      timeoutMs: 10_000,
      enabled: false,
      spec: {
        type: 'command',
        command: '${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh',
        args: ['--strict'],
        cwd: 'tools',
        env: { A: '1' },
        async: false,
      },
    });
    expect(hook.id).toMatch(/^[0-9a-f]{12}$/);
    expect(hook.source).toEqual({
      kind: 'hooksJson',
      file: FILE,
      path: 'hooks.PreToolUse[0].hooks[0]',
      ...positionOf(text, '{ "type": "command"'),
    });
  });

  it('reads a file that starts with a UTF-8 byte order mark, which editors hide, without a syntax error', () => {
    const text = `{ "hooks": { "Stop": [ { "type": "command", "command": "echo hi" } ], "Stopp": [] } }`;
    const config = load(`\uFEFF${text}`);
    expect(config.hooks.map((h) => h.name)).toEqual(['echo hi']);
    // The one problem is the misspelt event's, placed as an editor shows the text.
    expect(config.problems).toEqual([expect.objectContaining({ severity: 'warning', ...positionOf(text, '"Stopp"') })]);
  });

  it('loads flat handler entries with the matcher on the handler, and applies defaults', () => {
    const config = load(
      `{ "hooks": { "PostToolUse": [ { "type": "command", "matcher": "Write|Edit", "command": "npx prettier --write" } ] } }`,
    );
    expect(config.problems).toEqual([]);
    expect(config.hooks).toHaveLength(1);
    expect(config.hooks[0]).toMatchObject({
      event: 'PostToolUse',
      matcher: 'Write|Edit',
      priority: 0,
      enabled: true,
      spec: { type: 'command', command: 'npx prettier --write' },
    });
    expect(config.hooks[0].timeoutMs).toBeUndefined();
    expect(config.hooks[0].spec).not.toHaveProperty('matcher');
  });

  it('accepts event aliases from other hook systems and Copilot', () => {
    const config = load(`{ "hooks": {
      "before_tool": [ { "type": "command", "command": "a" } ],
      "OnSessionStart": [ { "type": "command", "command": "b" } ],
      "preToolUse": [ { "type": "command", "command": "c" } ],
      "approve_tool": [ { "type": "command", "command": "d" } ]
    } }`);
    expect(config.problems).toEqual([]);
    expect(config.hooks.map((h) => [h.event, h.spec.type === 'command' && h.spec.command])).toEqual([
      ['PreToolUse', 'a'],
      ['SessionStart', 'b'],
      ['PreToolUse', 'c'],
      ['PermissionRequest', 'd'],
    ]);
  });

  it('loads http, builtin and rpc handlers and derives readable names', () => {
    const config = load(`{
      "servers": { "policy": { "command": ["node", "examples/rpc-policy-server/server.js"] } },
      "hooks": {
        "PreToolUse": [
          { "type": "http", "url": "http://127.0.0.1:8080/hooks/pre", "headers": { "Authorization": "Bearer $TOKEN" }, "allowedEnvVars": ["TOKEN"] },
          { "type": "builtin", "builtin": "TodoGuard", "options": { "max": 3 } },
          { "type": "rpc", "server": "policy" },
          { "type": "command", "command": "node scripts/check-bash.js --fast" },
          { "type": "command", "command": "echo 'this is a rather long inline command that goes on and on'" },
          { "type": "command", "command": "\\"$CLAUDE_PROJECT_DIR\\"/.claude/hooks/format.sh" }
        ],
        "TurnStart": [ { "type": "rpc", "server": "policy", "mode": "observe" } ]
      }
    }`);
    expect(config.problems).toEqual([]);
    expect(config.hooks.map((h) => h.name)).toEqual([
      '127.0.0.1:8080/…',
      'TodoGuard',
      'policy',
      'check-bash.js',
      `${"echo 'this is a rather long inline command that goes on and on'".slice(0, 40)}…`,
      'format.sh',
      'policy',
    ]);
    expect(config.hooks[0].spec).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8080/hooks/pre',
      headers: { Authorization: 'Bearer $TOKEN' },
      allowedEnvVars: ['TOKEN'],
    });
    expect(config.hooks[1].spec).toEqual({ type: 'builtin', builtin: 'TodoGuard', options: { max: 3 } });
    expect(config.hooks[2].spec).toEqual({ type: 'rpc', server: 'policy', mode: 'intercept' });
    expect(config.hooks[6].spec).toEqual({ type: 'rpc', server: 'policy', mode: 'observe' });
  });

  it("loads servers in PicoClaw's processes shape, builtins, defaults and top-level settings", () => {
    const text = `{
  "servers": {
    "policy": { "command": ["node", "server.js"], "transport": "stdio", "cwd": "examples", "env": { "LEVEL": "2" },
                "observe": ["turn_start", "TurnStart", "tool_exec_end"], "intercept": ["before_tool", "approve_tool"], "timeout_ms": 5000,
                "priority": 3, "onFailure": "block" },
    "lint": { "command": "uvx picoclaw-hook-reviewer --quiet", "timeout": 2, "enabled": false }
  },
  "builtins": { "Metrics": { "enabled": true, "options": { "window": 10 } }, "TodoGuard": false, "AuditLog": {} },
  "defaults": { "observerTimeoutMs": 500, "interceptorTimeoutMs": 5000, "approvalTimeoutMs": 60000, "commandTimeoutMs": 30000 },
  "disableAllHooks": true,
  "allowedHttpHookUrls": ["http://127.0.0.1:*/*"],
  "httpHookAllowedEnvVars": ["MY_TOKEN"]
}`;
    const config = load(text);
    expect(config.problems).toEqual([]);
    expect(config.servers).toEqual([
      {
        name: 'policy',
        command: ['node', 'server.js'],
        cwd: 'examples',
        env: { LEVEL: '2' },
        observe: ['TurnStart', 'PostToolUse'],
        intercept: ['PreToolUse', 'PermissionRequest'],
        timeoutMs: 5000,
        enabled: true,
        priority: 3,
        onFailure: 'block',
        approveEveryCall: true,
        source: { kind: 'hooksJson', file: FILE, path: 'servers.policy', ...positionOf(text, '{ "command": ["node"') },
      },
      {
        name: 'lint',
        command: ['uvx', 'picoclaw-hook-reviewer', '--quiet'],
        observe: [],
        intercept: [],
        timeoutMs: 2000,
        enabled: false,
        priority: 0,
        source: { kind: 'hooksJson', file: FILE, path: 'servers.lint', ...positionOf(text, '{ "command": "uvx') },
      },
    ]);
    expect(config.builtins).toEqual({
      Metrics: { enabled: true, options: { window: 10 } },
      TodoGuard: { enabled: false },
      AuditLog: { enabled: true },
    });
    expect(config.defaults).toEqual({
      observerTimeoutMs: 500,
      interceptorTimeoutMs: 5000,
      approvalTimeoutMs: 60000,
      commandTimeoutMs: 30000,
    });
    expect(config.disableAllHooks).toBe(true);
    expect(config.allowedHttpHookUrls).toEqual(['http://127.0.0.1:*/*']);
    expect(config.httpHookAllowedEnvVars).toEqual(['MY_TOKEN']);
  });

  it('treats an empty document or one with only comments as empty', () => {
    for (const text of ['', '  \n', '// nothing yet\n']) {
      const config = load(text);
      expect(config.hooks).toEqual([]);
      expect(config.problems).toEqual([]);
    }
  });
});

describe('loadHooksDocument: problems', () => {
  it('reports three errors at their exact positions and still loads the valid hooks', () => {
    const text = `{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [
        { "type": "command", "command": "./ok-1.sh" },
        { "type": "command", "timeout": "ten", "command": "./bad-timeout.sh" },
        { "type": "command", "command": "./ok-2.sh" }
      ] },
      { "matcher": "Edit(", "hooks": [ { "type": "command", "command": "./never.sh" } ] }
    ],
    "PostToolUse": [
      { "type": "http" },
      { "type": "http", "url": "http://127.0.0.1:9000/post" }
    ]
  }
}`;
    const config = load(text);
    expect(config.hooks.map((h) => h.name)).toEqual(['ok-1.sh', 'ok-2.sh', '127.0.0.1:9000/…']);
    const errors = config.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => p.code)).toEqual(['invalid-value', 'invalid-matcher', 'missing-field']);

    const [timeout, matcher, url] = errors;
    expect(timeout).toMatchObject({ file: FILE, path: 'hooks.PreToolUse[0].hooks[1].timeout', ...positionOf(text, '"ten"') });
    expect(timeout.endColumn).toBe(positionOf(text, '"ten"').column + '"ten"'.length);
    expect(timeout.message).toContain('"timeout" must be a number');
    expect(matcher).toMatchObject({ path: 'hooks.PreToolUse[1].matcher', ...positionOf(text, '"Edit("') });
    expect(matcher.message).toContain('not a valid regular expression');
    expect(url).toMatchObject({ path: 'hooks.PostToolUse[0]', ...positionOf(text, '{ "type": "http" }') });
    expect(url.message).toContain('"url"');
  });

  it('reads comments and trailing commas, and reports a syntax error where it is', () => {
    const clean = load(`// Hooks for this repo
{
  /* block dangerous commands */
  "hooks": {
    "PreToolUse": [
      { "type": "command", "command": "a", }, // trailing comma above
    ],
  },
}`);
    expect(clean.problems).toEqual([]);
    expect(clean.hooks).toHaveLength(1);

    const text = `{
  "hooks": {
    "PreToolUse": [ { "type": "command", "command": "a" } ],
    "Stop": [ { "type": "command" "command": "b" } ]
  }
}`;
    const broken = load(text);
    const syntax = only(broken.problems, 'syntax');
    expect(syntax).toMatchObject({ severity: 'error', line: 4 });
    expect(syntax.message).toMatch(/comma expected/i);
    expect(broken.hooks.map((h) => h.event)).toContain('PreToolUse');
  });

  it('warns about an unknown event with a did-you-mean, and about events outside "hooks"', () => {
    const text = `{ "hooks": { "PreToolUs": [ { "type": "command", "command": "a" } ] }, "Stop": [] }`;
    const config = load(text);
    expect(config.hooks).toEqual([]);
    const unknownEvent = only(config.problems, 'unknown-event');
    expect(unknownEvent).toMatchObject({ severity: 'warning', path: 'hooks.PreToolUs', ...positionOf(text, '"PreToolUs"') });
    expect(unknownEvent.message).toContain('Did you mean "PreToolUse"?');
    const misplaced = only(config.problems, 'unknown-property');
    expect(misplaced.message).toContain('put it inside "hooks"');
  });

  it('reads PicoClaw\'s sections nested inside "hooks" as the top-level ones, positions and all', () => {
    const text = `{
  "hooks": {
    "enabled": true,
    "processes": {
      "review-gate": { "enabled": true, "transport": "stdio", "command": ["uvx", "reviewer"], "observe": ["turn_start", "turn_end"], "intercept": ["before_tool", "approve_tool"], "timeout_ms": 5000 },
      "broken": { "command": 42 }
    },
    "builtins": { "Metrics": { "enabled": false } },
    "defaults": { "observer_timeout_ms": 700, "interceptorTimeoutMs": 4000, "aproval_timeout_ms": 1 },
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo ok" }] }],
    "servers": {}
  },
  "defaults": { "interceptorTimeoutMs": 6000 }
}`;
    const config = load(text);
    expect(config.servers.map((s) => [s.name, s.observe, s.intercept, s.timeoutMs])).toEqual([
      ['review-gate', ['TurnStart', 'TurnEnd'], ['PreToolUse', 'PermissionRequest'], 5000],
    ]);
    expect(config.builtins).toEqual({ Metrics: { enabled: false } });
    // The top-level section wins over its nested twin.
    expect(config.defaults).toEqual({ observerTimeoutMs: 700, interceptorTimeoutMs: 6000 });
    expect(config.disableAllHooks).toBe(false);
    expect(config.hooks.map((h) => h.event)).toEqual(['PreToolUse']);
    expect(only(config.problems, 'invalid-value')).toMatchObject({ path: 'hooks.processes.broken.command', ...positionOf(text, '42') });
    expect(only(config.problems, 'unknown-property')).toMatchObject({ path: 'hooks.defaults.aproval_timeout_ms' });
    expect(only(config.problems, 'unknown-event').message).toContain('top-level "servers"');
  });

  it('PicoClaw\'s "enabled": false inside "hooks" turns every hook off, unless the top level says otherwise', () => {
    expect(load(`{ "hooks": { "enabled": false } }`).disableAllHooks).toBe(true);
    expect(load(`{ "hooks": { "enabled": false }, "disableAllHooks": false }`).disableAllHooks).toBe(false);
    expect(only(load(`{ "hooks": { "enabled": "no" } }`).problems, 'invalid-value').path).toBe('hooks.enabled');
  });

  it('reports unknown handler types and missing types without dropping siblings; mcp_tool loads', () => {
    const text = `{ "hooks": { "Stop": [
      { "type": "webhook", "url": "u" },
      { "type": "shell", "command": "x" },
      { "command": "y" },
      { "type": "command", "command": "z" }
    ] } }`;
    const config = load(text);
    expect(config.hooks.map((h) => h.spec.type === 'command' && h.spec.command)).toEqual(['z']);
    const types = config.problems.filter((p) => p.code === 'unknown-handler-type');
    expect(types.map((p) => p.path)).toEqual(['hooks.Stop[0].type', 'hooks.Stop[1].type']);
    expect(types[0].message).toContain('Unknown handler type "webhook"; expected command, http, builtin, rpc, prompt, agent, mcp_tool.');
    const mcp = load(
      `{ "hooks": { "PreToolUse": [ { "matcher": "Write", "hooks": [ { "type": "mcp_tool", "server": "s", "tool": "t", "input": { "p": "\${tool_input.file_path}" } } ] } ] } }`,
    );
    expect(mcp.problems).toEqual([]);
    expect(mcp.hooks[0]).toMatchObject({
      name: 'mcp__s__t',
      spec: { type: 'mcp_tool', server: 's', tool: 't', input: { p: '${tool_input.file_path}' } },
    });
    expect(only(config.problems, 'missing-field')).toMatchObject({ path: 'hooks.Stop[2]', ...positionOf(text, '{ "command": "y" }') });
  });

  it("names an http hook by its URL's host only: a webhook's path or query is often its token", () => {
    const config = load(`{ "hooks": { "Stop": [
      { "type": "http", "url": "https://hooks.slack.com/services/T01/B02/whpath-Secret-5f6g" },
      { "type": "http", "url": "https://fn.azurewebsites.net/?code=azure-code-7h8j" },
      { "type": "http", "url": "http://127.0.0.1:8080/" }
    ] } }`);
    expect(config.problems).toEqual([]);
    expect(config.hooks.map((h) => h.name)).toEqual(['hooks.slack.com/…', 'fn.azurewebsites.net/…', '127.0.0.1:8080']);
  });

  it('names a command hook by its command with its credentials masked: the cut at 40 characters leaves no start of one', () => {
    const config = loadHooksValue(
      {
        hooks: {
          Stop: [
            { type: 'command', command: "false -H 'x-honeycomb-team: hcaik01Q7w9Z1xK4pL8mN3' || exit 2" },
            { type: 'command', command: 'curl', args: ['-H', 'Authorization: Bearer tok9Secret8f7g6h5j', 'https://api.example.com/v1'] },
            { type: 'command', command: 'echo checking the deployment target before it runs' },
          ],
        },
      },
      { kind: 'user' },
    );
    expect(config.problems).toEqual([]);
    expect(config.hooks.map((h) => h.name)).toEqual([
      "false -H 'x-honeycomb-team: ***' || exit…",
      'curl -H Authorization: *** https://api.e…',
      'echo checking the deployment target befo…',
    ]);
  });

  it('loads prompt and agent hooks on the events Claude Code runs them on, and refuses them elsewhere', () => {
    const text = `{ "hooks": {
      "Stop": [ { "type": "prompt", "prompt": "Is the work done? $ARGUMENTS", "model": "small", "continueOnBlock": true } ],
      "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "agent", "prompt": "Check the command", "timeout": 90 } ] } ],
      "SessionStart": [ { "type": "agent", "prompt": "Look around" } ]
    } }`;
    const config = load(text);
    expect(config.hooks).toMatchObject([
      {
        event: 'Stop',
        name: 'prompt: Is the work done? $ARGUMENTS',
        spec: { type: 'prompt', prompt: 'Is the work done? $ARGUMENTS', model: 'small', continueOnBlock: true },
      },
      { event: 'PreToolUse', matcher: 'Bash', timeoutMs: 90_000, spec: { type: 'agent', prompt: 'Check the command' } },
    ]);
    expect(only(config.problems, 'invalid-value')).toMatchObject({
      severity: 'error',
      path: 'hooks.SessionStart[0].type',
      message: expect.stringMatching(/agent hook cannot run on SessionStart/),
    });
  });

  it('warns about unknown properties but keeps the hook', () => {
    const text = `{ "hooks": { "PreToolUse": [ { "type": "command", "command": "a", "timout": 5 } ] } }`;
    const config = load(text);
    expect(config.hooks).toHaveLength(1);
    const problem = only(config.problems, 'unknown-property');
    expect(problem).toMatchObject({ severity: 'warning', ...positionOf(text, '"timout"') });
    expect(problem.message).toContain('Did you mean "timeout"?');
  });

  it('reports an rpc handler naming an undeclared server', () => {
    const text = `{ "servers": { "policy": { "command": ["node", "s.js"] } },
      "hooks": { "PreToolUse": [ { "type": "rpc", "server": "polcy" } ] } }`;
    const config = load(text);
    const problem = only(config.problems, 'unknown-server');
    expect(problem).toMatchObject({ severity: 'error', hookId: config.hooks[0].id, ...positionOf(text, '"polcy"') });
    expect(problem.message).toContain('Did you mean "policy"?');
  });

  it('warns where Claude Code would silently ignore a setting', () => {
    const config = load(`{ "hooks": {
      "Stop": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "a", "if": "Bash(x)" } ] } ],
      "TurnStart": [ { "type": "command", "command": "b", "timeout": 1, "timeout_ms": 250 } ]
    } }`);
    expect(config.hooks).toHaveLength(2);
    expect(config.problems.map((p) => [p.code, p.path])).toEqual([
      ['ignored-field', 'hooks.Stop[0].matcher'],
      ['ignored-field', 'hooks.Stop[0].hooks[0].if'],
      ['conflicting-fields', 'hooks.TurnStart[0].timeout'],
    ]);
    expect(config.hooks[1].timeoutMs).toBe(250);
  });

  it('keeps valid defaults when one is invalid and drops only the invalid server', () => {
    const config = load(`{
      "defaults": { "observerTimeoutMs": 100, "interceptorTimeoutMs": -5 },
      "servers": { "good": { "command": ["a"] }, "bad": { "command": [] }, "piped": { "command": "a | b" } }
    }`);
    expect(config.defaults).toEqual({ observerTimeoutMs: 100 });
    expect(config.servers.map((s) => s.name)).toEqual(['good']);
    expect(config.problems.map((p) => p.path)).toEqual(['defaults.interceptorTimeoutMs', 'servers.bad.command', 'servers.piped.command']);
  });
});

describe('loadHooksValue', () => {
  it('loads a settings object and gives problems a JSON path but no position', () => {
    const config = loadHooksValue(
      {
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: 'ok' },
                { type: 'command', command: 42 },
              ],
            },
          ],
        },
      },
      { kind: 'user' },
    );
    expect(config.hooks).toHaveLength(1);
    expect(config.hooks[0].source).toEqual({ kind: 'user', path: 'hooks.PreToolUse[0].hooks[0]' });
    expect(config.problems).toHaveLength(1);
    expect(config.problems[0]).toMatchObject({ code: 'invalid-value', path: 'hooks.PreToolUse[0].hooks[1].command', sourceKind: 'user' });
    expect(config.problems[0].line).toBeUndefined();
  });

  it('treats an unset setting as empty and rejects a non-object', () => {
    expect(loadHooksValue(undefined, { kind: 'workspace' })).toMatchObject({ hooks: [], problems: [] });
    expect(loadHooksValue(null, { kind: 'workspace' })).toMatchObject({ hooks: [], problems: [] });
    expect(loadHooksValue([1], { kind: 'workspace' }).problems.map((p) => p.code)).toEqual(['invalid-value']);
  });
});

describe('loadHooksDocument: timeouts over the maximum', () => {
  it("keeps a guard whose timeout overflows Node's timers, at 24 h, with an error at the value", () => {
    const text = `{
  "hooks": {
    "PreToolUse": [{ "hooks": [
      { "type": "command", "command": "guard.sh", "onFailure": "block", "timeout": 2592000 },
      { "type": "command", "command": "other.sh", "timeout_ms": 99999999999 }
    ] }]
  },
  "servers": { "s": { "command": ["node", "s.js"], "timeout_ms": 3000000000 } },
  "defaults": { "commandTimeoutMs": 1e400 }
}`;
    const config = load(text);
    expect(config.hooks.map((h) => h.timeoutMs)).toEqual([86_400_000, 86_400_000]);
    expect(config.servers[0].timeoutMs).toBe(86_400_000);
    expect(config.defaults).toEqual({ commandTimeoutMs: 86_400_000 });
    const errors = config.problems.filter((p) => p.severity === 'error');
    expect(errors.map((p) => p.path)).toEqual([
      'hooks.PreToolUse[0].hooks[0].timeout',
      'hooks.PreToolUse[0].hooks[1].timeout_ms',
      'servers.s.timeout_ms',
      'defaults.commandTimeoutMs',
    ]);
    expect(errors[0]).toMatchObject({ code: 'invalid-value', ...positionOf(text, '2592000') });
    expect(errors[0].message).toBe('"timeout" 2592000 is over the maximum of 86400 s (24 h); 86400 s (24 h) is used instead.');
    expect(errors[2]).toMatchObject(positionOf(text, '3000000000'));
  });

  it('reports the snake_case spelling of a nested default where it is written', () => {
    const config = load('{ "hooks": { "defaults": { "command_timeout_ms": 90000000 } } }');
    expect(config.defaults).toEqual({ commandTimeoutMs: 86_400_000 });
    expect(only(config.problems, 'invalid-value').path).toBe('hooks.defaults.command_timeout_ms');
  });
});

describe('loadHooksDocument: matchers that would need backtracking', () => {
  it('reports a lookahead matcher at its position as an error that says why', () => {
    const text = '{ "hooks": { "PreToolUse": [{ "matcher": "Bash(?!Output)", "hooks": [{ "type": "command", "command": "true" }] }] } }';
    const config = load(text);
    const problem = only(config.problems, 'invalid-matcher');
    expect(problem).toMatchObject({ severity: 'error', path: 'hooks.PreToolUse[0].matcher', ...positionOf(text, '"Bash(?!') });
    expect(problem.message).toMatch(
      /^Matcher "Bash\(\?!Output\)" is not a valid regular expression \(.*lookaround and backreferences are not supported/,
    );
  });
});

describe('loadHooksDocument: allowedHttpHookUrls', () => {
  it('keeps the list and reports a pattern that does not parse at its position, as allowing nothing', () => {
    const text = '{ "allowedHttpHookUrls": ["https://*.example.com/*", "http://h*.example.com/*"] }';
    const config = load(text);
    expect(config.allowedHttpHookUrls).toEqual(['https://*.example.com/*', 'http://h*.example.com/*']);
    const problem = only(config.problems, 'invalid-value');
    expect(problem).toMatchObject({ severity: 'error', path: 'allowedHttpHookUrls[1]', ...positionOf(text, '"http://h*') });
    expect(problem.message).toBe(
      'URL pattern "http://h*.example.com/*" may use "*" only as whole leading labels of the host ("*.example.com"); it allows no URL.',
    );
  });
});

describe('keys an object inherits', () => {
  const KEYS = ['toString', 'constructor', '__proto__', 'valueOf', 'hasOwnProperty'];
  const guard = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'exit 2' }] }] };

  it.each(KEYS)('%j is an unknown key at every level, and the hooks beside it load', (key) => {
    const documents = [
      `{ "${key}": 1, "hooks": ${JSON.stringify(guard)} }`,
      `{ "defaults": { "${key}": 1 }, "builtins": { "${key}": true }, "hooks": ${JSON.stringify(guard)} }`,
      `{ "hooks": { "${key}": [], "PreToolUse": ${JSON.stringify(guard.PreToolUse)} } }`,
      `{ "hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "${key}" }, { "type": "command", "command": "exit 2", "${key}": 1 }] }] } }`,
    ];
    for (const text of documents) {
      const config = load(text);
      expect(
        config.hooks.map((h) => h.spec),
        text,
      ).toEqual([expect.objectContaining({ type: 'command', command: 'exit 2' })]);
      expect(config.problems.length, text).toBeGreaterThan(0);
    }
    const value = loadHooksValue(JSON.parse(`{ "${key}": 1, "hooks": ${JSON.stringify(guard)} }`), { kind: 'user' });
    expect(value.hooks).toHaveLength(1);
  });
});

describe('a source nested past the stack', () => {
  const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;

  it('is an error naming its file, not a crash: the file cannot be read, so a run refuses it', () => {
    const config = load(`{"defaults": ${deep}}`);
    expect(config.hooks).toEqual([]);
    expect(config.problems).toEqual([
      expect.objectContaining({
        severity: 'error',
        code: 'unreadable',
        file: FILE,
        message: `cannot read ${FILE}: nested more than 256 levels deep`,
      }),
    ]);
  });

  it('counts only a close of the kind opened: [},[},… (the parser skips the stray }) is as deep as [[[…', () => {
    const config = load(`{"hooks": {}, "x": ${'[},'.repeat(200_000)}}`);
    expect(config.problems).toEqual([
      expect.objectContaining({ code: 'unreadable', message: `cannot read ${FILE}: nested more than 256 levels deep` }),
    ]);
  });

  it('loads a file nested exactly as deep as the limit', () => {
    const value = `${'['.repeat(254)}${']'.repeat(254)}`;
    const config = load(`{"hooks": {}, "x": ${value}}`);
    expect(config.problems.filter((p) => p.code === 'unreadable' || p.code === 'syntax')).toEqual([]);
  });
});

describe('a key written twice in one object', () => {
  it('is an error at the second key: only its last value counts', () => {
    const text = `{
  "hooks": { "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "exit 2" }] }] },
  "hooks": {}
}`;
    const problem = only(load(text).problems, 'syntax');
    expect(problem).toMatchObject({
      severity: 'error',
      message: 'Duplicate key "hooks": only its last value counts.',
      ...positionOf(text, '"hooks"', 2),
    });
    const nested = load('{ "hooks": { "Stop": [{ "hooks": [{ "type": "command", "command": "a", "command": "b" }] }] } }');
    expect(only(nested.problems, 'syntax').message).toBe('Duplicate key "command": only its last value counts.');
    expect(nested.hooks.map((h) => h.spec)).toEqual([expect.objectContaining({ command: 'b' })]);
  });
});

describe('a source of more hooks than one may hold', () => {
  const document = (count: number) =>
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: Array.from({ length: count - 1 }, (_, i) => ({ type: 'command', command: `node g${i}.js` })) },
        ],
        Stop: [{ type: 'command', command: 'npm test' }],
      },
    });

  it('loads none of them, as an unreadable source: past 1,000 hooks', () => {
    const loaded = load(document(1_001));
    expect(loaded.hooks).toEqual([]);
    expect(only(loaded.problems, 'unreadable')).toMatchObject({
      severity: 'error',
      message: expect.stringContaining('1001 hooks, more than the 1000'),
    });
  });

  it('loads 1,000', () => {
    const loaded = load(document(1_000));
    expect(loaded.hooks).toHaveLength(1_000);
    expect(loaded.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });
});
