import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, REPO_ROOT, startTestbed, toolMessageSent, type Testbed, useCliBundle } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A real third-party Claude Code hook from npm, run unchanged: cc-safety-net, configured as its
// installer configures it for Claude Code (a PreToolUse command hook for every tool).

const SAFETY_NET = path.join(REPO_ROOT, 'node_modules/.bin/cc-safety-net');

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('cc-safety-net through hookpilot run', () => {
  it('blocks git reset --hard and a Read of .env, and allows ls', async () => {
    bed = await startTestbed(
      bundle.bundle,
      {
        'work.txt': 'committed\n',
        '.env': 'DATABASE_PASSWORD=hunter2-very-secret\n',
        '.vscode/hooks.json': hooksJson({ PreToolUse: [{ hooks: [{ type: 'command', command: `${SAFETY_NET} hook --claude-code` }] }] }),
      },
      [
        toolCalls([{ id: 'reset', name: 'Bash', arguments: { command: 'git reset --hard' } }]),
        toolCalls([{ id: 'env', name: 'Read', arguments: { file_path: '.env' } }]),
        toolCalls([{ id: 'ls', name: 'Bash', arguments: { command: 'ls' } }]),
        text('done'),
      ],
    );
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], {
        cwd: bed!.workspace.dir,
        env: bed!.env,
      });
    git('init', '-q');
    git('add', 'work.txt');
    git('commit', '-qm', 'start');
    // Uncommitted work that `git reset --hard` would destroy.
    execFileSync('sh', ['-c', 'echo "uncommitted" >> work.txt'], { cwd: bed.workspace.dir });

    const r = await bed.run(['clean up and look around', '--permission-mode', 'bypassPermissions', '--output-format', 'json']);
    expect(r.code).toBe(0);
    const calls = Object.fromEntries(jsonResult(r).tool_calls.map((c) => [c.id, c.outcome]));
    expect(calls).toEqual({ reset: 'blocked', env: 'blocked', ls: 'executed' });

    expect(readFileSync(bed.workspace.file('work.txt'), 'utf8')).toBe('committed\nuncommitted\n');
    expect(toolMessageSent(bed.server, 'reset')).toMatch(/BLOCKED by CC Safety Net[\s\S]*git reset --hard/);
    const envMessage = toolMessageSent(bed.server, 'env') ?? '';
    expect(envMessage).toMatch(/BLOCKED by CC Safety Net[\s\S]*sensitive path/);
    expect(JSON.stringify(bed.server.requests.map((q) => q.body.messages))).not.toContain('hunter2-very-secret');
    expect(toolMessageSent(bed.server, 'ls')).toContain('work.txt');
  });
});
