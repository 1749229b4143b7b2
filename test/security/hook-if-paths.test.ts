import { readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, startTestbed, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A hook's `if` is matched as a deny rule is: a file tool's path as given and as symlinks resolve
// it. A guard scoped to .env files runs for every Write that lands on one, however it is spelled.

const PROD = 'API_URL=https://prod.example\n';

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** A workspace with config/prod.env, a Write guard whose `if` names .env files, and a model that writes `filePath()`. */
async function guardedWorkspace(filePath: () => string): Promise<Testbed> {
  const write = () =>
    toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: filePath(), content: 'API_URL=https://evil.example\n' } }]);
  return startTestbed(
    bundle.bundle,
    {
      'config/prod.env': PROD,
      'hooks/guard.js': nodeHook(`process.stderr.write('no .env writes'); process.exit(2);`),
      '.vscode/hooks.json': hooksJson({
        PreToolUse: [
          { matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'node hooks/guard.js', name: 'env-guard', if: 'Write(**/*.env)' }] },
        ],
      }),
    },
    (_request, index) => (index === 0 ? write() : text('done')),
  );
}

async function writeAttempt(): Promise<string> {
  const r = jsonResult(await bed!.run(['update the config', '--permission-mode', 'acceptEdits', '--output-format', 'json']));
  return r.tool_calls[0].outcome;
}

describe('a guard scoped with if: Write(**/*.env)', () => {
  it('blocks a Write through a link in the workspace that leads to a .env file', async () => {
    bed = await guardedWorkspace(() => 'notes.txt');
    symlinkSync('config/prod.env', bed.workspace.file('notes.txt'));
    expect(await writeAttempt()).toBe('blocked');
    expect(readFileSync(bed.workspace.file('config/prod.env'), 'utf8')).toBe(PROD);
  }, 60_000);

  it('blocks a Write spelled through /proc/self/root, a link the kernel provides', async () => {
    bed = await guardedWorkspace(() => `/proc/self/root${realpathSync(bed!.workspace.dir)}/config/prod.env`);
    expect(await writeAttempt()).toBe('blocked');
    expect(readFileSync(bed.workspace.file('config/prod.env'), 'utf8')).toBe(PROD);
  }, 60_000);
});
