import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { hookDependencyFiles, protectedHookFiles } from '../../src/core/engine/protected-files';
import { ScriptPins } from '../../src/core/engine/script-pins';
import { loadHooksDocument } from '../../src/core/hooks/config/config-loader';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import { toolPayload } from '../support/hook-fixtures';
import { isProcessAlive } from '../support/process-liveness';
import { hooksJson, makeWorkspace } from '../support/workspace';

const REPO_ROOT = path.resolve(__dirname, '../..');
let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  cleanups = [];
});

function workspace(files: Record<string, string>) {
  const ws = makeWorkspace(files);
  cleanups.push(ws.cleanup);
  return ws;
}

async function engineFor(dir: string): Promise<HookEngine> {
  const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-pins-'));
  const engine = new HookEngine({ projectDir: dir, storageDir: storage, trusted: true });
  cleanups.push(async () => {
    await engine.dispose();
    rmSync(storage, { recursive: true, force: true });
  });
  await engine.reload(loadWorkspaceConfigs(dir));
  return engine;
}

const allow = (note: string) => `process.stdout.write(${JSON.stringify(note)});`;

/** Re-approves `key` as a person would: what review lists now, by its fingerprint. */
function approveAsListed(pins: ScriptPins, key: string): void {
  expect(pins.approve(key, pins.review(key)?.fingerprint ?? '')).toBe(true);
}

/** The hook engine's Re-approve, with the fingerprint of the files the Hook Manager lists now. */
function reapprove(engine: HookEngine, hookId: string): Promise<void> {
  return engine.approveScripts(hookId, engine.scriptReview(hookId)?.fingerprint ?? '');
}

