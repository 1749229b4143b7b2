import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { untrustedWorkingFolder } from '../../src/core/hooks/handlers/command-env';
import { serverWhileUntrusted } from '../../src/core/hooks/handlers/rpc/rpc-server-env';
import type { ServerDefinition } from '../../src/core/hooks/types';

let root: string;
let projectDir: string;
let emptyDir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hp-untrusted-'));
  projectDir = path.join(root, 'ws');
  emptyDir = path.join(root, 'empty');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('where your own hook runs while the workspace is untrusted', () => {
  it.each([
    ['$CLAUDE_PROJECT_DIR', 'sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'],
    ['${CLAUDE_PROJECT_DIR}', 'python3 ${CLAUDE_PROJECT_DIR}/guard.py'],
    ['$HOOKPILOT_PROJECT_DIR', 'node $HOOKPILOT_PROJECT_DIR/guard.js'],
    ['${ATOMCODE_WORKSPACE}', '${ATOMCODE_WORKSPACE}/guard'],
    ["the folder's path", 'bash WS/tools/guard.sh'],
    ["the folder's path, alone", 'cd WS && make guard'],
  ])('a command naming the workspace by %s does not run', (_, command) => {
    const where = untrustedWorkingFolder({ runs: [command.replace('WS', projectDir)] }, projectDir, emptyDir);
    expect(where.refused).toMatch(
      /^it names the workspace folder in what it runs \(".*"\), whose files are not run while the workspace is untrusted/,
    );
  });

  it('an argument or an env value naming the workspace is reason enough', () => {
    expect(
      untrustedWorkingFolder({ runs: ['python3', '-m', 'guard', '${CLAUDE_PROJECT_DIR}/lib'] }, projectDir, emptyDir).refused,
    ).toBeDefined();
    expect(untrustedWorkingFolder({ runs: ['python3 -m guard', '${CLAUDE_PROJECT_DIR}/lib'] }, projectDir, emptyDir).refused).toBeDefined();
  });

  it.each([
    ['a longer variable name', 'echo $CLAUDE_PROJECT_DIRS'],
    ['the name without $', "node -e 'process.env.CLAUDE_PROJECT_DIR'"],
    ['a sibling folder sharing the prefix', 'sh WS-tools/guard.sh'],
    ['a sibling folder with a dot', 'sh WS.bak/guard.sh'],
  ])('%s is not the workspace: the hook runs in the empty folder', (_, command) => {
    const where = untrustedWorkingFolder({ runs: [command.replace('WS', projectDir)] }, projectDir, emptyDir);
    expect(where).toEqual({ cwd: emptyDir });
    expect(statSync(emptyDir).mode & 0o777).toBe(0o700);
  });

  it('a server whose command or env names the workspace does not start; one that does not starts in the empty folder', () => {
    const server = (command: string[], env?: Record<string, string>): ServerDefinition => ({
      name: 'guard',
      command,
      env,
      observe: [],
      intercept: ['PreToolUse'],
      enabled: true,
      priority: 0,
      source: { kind: 'user' },
    });
    expect(serverWhileUntrusted(server(['node', '${CLAUDE_PROJECT_DIR}/srv.js']), projectDir, emptyDir).refused).toMatch(
      /names the workspace folder/,
    );
    expect(
      serverWhileUntrusted(server(['python3', '-m', 'srv'], { PYTHONPATH: `${projectDir}/lib` }), projectDir, emptyDir).refused,
    ).toMatch(/names the workspace folder/);
    expect(serverWhileUntrusted(server(['python3', '-m', 'srv']), projectDir, emptyDir).server?.cwd).toBe(emptyDir);
  });
});
