import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, startTestbed, type CliResult, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type ScriptedReply } from '../support/model-server';
import { GitWorktree } from '../../src/core/hooks/builtins/git-worktree';
import { watchingPeakMemory } from '../support/peak-resident-memory';

// AutoCommit through the real CLI, a real git repository in a temp dir and the scripted model.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const write = (id: string, file: string, content: string) => toolCalls([{ id, name: 'Write', arguments: { file_path: file, content } }]);
const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
const settings = (autoCommit: boolean | 'unset') =>
  JSON.stringify({ hooks: {}, ...(autoCommit === 'unset' ? {} : { builtins: { AutoCommit: autoCommit } }) });

/** A repository with one commit, a file the user changed but did not commit, and one the user staged. */
async function repoBed(
  script: ScriptedReply[],
  autoCommit: boolean | 'unset' = true,
): Promise<Testbed & { git: (...args: string[]) => string }> {
  const b = await startTestbed(
    bundle.bundle,
    { 'README.md': 'readme\n', 'notes.txt': 'mine\n', '.vscode/hooks.json': settings(autoCommit) },
    script,
  );
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: b.workspace.dir, encoding: 'utf8', env: { ...b.env, GIT_CONFIG_NOSYSTEM: '1' } });
  git('init', '-q');
  git('config', 'user.name', 'Test User');
  git('config', 'user.email', 'test@example.invalid');
  git('add', '.');
  git('commit', '-q', '-m', 'initial');
  writeFileSync(b.workspace.file('notes.txt'), 'mine, edited by the user\n');
  writeFileSync(b.workspace.file('staged.txt'), 'staged by the user\n');
  git('add', 'staged.txt');
  return Object.assign(b, { git });
}