describe('ScriptPins', () => {
  it('sees a rewrite with its mtime put back, a file that appears or becomes a directory; not a touch', () => {
    const ws = workspace({ 'a.sh': 'echo one\n', 'b.sh': 'x' });
    const pins = new ScriptPins();
    pins.pinAll(
      new Map([
        ['h', { files: [ws.file('a.sh')] }],
        ['new', { files: [ws.file('later.sh')] }],
        ['dir', { files: [ws.file('b.sh')] }],
      ]),
    );
    expect(pins.changed('h')).toBeUndefined();

    const before = statSync(ws.file('a.sh'));
    utimesSync(ws.file('a.sh'), new Date(), new Date());
    expect(pins.changed('h')).toBeUndefined();
    writeFileSync(ws.file('a.sh'), 'echo two\n');
    utimesSync(ws.file('a.sh'), before.atime, before.mtime);
    expect(pins.changed('h')).toBe(ws.file('a.sh'));
    // Still changed until a person approves it.
    expect(pins.changed('h')).toBe(ws.file('a.sh'));
    approveAsListed(pins, 'h');
    expect(pins.changed('h')).toBeUndefined();

    expect(pins.changed('new')).toBeUndefined();
    writeFileSync(ws.file('later.sh'), 'echo hi\n');
    expect(pins.changed('new')).toBe(ws.file('later.sh'));

    unlinkSync(ws.file('b.sh'));
    mkdirSync(ws.file('b.sh'));
    expect(pins.changed('dir')).toBe(ws.file('b.sh'));
  });

  it('review lists every changed file; approve pins only the files as that review fingerprinted them', () => {
    const ws = workspace({ 'a.sh': 'one', 'b.sh': 'one', 'lib/c.sh': 'one', 'lib/d.sh': 'one' });
    const pins = new ScriptPins();
    pins.pinAll(new Map([['h', { files: [ws.file('a.sh'), ws.file('b.sh')], folders: [{ dir: ws.file('lib') }] }]]));
    expect(pins.review('h')?.changed).toEqual([]);

    writeFileSync(ws.file('a.sh'), 'two');
    writeFileSync(ws.file('lib/c.sh'), 'two');
    unlinkSync(ws.file('lib/d.sh'));
    writeFileSync(ws.file('lib/e.sh'), 'new');
    const listed = pins.review('h');
    expect(listed?.changed.sort()).toEqual([ws.file('a.sh'), ws.file('lib/c.sh'), ws.file('lib/d.sh'), ws.file('lib/e.sh')]);
    // Reviewing approves nothing.
    expect(pins.changed('h')).toBe(ws.file('a.sh'));

    // A rewrite after the review: its fingerprint no longer matches, and nothing is pinned.
    writeFileSync(ws.file('lib/e.sh'), 'newer');
    expect(pins.approve('h', listed?.fingerprint ?? '')).toBe(false);
    expect(pins.changed('h')).toBe(ws.file('a.sh'));
    expect(pins.approve('h', 'not a fingerprint')).toBe(false);

    const again = pins.review('h');
    expect(again?.fingerprint).not.toBe(listed?.fingerprint);
    expect(pins.approve('h', again?.fingerprint ?? '')).toBe(true);
    expect(pins.changed('h')).toBeUndefined();
    expect(pins.review('h')).toEqual({ changed: [], fingerprint: again?.fingerprint });
  });

  it('a reload keeps the pins of unchanged hooks: reapplying a configuration approves nothing', () => {
    const ws = workspace({ 'a.sh': 'one' });
    const pins = new ScriptPins();
    pins.pinAll(new Map([['h', { files: [ws.file('a.sh')] }]]));
    writeFileSync(ws.file('a.sh'), 'two');
    pins.pinAll(new Map([['h', { files: [ws.file('a.sh')] }]]));
    expect(pins.changed('h')).toBe(ws.file('a.sh'));
  });

  it("a script folder: a new file, a new subfolder or a changed sibling is a change; a touch or Python's cache is not", () => {
    const ws = workspace({ 'hooks/guard.py': 'import lib\n', 'hooks/lib.py': 'x = 1\n', 'hooks/sub/deep.py': '' });
    const pins = new ScriptPins();
    const pin = () => pins.pinAll(new Map([['h', { files: [ws.file('hooks/guard.py')], folders: [{ dir: ws.file('hooks') }] }]]));
    expect(pin()).toEqual([]);
    utimesSync(ws.file('hooks/lib.py'), new Date(), new Date());
    mkdirSync(ws.file('hooks/__pycache__'));
    writeFileSync(ws.file('hooks/__pycache__/lib.cpython-311.pyc'), 'bytecode');
    expect(pins.changed('h')).toBeUndefined();

    writeFileSync(ws.file('hooks/json.py'), 'evil');
    expect(pins.changed('h')).toBe(ws.file('hooks/json.py'));
    // A reload keeps the folder's pin: the new file stays a change.
    pin();
    expect(pins.changed('h')).toBe(ws.file('hooks/json.py'));
    approveAsListed(pins, 'h');
    expect(pins.changed('h')).toBeUndefined();

    writeFileSync(ws.file('hooks/sub/deep.py'), 'evil');
    expect(pins.changed('h')).toBe(ws.file('hooks/sub/deep.py'));
    approveAsListed(pins, 'h');
    mkdirSync(ws.file('hooks/node_modules'));
    expect(pins.changed('h')).toBe(ws.file('hooks/node_modules'));
    approveAsListed(pins, 'h');
    unlinkSync(ws.file('hooks/lib.py'));
    expect(pins.changed('h')).toBe(ws.file('hooks/lib.py'));
  });

  it("the workspace root is pinned by its entries with the script's extension only", () => {
    const ws = workspace({ 'guard.py': '', 'README.md': '' });
    const pins = new ScriptPins();
    pins.pinAll(new Map([['h', { files: [ws.file('guard.py')], folders: [{ dir: ws.dir, extension: '.py' }] }]]));
    writeFileSync(ws.file('notes.txt'), '');
    mkdirSync(ws.file('src'));
    expect(pins.changed('h')).toBeUndefined();
    writeFileSync(ws.file('json.py'), 'evil');
    expect(pins.changed('h')).toBe(ws.file('json.py'));
  });

  it('a Python root is pinned by what Python imports from it: modules in any form, and packages made later', () => {
    const ws = workspace({ 'guard.py': '', 'lib/__init__.py': 'x = 1', 'src/app.ts': '' });
    const pins = new ScriptPins();
    const pin = () => pins.pinAll(new Map([['h', { files: [ws.file('guard.py')], folders: [{ dir: ws.dir, extension: '.py' }] }]]));
    pin();
    const changedBy = (make: () => void, undo: () => void) => {
      make();
      const changed = pins.changed('h');
      undo();
      approveAsListed(pins, 'h');
      return changed;
    };
    // Files in a folder that is no package, and Python's cache, import nothing.
    expect(
      changedBy(
        () => writeFileSync(ws.file('src/tool.py'), ''),
        () => unlinkSync(ws.file('src/tool.py')),
      ),
    ).toBeUndefined();
    mkdirSync(ws.file('__pycache__'));
    expect(
      changedBy(
        () => writeFileSync(ws.file('__pycache__/__init__.py'), ''),
        () => unlinkSync(ws.file('__pycache__/__init__.py')),
      ),
    ).toBeUndefined();
    // A folder first, then the file that makes it a package.
    mkdirSync(ws.file('json'));
    expect(pins.changed('h')).toBeUndefined();
    expect(
      changedBy(
        () => writeFileSync(ws.file('json/__init__.py'), ''),
        () => unlinkSync(ws.file('json/__init__.py')),
      ),
    ).toBe(ws.file('json'));
    for (const name of ['json.pyc', 'json.cpython-312-x86_64-linux-gnu.so', 'json/__init__.abi3.so'])
      expect(
        changedBy(
          () => writeFileSync(ws.file(name), ''),
          () => unlinkSync(ws.file(name)),
        ),
      ).toBe(ws.file(name.split('/')[0]));
    expect(
      changedBy(
        () => symlinkSync(ws.file('lib'), ws.file('mcp')),
        () => unlinkSync(ws.file('mcp')),
      ),
    ).toBe(ws.file('mcp'));
    // A package the guard may import is pinned by its __init__.
    expect(
      changedBy(
        () => writeFileSync(ws.file('lib/__init__.py'), 'x = 2'),
        () => writeFileSync(ws.file('lib/__init__.py'), 'x = 1'),
      ),
    ).toBe(ws.file('lib/__init__.py'));
  });

  it('a folder over the bounds pins its listing only, and says so', async () => {
    const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`hooks/f${i}.js`, '']));
    const ws = workspace({
      ...many,
      'hooks/guard.js': allow('ok'),
      '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }] }),
    });
    const engine = await engineFor(ws.dir);
    expect(engine.problems).toContainEqual(
      expect.objectContaining({ code: 'script-folder-too-large', message: expect.stringContaining('hooks holds more than 200 files') }),
    );
    const id = engine.registry.current().states.find((s) => s.hook.spec.type === 'command')?.hook.id ?? '';
    writeFileSync(ws.file('hooks/f3.js'), 'changed');
    expect(engine.scriptChange(id)).toBeUndefined();
    writeFileSync(ws.file('hooks/new.js'), '');
    expect(engine.scriptChange(id)).toBe('script changed since it was approved: hooks/new.js');
  });
});

