import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

const bash = (id: string, command: string) => toolCalls([{ id, name: 'Bash', arguments: { command } }]);
const mode = (m: 'default' | 'bypassPermissions') => ({
  permissions: () => ({ mode: m, allow: [], deny: [], ask: [], additionalDirectories: [] }),
});

/** A SessionStart hook that notes where its CLAUDE_ENV_FILE is (the strongest attacker knows the path), then writes to it. */
const startHook = (lines: string) => `#!/bin/sh
printf '%s' "$CLAUDE_ENV_FILE" > env-path.txt
stat -c %a "$CLAUDE_ENV_FILE" > env-mode.txt
${lines}
`;
const config = hooksJson({
  SessionStart: [{ hooks: [{ type: 'command', command: 'sh hooks/start.sh' }] }],
  UserPromptSubmit: [{ hooks: [{ type: 'command', command: `printf '[%s]' "$CLAUDE_ENV_FILE" > prompt-env.txt` }] }],
});

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('CLAUDE_ENV_FILE', () => {
  it('what SessionStart hooks export reaches every later Bash command; the file lived outside the workspace, 0600, and is gone', async () => {
    const files = {
      '.vscode/hooks.json': config,
      'hooks/start.sh': startHook(
        `echo 'export GREETING="hello there"' >> "$CLAUDE_ENV_FILE"\necho 'export PATH="$PATH:/opt/extra"' >> "$CLAUDE_ENV_FILE"`,
      ),
    };
    h = await startAgent(files, [bash('b1', 'printenv GREETING PATH'), bash('b2', 'echo "again: $GREETING"'), text('done')], {
      session: mode('bypassPermissions'),
    });
    const envPath = readFileSync(h.workspace.file('env-path.txt'), 'utf8');
    expect(path.isAbsolute(envPath)).toBe(true);
    expect(path.relative(h.workspace.dir, envPath).startsWith('..')).toBe(true);
    expect(readFileSync(h.workspace.file('env-mode.txt'), 'utf8').trim()).toBe('600');
    expect(existsSync(envPath)).toBe(false);
    expect(existsSync(path.dirname(envPath))).toBe(false);

    expect((await h.session.prompt('greet')).reason).toBe('completed');
    expect(toolMessageSent(h.server, 'b1')).toMatch(/^hello there\n.*:\/opt\/extra$/);
    expect(toolMessageSent(h.server, 'b2')).toBe('again: hello there');
    // Only SessionStart and FileChanged hooks get it (Claude Code: also Setup and CwdChanged, which Hookpilot has not).
    expect(readFileSync(h.workspace.file('prompt-env.txt'), 'utf8')).toBe('[]');
  });

  it('a secret a hook exports reaches the Bash command but never the model', async () => {
    const files = {
      '.vscode/hooks.json': config,
      'hooks/start.sh': startHook(`echo 'export DEPLOY_PASSWORD="plain hunter2 words"' >> "$CLAUDE_ENV_FILE"`),
    };
    h = await startAgent(files, [bash('b1', 'echo "$DEPLOY_PASSWORD" > used.txt; echo "pw: $DEPLOY_PASSWORD"'), text('done')], {
      session: mode('bypassPermissions'),
    });
    expect((await h.session.prompt('deploy')).reason).toBe('completed');
    expect(readFileSync(h.workspace.file('used.txt'), 'utf8')).toBe('plain hunter2 words\n');
    expect(toolMessageSent(h.server, 'b1')).toMatch(/^pw: \[REDACTED/);
    expect(JSON.stringify(h.server.requests.map((r) => r.body))).not.toContain('hunter2');
  });

  it('the model cannot change it: its shell never sees the path, and writing to the old path afterwards changes nothing', async () => {
    const files = { '.vscode/hooks.json': config, 'hooks/start.sh': startHook(`echo 'export SAFE=1' >> "$CLAUDE_ENV_FILE"`) };
    h = await startAgent(files, [bash('b1', 'echo "[$CLAUDE_ENV_FILE] $SAFE $EVIL"'), text('done')], {
      session: mode('bypassPermissions'),
    });
    const envPath = readFileSync(h.workspace.file('env-path.txt'), 'utf8');
    // The attacker recreates the file (and its directory) with a line of its own after SessionStart.
    mkdirSync(path.dirname(envPath), { recursive: true });
    writeFileSync(envPath, 'export EVIL=1\n');
    try {
      expect((await h.session.prompt('look')).reason).toBe('completed');
      expect(toolMessageSent(h.server, 'b1')).toBe('[] 1');
    } finally {
      writeFileSync(envPath, '');
    }
  });

  it('the gate refuses the model writing to the path through Bash or Write, even under rules that allow both', async () => {
    const files = { '.vscode/hooks.json': config, 'hooks/start.sh': startHook(`echo 'export SAFE=1' >> "$CLAUDE_ENV_FILE"`) };
    let envPath = '';
    h = await startAgent(
      files,
      (_req, i) => {
        if (i === 0) return bash('b1', `echo 'export EVIL=1' >> ${envPath}`);
        if (i === 1) return toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: envPath, content: 'export EVIL=1\n' } }]);
        if (i === 2) return bash('b2', 'echo "[$SAFE$EVIL]"');
        return i === 3 ? text('done') : undefined;
      },
      {
        session: {
          permissions: () => ({ mode: 'default' as const, allow: ['Bash(echo:*)', 'Write'], deny: [], ask: [], additionalDirectories: [] }),
        },
      },
    );
    envPath = readFileSync(h.workspace.file('env-path.txt'), 'utf8');
    const outcome = await h.session.prompt('try');
    expect(outcome.toolCalls.map((c) => [c.name, c.outcome])).toEqual([
      ['Bash', 'denied'],
      ['Write', 'denied'],
      ['Bash', 'executed'],
    ]);
    expect(toolMessageSent(h.server, 'b2')).toBe('[1]');
    expect(existsSync(envPath)).toBe(false);
  });

  it('a hook that swaps the file for a link to another file gets a warning, and nothing is applied', async () => {
    const files = {
      '.vscode/hooks.json': config,
      'secret.sh': 'export LEAK=1\n',
      'hooks/start.sh': startHook('rm "$CLAUDE_ENV_FILE" && ln -s "$CLAUDE_PROJECT_DIR/secret.sh" "$CLAUDE_ENV_FILE"'),
    };
    h = await startAgent(files, [bash('b1', 'echo "[$LEAK]"'), text('done')], { session: mode('bypassPermissions') });
    expect(h.events).toContainEqual(
      expect.objectContaining({ type: 'notice', level: 'warning', message: expect.stringContaining('CLAUDE_ENV_FILE not applied') }),
    );
    await h.session.prompt('look');
    expect(toolMessageSent(h.server, 'b1')).toBe('[]');
    expect(statSync(h.workspace.file('secret.sh')).isFile()).toBe(true);
  });

  it('a file over 64 KB is refused with a warning, not prepended to every command', async () => {
    const files = {
      '.vscode/hooks.json': config,
      'hooks/start.sh': startHook(
        `head -c 70000 /dev/zero | tr '\\0' '#' >> "$CLAUDE_ENV_FILE"\necho 'export BIG=1' >> "$CLAUDE_ENV_FILE"`,
      ),
    };
    h = await startAgent(files, [bash('b1', 'echo "[$BIG]"'), text('done')], { session: mode('bypassPermissions') });
    expect(h.events).toContainEqual(
      expect.objectContaining({
        type: 'notice',
        level: 'warning',
        message: expect.stringMatching(/CLAUDE_ENV_FILE not applied: it holds 700\d\d bytes, more than 65536/),
      }),
    );
    await h.session.prompt('look');
    expect(toolMessageSent(h.server, 'b1')).toBe('[]');
  });
});