const commitCount = (git: (...args: string[]) => string) => Number(git('rev-list', '--count', 'HEAD').trim());
const auditRecords = (r: CliResult) =>
  readFileSync(jsonResult(r).audit_log, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const autoCommitRuns = (r: CliResult) => auditRecords(r).filter((rec) => rec.type === 'hook_run' && rec.hook_name === 'AutoCommit');
const autoCommitRun = (r: CliResult) => autoCommitRuns(r).find((rec) => rec.event === 'TurnEnd');

/** Runs the CLI watching its memory (killed past 1.5 GiB): its result, its peak, and whether it was killed. */
async function runWatchingMemory(b: Testbed, args: string[]): Promise<{ r: CliResult; peakMiB: number; killed: boolean }> {
  const { result, peakMiB, killed } = await watchingPeakMemory((onSpawn) => b.run(args, { timeoutMs: 120_000, onSpawn }));
  return { r: result, peakMiB, killed };
}

/**
 * A completed turn in which the model plants `content` in `.git/<file>` with a program it writes
 * and runs (the gate asks before a tool names .git; a program names nothing), then writes
 * hello.txt, a change for AutoCommit to commit. Fails unless the plant landed.
 */
async function turnPlanting(plant: { file: string; content: string; mode?: number; append?: boolean }) {
  const target = `require('path').join('.gi' + 't', ...${JSON.stringify(plant.file.split('/'))})`;
  const code = plant.append
    ? `require('fs').appendFileSync(${target}, ${JSON.stringify(plant.content)});\n`
    : `require('fs').writeFileSync(${target}, ${JSON.stringify(plant.content)}, { mode: ${plant.mode ?? 0o644} });\n`;
  const b = await repoBed([write('w0', 'plant.js', code), bash('b1', 'node plant.js'), write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
  bed = b;
  const r = await b.run(['Add a greeting', '--allowed-tools', 'Write,Bash(node:*)', '--output-format', 'json']);
  expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'executed']);
  expect(readFileSync(b.workspace.file(`.git/${plant.file}`), 'utf8')).toContain(plant.content);
  return { b, r };
}

describe('AutoCommit (built-in, off by default)', () => {
  it("commits exactly the files the completed turn changed, with the prompt in the message; the user's work stays uncommitted", async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), bash('b1', 'echo more >> README.md'), text('Done.')]);
    bed = b;
    const r = await b.run(['Add a greeting file\nand more', '--allowed-tools', 'Write,Bash(echo:*)', '--output-format', 'json']);
    expect(r.code).toBe(0);
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(commitCount(b.git)).toBe(2);
    expect(b.git('log', '-1', '--format=%s')).toBe('Hookpilot: Add a greeting file\n');
    expect(b.git('log', '-1', '--format=%b')).toContain(`session ${jsonResult(r).session_id}`);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['README.md', 'hello.txt']);
    expect(b.git('status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([' M notes.txt', 'A  staged.txt']);
    const audit = readFileSync(jsonResult(r).audit_log, 'utf8');
    expect(audit).toContain('"message":"AutoCommit ');
  });

  it('is off unless a setting turns it on', async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')], 'unset');
    bed = b;
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write']);
    expect(r.code).toBe(0);
    expect(existsSync(b.workspace.file('hello.txt'))).toBe(true);
    expect(commitCount(b.git)).toBe(1);
  });

  it('a turn that did not complete commits nothing', async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), write('w2', 'again.txt', 'x')]);
    bed = b;
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--max-steps', '1', '--output-format', 'json']);
    expect(jsonResult(r).stop_reason).toBe('max_steps');
    expect(existsSync(b.workspace.file('hello.txt'))).toBe(true);
    expect(commitCount(b.git)).toBe(1);
  });

  it('file names are literal paths: pathspec magic or an option-like name commits that file, not others', async () => {
    const b = await repoBed([write('w1', ':(glob)*', 'magic\n'), write('w2', '--all', 'dashes\n'), text('Done.')]);
    bed = b;
    const r = await b.run(['Odd names', '--allowed-tools', 'Write', '--output-format', 'json']);
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(commitCount(b.git)).toBe(2);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['--all', ':(glob)*']);
    expect(b.git('status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([' M notes.txt', 'A  staged.txt']);
  });

  it('a huge file the turn made is neither read nor committed, and the commit record names it', async () => {
    const b = await repoBed([bash('b1', 'truncate -s 3G big.bin'), write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    const r = await b.run(['Make files', '--allowed-tools', 'Write,Bash(truncate:*)', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(commitCount(b.git)).toBe(2);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
    expect(auditRecords(r)).toContainEqual(
      expect.objectContaining({
        type: 'note',
        level: 'warning',
        data: expect.objectContaining({ files: ['hello.txt'], too_large: ['big.bin'] }),
      }),
    );
  });

  it('a flood of new files is refused with the reason instead of fingerprinted one by one', async () => {
    const b = await repoBed([bash('b1', 'mkdir flood && cd flood && seq 1 10001 | xargs touch'), text('Done.')]);
    bed = b;
    const r = await b.run(['Make files', '--allowed-tools', 'Bash', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed']);
    expect(commitCount(b.git)).toBe(1);
    expect(autoCommitRun(r)).toEqual(expect.objectContaining({ status: 'error', error: expect.stringContaining('more than 10000') }));
  });

  it('never runs a git hook the model planted in .git/hooks (post-commit, which --no-verify does not skip)', async () => {
    const pwned = 'pwned-by-git-hook';
    const { b } = await turnPlanting({ file: 'hooks/post-commit', content: `#!/bin/sh\ntouch "${pwned}"\n`, mode: 0o755 });
    // Executable: git would run it after any commit of its own.
    expect(statSync(b.workspace.file('.git/hooks/post-commit')).mode & 0o111).toBe(0o111);
    expect(commitCount(b.git)).toBe(2);
    expect(existsSync(b.workspace.file(pwned))).toBe(false);
  });

  it('refuses to run git at all once the model set a command in .git/config (fsmonitor), and says so', async () => {
    const marker = path.join('..', 'pwned-by-fsmonitor');
    const { b, r } = await turnPlanting({ file: 'config', content: `[core]\n  fsmonitor = "touch ${marker}; false"\n`, append: true });
    expect(commitCount(b.git)).toBe(1);
    expect(existsSync(path.join(b.workspace.dir, marker))).toBe(false);
    expect(autoCommitRun(r)).toEqual(expect.objectContaining({ status: 'error', error: expect.stringContaining('core.fsmonitor') }));
  });

  it('never runs git, not even its first status, once .git/config names a clean filter .gitattributes applies', async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    const marker = path.join(b.home, 'pwned-by-filter');
    // Committed before the filter exists, so the setup's own git never runs it.
    writeFileSync(b.workspace.file('.gitattributes'), '* filter=x\n');
    b.git('add', '.gitattributes');
    b.git('commit', '-q', '-m', 'attributes');
    b.git('config', 'filter.x.clean', `touch '${marker}'; cat`);
    // A tracked file changed since its commit: status must run the clean filter to compare it.
    writeFileSync(b.workspace.file('README.md'), 'readme, changed so that status filters it\n');
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json']);
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(existsSync(b.workspace.file('hello.txt'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(commitCount(b.git)).toBe(2);
    expect(autoCommitRun(r)).toEqual(expect.objectContaining({ status: 'error', error: expect.stringContaining('filter.x.clean') }));
  });

  it("runs git from PATH's absolute directories outside the workspace, never a git planted in the workspace", async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    const marker = path.join(b.home, 'pwned-by-planted-git');
    writeFileSync(b.workspace.file('git'), `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
    // An empty PATH entry means the current directory, which is the workspace when git starts.
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json'], {
      env: { PATH: `:.:${b.env.PATH ?? ''}` },
    });
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(existsSync(marker)).toBe(false);
    expect(commitCount(b.git)).toBe(2);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
  });

  it('never stages a nested repository: a tracked file the turn made a gitlink to a repository with a clean filter is left out, and the filter never runs', async () => {
    // What a program of the model can do: README.md becomes a repository of its own whose config
    // names a clean filter, and the index entry a gitlink to it. `git add` would run `git status`
    // in there, and so the filter, with AutoCommit's environment.
    const nest = `
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const git = (cwd, ...args) => execFileSync('git', ['-c', 'user.name=m', '-c', 'user.email=m@e.invalid', ...args], { cwd, encoding: 'utf8' });
const marker = path.resolve('ran-nested-filter');
fs.rmSync('README.md');
fs.mkdirSync('README.md');
const sub = path.resolve('README.md');
git(sub, 'init', '-q');
fs.writeFileSync(path.join(sub, 'f'), 'f\\n');
fs.writeFileSync(path.join(sub, '.gitattributes'), '* filter=x\\n');
git(sub, 'add', 'f', '.gitattributes');
git(sub, 'commit', '-q', '-m', 'nested');
git(sub, 'config', 'filter.x.clean', 'touch ' + marker + '; cat');
// An old modification time: git cannot trust f's stat data and filters it again to compare.
fs.utimesSync(path.join(sub, 'f'), new Date('2001-01-01'), new Date('2001-01-01'));
git('.', 'rm', '-q', '--cached', 'README.md');
git('.', 'update-index', '--add', '--cacheinfo', '160000,' + git(sub, 'rev-parse', 'HEAD').trim() + ',README.md');
`;
    const b = await repoBed([write('w0', 'nest.js', nest), bash('b1', 'node nest.js'), write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write,Bash(node:*)', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'executed']);
    expect(b.git('ls-files', '-s', 'README.md')).toMatch(/^160000 /);
    expect(existsSync(b.workspace.file('ran-nested-filter'))).toBe(false);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['hello.txt', 'nest.js']);
    expect(auditRecords(r)).toContainEqual(
      expect.objectContaining({
        type: 'note',
        level: 'warning',
        data: expect.objectContaining({ files: ['hello.txt', 'nest.js'], nested_repository: ['README.md'] }),
      }),
    );
  }, 90_000);

  it("runs git without the host's secret-looking variables, as the Bash tool: a filter the user's git config names does not see them", async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    const seen = path.join(b.home, 'filter-env.txt');
    writeFileSync(b.workspace.file('.gitattributes'), '*.txt filter=hp\n');
    b.git('add', '.gitattributes');
    b.git('commit', '-q', '-m', 'attributes');
    // The user's own git configuration, as `git lfs install` writes one: AutoCommit's commit runs it on hello.txt.
    writeFileSync(path.join(b.home, '.gitconfig'), `[filter "hp"]\n\tclean = "env > '${seen}'; cat"\n`);
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json'], {
      env: { DEPLOY_TOKEN: 'tok-live-3f9a8b7c6d5e4f3a2b1c' },
    });
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
    const env = readFileSync(seen, 'utf8');
    expect(env).toContain('PATH=');
    expect(env).not.toContain('tok-live-3f9a8b7c6d5e4f3a2b1c');
  });

  it("the CLI's last turn is committed even when its commit takes longer than observers get at the session's end", async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    writeFileSync(b.workspace.file('.gitattributes'), '*.txt filter=slow\n');
    b.git('add', '.gitattributes');
    b.git('commit', '-q', '-m', 'attributes');
    // The user's own filter (as `git lfs install` writes one), slower than the 1.5 s observers get at the end.
    writeFileSync(path.join(b.home, '.gitconfig'), `[filter "slow"]\n\tclean = "sleep 2; cat"\n`);
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(commitCount(b.git)).toBe(3);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
  });

  it('a tracked folder the turn swapped for a link to /proc/self is committed as that link, never read through it', async () => {
    const b = await repoBed([
      write('w0', 'swap.js', "require('fs').rmSync('d', { recursive: true }); require('fs').symlinkSync('/proc/self', 'd');\n"),
      bash('b1', 'node swap.js'),
      text('Done.'),
    ]);
    bed = b;
    mkdirSync(b.workspace.file('d'));
    writeFileSync(b.workspace.file('d/pagemap'), 'x\n');
    b.git('add', 'd/pagemap');
    b.git('commit', '-q', '-m', 'folder');
    // Through the link, d/pagemap is the CLI's own page map: a "regular file" of size 0 whose reads never end.
    const { r, peakMiB, killed } = await runWatchingMemory(b, [
      'Tidy up',
      '--allowed-tools',
      'Write,Bash(node:*)',
      '--output-format',
      'json',
    ]);
    expect(killed).toBe(false);
    expect(peakMiB).toBeLessThan(512);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(b.git('ls-tree', 'HEAD', 'd').trim()).toMatch(/^120000 blob /);
    expect(b.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n')).not.toContain('d/pagemap');
  }, 150_000);

  it('reads a bounded number of bytes per snapshot: thousands of 16 MiB files left by an earlier turn do not hold up the next prompt', async () => {
    const b = await repoBed([text('Hello.')]);
    bed = b;
    // Sparse: no disk used, but 31 GiB to read; over 10 MB each, they are never committed and stay untracked.
    execFileSync('sh', ['-c', 'mkdir s && cd s && seq 1 2000 | xargs truncate -s 16M'], { cwd: b.workspace.dir });
    const r = await b.run(['Say hello', '--output-format', 'json'], { timeoutMs: 600_000 });
    expect(jsonResult(r).stop_reason).toBe('completed');
    const runs = autoCommitRuns(r).filter((rec) => rec.event === 'UserPromptSubmit' || rec.event === 'TurnEnd');
    expect(runs.map((rec) => rec.status)).toEqual(['success', 'success']);
    for (const run of runs) expect(run.duration_ms).toBeLessThan(15_000);
    expect(commitCount(b.git)).toBe(1);
  }, 660_000);

  it("past the byte budget, compares by metadata: the user's changed file is not taken for the turn's", async () => {
    // The turn's 20 files of 16 MiB come before notes.txt and use up the snapshot's budget, which notes.txt had at the prompt.
    const b = await repoBed([
      bash('b1', 'mkdir big && cd big && seq 1 20 | xargs truncate -s 16M'),
      write('w1', 'hello.txt', 'hello\n'),
      text('Done.'),
    ]);
    bed = b;
    const r = await b.run(['Make files', '--allowed-tools', 'Write,Bash', '--output-format', 'json'], { timeoutMs: 60_000 });
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed']);
    expect(commitCount(b.git)).toBe(2);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
    expect(b.git('status', '--porcelain', '--untracked-files=no').split('\n').filter(Boolean).sort()).toEqual([
      ' M notes.txt',
      'A  staged.txt',
    ]);
  });

  it('refuses to commit once .git/logs/HEAD links to a file outside (~/.bashrc): no reflog line, with a user.name that is shell code, lands there', async () => {
    // A link the model's program made (a downloaded archive's .git can hold one too), and an allowed key set to a command line.
    const plant = [
      "const fs = require('fs'), path = require('path'), os = require('os');",
      "const g = '.gi' + 't';",
      "fs.rmSync(path.join(g, 'logs', 'HEAD'), { force: true });",
      "fs.symlinkSync(path.join(os.homedir(), '.bashrc'), path.join(g, 'logs', 'HEAD'));",
      "fs.appendFileSync(path.join(g, 'config'), '[user]\\n\\tname = \"x;touch ~/pwned-by-reflog;y\"\\n');",
    ].join('\n');
    const b = await repoBed([
      write('w0', 'plant.js', plant),
      bash('b1', 'node plant.js'),
      write('w1', 'hello.txt', 'hello\n'),
      text('Done.'),
    ]);
    bed = b;
    const bashrc = path.join(b.home, '.bashrc');
    writeFileSync(bashrc, "# the user's shell startup file\n");
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write,Bash(node:*)', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'executed']);
    expect(readFileSync(bashrc, 'utf8')).toBe("# the user's shell startup file\n");
    expect(commitCount(b.git)).toBe(1);
    expect(autoCommitRun(r)).toEqual(
      expect.objectContaining({ status: 'error', error: expect.stringContaining('not committing: .git/logs/HEAD is a link') }),
    );
  });

  it('refuses to commit once .git/objects links to a folder outside: no object of the turn is written there', async () => {
    const plant = [
      "const fs = require('fs'), path = require('path'), os = require('os');",
      "const objects = path.join('.gi' + 't', 'objects');",
      'fs.rmSync(objects, { recursive: true });',
      "fs.symlinkSync(path.join(os.homedir(), 'objects-elsewhere'), objects);",
    ].join('\n');
    const b = await repoBed([
      write('w0', 'plant.js', plant),
      bash('b1', 'node plant.js'),
      write('w1', 'hello.txt', 'hello\n'),
      text('Done.'),
    ]);
    bed = b;
    const elsewhere = path.join(b.home, 'objects-elsewhere');
    cpSync(b.workspace.file('.git/objects'), elsewhere, { recursive: true });
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write,Bash(node:*)', '--output-format', 'json']);
    expect(jsonResult(r).tool_calls.map((c) => c.outcome)).toEqual(['executed', 'executed', 'executed']);
    const blob = b.git('hash-object', 'hello.txt').trim();
    expect(existsSync(path.join(elsewhere, blob.slice(0, 2), blob.slice(2)))).toBe(false);
    expect(commitCount(b.git)).toBe(1);
    expect(autoCommitRun(r)).toEqual(
      expect.objectContaining({ status: 'error', error: expect.stringContaining('.git/objects is a link') }),
    );
  });

  it('checks .git/config again right before the commit: a filter written after the snapshot (by a process still running) is never run', async () => {
    // commitTurn takes dirty() (which checks), fingerprints up to 256 MB, then commit(): update-index --add applies clean filters.
    const b = await repoBed([]);
    bed = b;
    const marker = path.join(b.home, 'pwned-by-late-filter');
    writeFileSync(b.workspace.file('.gitattributes'), '* filter=x\n');
    b.git('add', '.gitattributes');
    b.git('commit', '-q', '-m', 'attributes');
    writeFileSync(b.workspace.file('hello.txt'), 'hello\n');
    const git = new GitWorktree(b.workspace.dir);
    expect([...(await git.dirty()).keys()]).toContain('hello.txt');
    writeFileSync(
      b.workspace.file('.git/config'),
      `${readFileSync(b.workspace.file('.git/config'), 'utf8')}[filter "x"]\n\tclean = touch '${marker}'; cat\n`,
    );
    await expect(git.commit(['hello.txt'], 'Hookpilot: test')).rejects.toThrow('filter.x.clean');
    expect(existsSync(marker)).toBe(false);
    expect(commitCount(b.git)).toBe(2);
  });

  it('checks .git for links again right before the commit: a reflog link made after the snapshot gets no line', async () => {
    const b = await repoBed([]);
    bed = b;
    const outside = path.join(b.home, 'profile');
    writeFileSync(outside, 'mine\n');
    writeFileSync(b.workspace.file('hello.txt'), 'hello\n');
    const git = new GitWorktree(b.workspace.dir);
    expect([...(await git.dirty()).keys()]).toContain('hello.txt');
    rmSync(b.workspace.file('.git/logs/HEAD'));
    symlinkSync(outside, b.workspace.file('.git/logs/HEAD'));
    await expect(git.commit(['hello.txt'], 'Hookpilot: test')).rejects.toThrow('.git/logs/HEAD is a link');
    expect(readFileSync(outside, 'utf8')).toBe('mine\n');
    expect(commitCount(b.git)).toBe(1);
  });

  it('refuses a reflog that is a hard link to a file elsewhere (appended in place)', async () => {
    const b = await repoBed([]);
    bed = b;
    const outside = path.join(b.home, 'profile');
    writeFileSync(outside, 'mine\n');
    rmSync(b.workspace.file('.git/logs/HEAD'));
    linkSync(outside, b.workspace.file('.git/logs/HEAD'));
    writeFileSync(b.workspace.file('hello.txt'), 'hello\n');
    const git = new GitWorktree(b.workspace.dir);
    await expect(git.dirty()).rejects.toThrow('.git/logs/HEAD is a hard link');
    await expect(git.commit(['hello.txt'], 'Hookpilot: test')).rejects.toThrow('.git/logs/HEAD is a hard link');
    expect(readFileSync(outside, 'utf8')).toBe('mine\n');
  });

  it("runs git without the session's credential variables (an http hook's allowedEnvVars), as the Bash tool, whatever their names", async () => {
    const b = await startTestbed(
      bundle.bundle,
      {
        'README.md': 'readme\n',
        '.vscode/hooks.json': JSON.stringify({
          hooks: {
            PreCompact: [
              {
                hooks: [
                  {
                    type: 'http',
                    url: 'http://127.0.0.1:9/hook',
                    headers: { 'x-v': '$ACME_PARTNER_VALUE' },
                    allowedEnvVars: ['ACME_PARTNER_VALUE'],
                  },
                ],
              },
            ],
          },
          builtins: { AutoCommit: true },
        }),
      },
      [write('w1', 'hello.txt', 'hello\n'), text('Done.')],
    );
    bed = b;
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: b.workspace.dir, encoding: 'utf8', env: { ...b.env, GIT_CONFIG_NOSYSTEM: '1' } });
    git('init', '-q');
    git('config', 'user.name', 'Test User');
    git('config', 'user.email', 'test@example.invalid');
    writeFileSync(b.workspace.file('.gitattributes'), '*.txt filter=hp\n');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    const seen = path.join(b.home, 'filter-env.txt');
    writeFileSync(path.join(b.home, '.gitconfig'), `[filter "hp"]\n\tclean = "env > '${seen}'; cat"\n`);
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json'], {
      env: { ACME_PARTNER_VALUE: 'partner-7c1d9e' },
    });
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
    const env = readFileSync(seen, 'utf8');
    expect(env).toContain('PATH=');
    expect(env).not.toContain('partner-7c1d9e');
  });

  it('never commits a file git ignored before the turn: a turn that un-ignores .env and secrets/ commits only .gitignore, and says what it left', async () => {
    const b = await repoBed([write('w1', '.gitignore', 'node_modules/\n'), text('Done.')]);
    bed = b;
    writeFileSync(b.workspace.file('.gitignore'), '.env\nsecrets/\n');
    b.git('add', '.gitignore');
    b.git('commit', '-q', '-m', 'ignore .env');
    writeFileSync(b.workspace.file('.env'), 'DATABASE_PASSWORD=hunter2-very-secret\n');
    mkdirSync(b.workspace.file('secrets'));
    writeFileSync(b.workspace.file('secrets/key.pem'), 'private\n');
    const r = await b.run(['Tidy the ignore file', '--allowed-tools', 'Write', '--output-format', 'json']);
    expect(jsonResult(r).stop_reason).toBe('completed');
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toEqual(['.gitignore']);
    expect(auditRecords(r)).toContainEqual(
      expect.objectContaining({
        type: 'note',
        level: 'warning',
        data: expect.objectContaining({ files: ['.gitignore'], ignored_before: ['.env', 'secrets/key.pem'] }),
      }),
    );
  });

  it('an ignored folder of more files than the changed-file limit counts as one entry: the turn is still committed', async () => {
    const b = await repoBed([write('w1', 'hello.txt', 'hello\n'), text('Done.')]);
    bed = b;
    writeFileSync(b.workspace.file('.gitignore'), 'node_modules/\n');
    b.git('add', '.gitignore');
    b.git('commit', '-q', '-m', 'ignore node_modules');
    execFileSync('sh', ['-c', 'mkdir -p node_modules/pkg && cd node_modules/pkg && seq 1 10001 | xargs touch'], { cwd: b.workspace.dir });
    const r = await b.run(['Add a greeting', '--allowed-tools', 'Write', '--output-format', 'json']);
    const runs = autoCommitRuns(r).filter((rec) => rec.event === 'UserPromptSubmit' || rec.event === 'TurnEnd');
    expect(runs.map((rec) => rec.status)).toEqual(['success', 'success']);
    expect(b.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('hello.txt');
  });
});