describe('hookDependencyFiles', () => {
  it('names the script, files named anywhere in the command, what an npm script runs, a Makefile, a python -m module', () => {
    const ws = workspace({
      'hooks/guard.py': '',
      'hooks/lib.sh': '',
      'hooks/rules.json': '',
      'hooks/pre.js': '',
      'hooks/main.js': '',
      'package.json': JSON.stringify({ scripts: { prelint: 'node hooks/pre.js', lint: 'node ./hooks/main.js --fix' } }),
    });
    const hooks = loadHooksDocument(
      hooksJson({
        PreToolUse: [
          {
            hooks: [
              { type: 'command', command: 'python3 "$CLAUDE_PROJECT_DIR/hooks/guard.py" --rules hooks/rules.json /etc/passwd' },
              { type: 'command', command: `bash -c 'source hooks/lib.sh && check'` },
              { type: 'command', command: 'npm run lint' },
              { type: 'command', command: './hooks/missing.sh' },
              { type: 'command', command: 'node', args: ['${CLAUDE_PROJECT_DIR}/hooks/main.js'] },
              { type: 'command', command: 'npx --yes eslint .' },
              { type: 'command', command: 'make -s guard' },
              { type: 'command', command: 'python3 -m hooks.check' },
            ],
          },
        ],
      }),
      { kind: 'hooksJson', file: ws.file('.vscode/hooks.json') },
    ).hooks;
    const deps = hooks.map((hook) =>
      hookDependencyFiles(ws.dir, hook)
        .map((f) => path.relative(ws.dir, f))
        .sort(),
    );
    expect(deps).toEqual([
      ['hooks/guard.py', 'hooks/rules.json'],
      ['hooks/lib.sh'],
      ['.npmrc', '.yarnrc', '.yarnrc.yml', 'hooks/main.js', 'hooks/pre.js', 'package.json'],
      // Missing now, pinned as missing: one created later is a change.
      ['hooks/missing.sh'],
      ['hooks/main.js'],
      ['.npmrc', '.yarnrc', '.yarnrc.yml', 'node_modules/.bin/eslint', 'package.json'],
      ['GNUmakefile', 'Makefile', 'makefile'],
      // Python imports from the working directory first: a hooks.py there would run instead.
      ['hooks.py', 'hooks/check.py', 'hooks/check/__main__.py'],
    ]);
  });
});

describe('protectedHookFiles around script folders', () => {
  it('protects a script folder whole, and for JavaScript the package.json and node_modules above it up to the root', () => {
    const ws = workspace({ 'tools/hooks/guard.js': '', 'py/guard.py': '', 'guard.sh': '' });
    const hooks = loadHooksDocument(
      hooksJson({
        PreToolUse: [
          { hooks: ['node tools/hooks/guard.js', 'python3 py/guard.py', './guard.sh'].map((command) => ({ type: 'command', command })) },
        ],
      }),
      { kind: 'hooksJson', file: ws.file('.vscode/hooks.json') },
    ).hooks;
    const shown = protectedHookFiles(ws.dir, hooks).map((f) => path.relative(ws.dir, f) + (f.endsWith(path.sep) ? path.sep : ''));
    expect(shown).toEqual(
      expect.arrayContaining([
        'tools/hooks/',
        'tools/package.json',
        'tools/node_modules/',
        'package.json',
        'node_modules/',
        'py/',
        '__pycache__/',
      ]),
    );
    // The root itself is not a protected folder: its script's lookups are, and its siblings are pinned.
    expect(shown).not.toContain('/');
    expect(shown).not.toContain('py/package.json');
  });
});

describe('a hook that writes its own log', () => {
  it('is not changed by its own runs: redirection targets and tee files are outputs', async () => {
    const ws = workspace({
      'hooks/guard.js': allow('ok'),
      'logs/out.log': '',
      'logs/err.log': '',
      'logs/tee.log': '',
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [
          {
            hooks: [
              { type: 'command', command: 'node hooks/guard.js >> logs/out.log 2> logs/err.log; echo "{}"', name: 'redirect' },
              { type: 'command', command: `bash -c 'node hooks/guard.js | tee -a logs/tee.log >/dev/null'`, name: 'tee' },
            ],
          },
        ],
      }),
    });
    const engine = await engineFor(ws.dir);
    for (const state of engine.registry.current().states.filter((s) => s.hook.spec.type === 'command')) {
      expect(hookDependencyFiles(ws.dir, state.hook).map((f) => path.relative(ws.dir, f))).toEqual(['hooks/guard.js']);
    }
    for (let i = 0; i < 2; i++) {
      const result = await engine.dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }, { cwd: ws.dir }));
      // Same priority: the two run in parallel and finish in either order.
      expect(
        result.runs
          .filter((r) => r.handler === 'command')
          .map((r) => [r.hookName, r.status])
          .sort(),
      ).toEqual([
        ['redirect', 'success'],
        ['tee', 'success'],
      ]);
    }
    expect(readFileSync(ws.file('logs/tee.log'), 'utf8')).toBe('okok');
  });
});

describe('a hook whose script changed', () => {
  it('blocks PreToolUse and denies PermissionRequest whatever onFailure says, until re-approved', async () => {
    const ws = workspace({
      'hooks/guard.js': allow('guard ok'),
      'hooks/approve.js': allow('{}'),
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard', onFailure: 'continue' }] }],
        PermissionRequest: [{ hooks: [{ type: 'command', command: 'node hooks/approve.js', name: 'approver', onFailure: 'continue' }] }],
      }),
    });
    const engine = await engineFor(ws.dir);
    const id = (name: string) => engine.registry.current().states.find((s) => s.hook.name === name)?.hook.id ?? '';
    const pre = () => engine.dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }, { cwd: ws.dir }));
    expect((await pre()).blocked).toBe(false);

    writeFileSync(ws.file('hooks/guard.js'), allow('weakened'));
    writeFileSync(
      ws.file('hooks/approve.js'),
      allow(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } })),
    );
    const blocked = await pre();
    expect(blocked).toMatchObject({ blocked: true, decision: 'deny', blockReason: 'script changed since it was approved: hooks/guard.js' });
    const asked = await engine.dispatcher.dispatch(toolPayload('PermissionRequest', 'Bash', { command: 'ls' }, { cwd: ws.dir }));
    expect(asked.permission).toMatchObject({ behavior: 'deny', message: 'script changed since it was approved: hooks/approve.js' });
    expect(engine.scriptChange(id('guard'))).toBe('script changed since it was approved: hooks/guard.js');

    // Reloading the same configuration is no approval.
    await engine.reload(loadWorkspaceConfigs(ws.dir));
    expect((await pre()).blocked).toBe(true);

    await reapprove(engine, id('guard'));
    expect(engine.scriptChange(id('guard'))).toBeUndefined();
    const after = await pre();
    expect(after.blocked).toBe(false);
    expect(after.runs.find((r) => r.hookName === 'guard')?.status).toBe('success');
    // The other hook stays refused: approval is per hook.
    expect(engine.scriptChange(id('approver'))).toBe('script changed since it was approved: hooks/approve.js');
  });

  it('Re-approve names every changed file, and is refused when they changed after they were listed', async () => {
    const ws = workspace({
      'hooks/guard.js': `require('./lib.js'); ${allow('guard ok')}`,
      'hooks/lib.js': 'module.exports = 1;',
      '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }] }),
    });
    const engine = await engineFor(ws.dir);
    const id = engine.registry.current().states.find((s) => s.hook.name === 'guard')?.hook.id ?? '';
    expect(engine.scriptReview(id)).toBeUndefined();

    writeFileSync(ws.file('hooks/guard.js'), `require('./lib.js'); ${allow('guard ok, v2')}`);
    writeFileSync(ws.file('hooks/lib.js'), 'module.exports = 2;');
    const listed = engine.scriptReview(id);
    expect(listed?.files.sort()).toEqual(['hooks/guard.js', 'hooks/lib.js']);

    writeFileSync(ws.file('hooks/lib.js'), 'module.exports = 3;');
    await expect(engine.approveScripts(id, listed?.fingerprint ?? '')).rejects.toThrow(
      'the scripts of "guard" changed after the Hook Manager listed them, so nothing was approved: read the files it lists now, then re-approve',
    );
    expect(engine.scriptChange(id)).toBe('script changed since it was approved: hooks/guard.js');

    await reapprove(engine, id);
    expect(engine.scriptChange(id)).toBeUndefined();
  });

  it('granting workspace trust approves no script the agent changed while the folder was untrusted', async () => {
    const ws = workspace({
      'hooks/guard.js': allow('guard ok'),
      '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'guard' }] }] }),
    });
    const storage = mkdtempSync(path.join(tmpdir(), 'hookpilot-pins-'));
    const engine = new HookEngine({ projectDir: ws.dir, storageDir: storage, trusted: false });
    cleanups.push(async () => {
      await engine.dispose();
      rmSync(storage, { recursive: true, force: true });
    });
    await engine.reload(loadWorkspaceConfigs(ws.dir));
    writeFileSync(ws.file('hooks/guard.js'), allow('weakened'));
    await engine.setTrusted(true);
    const result = await engine.dispatcher.dispatch(toolPayload('PreToolUse', 'Bash', { command: 'ls' }, { cwd: ws.dir }));
    expect(result).toMatchObject({ blocked: true, blockReason: 'script changed since it was approved: hooks/guard.js' });
  });

  it('an rpc server whose script changed is not restarted after a crash, until re-approved', async () => {
    const server = (version: string) => `require('fs').appendFileSync('starts.log', ${JSON.stringify(version)} + ' ' + process.pid + '\\n');
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require(${JSON.stringify(path.join(REPO_ROOT, 'node_modules/vscode-jsonrpc/node'))});
const c = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));
c.onRequest('initialize', () => ({ name: 'policy', observe: [], intercept: ['PreToolUse'] }));
c.onRequest('hook/intercept', () => ({}));
c.onRequest('shutdown', () => null);
c.onNotification('exit', () => process.exit(0));
c.listen();
`;
    const ws = workspace({
      'hooks/server.js': server('v1'),
      '.vscode/hooks.json': hooksJson({}, { servers: { policy: { command: ['node', 'hooks/server.js'], intercept: ['PreToolUse'] } } }),
    });
    const engine = await engineFor(ws.dir);
    await expect.poll(() => engine.rpcPool.status('policy')?.state, { timeout: 10_000 }).toBe('ready');
    const pid = engine.rpcPool.status('policy')?.pid ?? 0;

    writeFileSync(ws.file('hooks/server.js'), server('v2'));
    process.kill(-pid, 'SIGKILL');
    await expect.poll(() => engine.rpcPool.status('policy')?.state, { timeout: 10_000 }).toBe('failed');
    expect(engine.rpcPool.status('policy')?.lastError).toContain(
      'was not restarted: script changed since it was approved: hooks/server.js',
    );
    expect(readFileSync(ws.file('starts.log'), 'utf8').trim().split('\n')).toHaveLength(1);
    expect(isProcessAlive(pid)).toBe(false);

    await reapprove(engine, 'rpc:policy:PreToolUse');
    await expect.poll(() => engine.rpcPool.status('policy')?.state, { timeout: 10_000 }).toBe('ready');
    expect(readFileSync(ws.file('starts.log'), 'utf8')).toMatch(/^v1 \d+\nv2 \d+\n$/);
  });
});
