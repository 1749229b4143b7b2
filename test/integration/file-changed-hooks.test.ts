import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentHarness } from '../support/agent-harness';
import { startAgent, toolMessageSent } from '../support/agent-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A FileChanged hook that logs each payload: one JSON line per run.
const LOG_HOOK = `#!/usr/bin/env node
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
require('fs').appendFileSync('changes.log', JSON.stringify(input) + '\\n');
`;
const logged = (h: AgentHarness) =>
  existsSync(h.workspace.file('changes.log'))
    ? readFileSync(h.workspace.file('changes.log'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>)
    : [];
/** Writes `file` in one step: its text aside, then renamed into place. */
const writeAtOnce = (file: string, text: string) => {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
};
/** The messages of the session's notices, as they come. */
const noticesOf = (h: AgentHarness): string[] => {
  const messages: string[] = [];
  h.session.onEvent((event) => {
    if (event.type === 'notice') messages.push(event.message);
  });
  return messages;
};
const bypass = { permissions: () => ({ mode: 'bypassPermissions' as const, allow: [], deny: [], ask: [], additionalDirectories: [] }) };

let h: AgentHarness | undefined;
afterEach(async () => {
  await h?.session.end();
  await h?.close();
  h = undefined;
});

describe('FileChanged hooks', () => {
  it("watch the files their matcher names in the session's folder, and hear each add, change and removal with its path", async () => {
    const config = hooksJson({ FileChanged: [{ matcher: '.envrc|.env', hooks: [{ type: 'command', command: 'node hooks/log.js' }] }] });
    h = await startAgent({ 'hooks/log.js': LOG_HOOK, '.vscode/hooks.json': config, '.env': 'A=1\n' }, []);
    expect(h.session.watchedFiles).toEqual([h.workspace.file('.envrc'), h.workspace.file('.env')]);

    // Each made in one step (written aside, then renamed into place): a write's open and its data
    // could otherwise fall on either side of a busy machine's settle time, and be two changes.
    writeAtOnce(h.workspace.file('.envrc'), 'export B=2\n');
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(1), { timeout: 10_000 });
    writeAtOnce(h.workspace.file('.env'), 'A=2\n');
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(2), { timeout: 10_000 });
    rmSync(h.workspace.file('.envrc'));
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(3), { timeout: 10_000 });

    expect(logged(h).map((p) => [p.hook_event_name, p.file_name, p.event, p.session_id])).toEqual([
      ['FileChanged', '.envrc', 'add', h.session.id],
      ['FileChanged', '.env', 'change', h.session.id],
      ['FileChanged', '.envrc', 'unlink', h.session.id],
    ]);
    expect(logged(h)[0]?.file_path).toBe(h.workspace.file('.envrc'));
  }, 30_000);

  it("see an editor's save (a new file renamed over the old one) as a change, and not a file the matcher does not name", async () => {
    const config = hooksJson({ FileChanged: [{ matcher: '.env', hooks: [{ type: 'command', command: 'node hooks/log.js' }] }] });
    h = await startAgent({ 'hooks/log.js': LOG_HOOK, '.vscode/hooks.json': config, '.env': 'A=1\n' }, []);
    writeFileSync(h.workspace.file('.env.local'), 'not watched\n');
    writeFileSync(h.workspace.file('.env.tmp'), 'A=2\n');
    renameSync(h.workspace.file('.env.tmp'), h.workspace.file('.env'));
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(1), { timeout: 10_000 });
    expect(logged(h).map((p) => [p.file_name, p.event])).toEqual([['.env', 'change']]);
  }, 30_000);

  it('run for files the agent writes, and what they write to CLAUDE_ENV_FILE reaches the next Bash command', async () => {
    const exportHook = `echo "export FROM_ENVRC=$(cut -d= -f2 .envrc)" >> "$CLAUDE_ENV_FILE"; echo '{"systemMessage":"envrc loaded"}'`;
    const config = hooksJson({ FileChanged: [{ matcher: '.envrc', hooks: [{ type: 'command', command: exportHook }] }] });
    h = await startAgent(
      { '.vscode/hooks.json': config },
      [
        toolCalls([{ id: 'w1', name: 'Write', arguments: { file_path: '.envrc', content: 'VALUE=from-the-envrc' } }]),
        text('written'),
        toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'echo "got $FROM_ENVRC"' } }]),
        text('done'),
      ],
      { session: bypass },
    );
    const notices = noticesOf(h);
    expect((await h.session.prompt('write it')).reason).toBe('completed');
    // Shown once the exports are applied.
    await vi.waitFor(() => expect(notices).toContain('envrc loaded'), { timeout: 10_000 });
    expect((await h.session.prompt('run it')).reason).toBe('completed');
    expect(toolMessageSent(h.server, 'b1')).toContain('got from-the-envrc');
  }, 30_000);

  it("replace what a file's last change exported, so a file rewritten again and again does not grow every command's start", async () => {
    // Like `direnv export bash`: the same large export on every change.
    const hook = `node -e "require('fs').appendFileSync(process.env.CLAUDE_ENV_FILE, 'export DIRENV_DIFF=' + 'x'.repeat(30000) + '\\n')"; echo '{"systemMessage":"exported"}'`;
    const config = hooksJson({ FileChanged: [{ matcher: '.envrc', hooks: [{ type: 'command', command: hook }] }] });
    h = await startAgent(
      { '.vscode/hooks.json': config, '.envrc': '0' },
      [toolCalls([{ id: 'b1', name: 'Bash', arguments: { command: 'echo "${#DIRENV_DIFF}"' } }]), text('done')],
      { session: bypass },
    );
    const notices = noticesOf(h);
    // What `for i in $(seq 8); do echo $i > .envrc; sleep 1; done` in the model's Bash does.
    for (let i = 1; i <= 8; i++) {
      writeFileSync(h.workspace.file('.envrc'), String(i));
      await vi.waitFor(() => expect(notices.filter((n) => n === 'exported')).toHaveLength(i), { timeout: 20_000 });
    }
    // Four copies would have passed the cap on what every command starts with.
    expect(notices.filter((n) => n.startsWith('CLAUDE_ENV_FILE'))).toEqual([]);
    expect((await h.session.prompt('measure')).reason).toBe('completed');
    expect(toolMessageSent(h.server, 'b1')).toContain('30000');
  }, 120_000);

  it("watch the watchPaths a SessionStart hook returns, and replace them with a FileChanged hook's", async () => {
    const start = `echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","watchPaths":["config/a.json"]}}'`;
    const onChange = `node hooks/log.js; echo '{"hookSpecificOutput":{"hookEventName":"FileChanged","watchPaths":["config/b.json"]}}'`;
    const config = hooksJson({
      SessionStart: [{ hooks: [{ type: 'command', command: start }] }],
      FileChanged: [{ hooks: [{ type: 'command', command: onChange }] }],
    });
    h = await startAgent({ 'hooks/log.js': LOG_HOOK, '.vscode/hooks.json': config, 'config/a.json': '{}', 'config/b.json': '{}' }, []);
    expect(h.session.watchedFiles).toEqual([h.workspace.file('config/a.json')]);
    writeFileSync(h.workspace.file('config/a.json'), '{"a":1}');
    await vi.waitFor(() => expect(h!.session.watchedFiles).toEqual([h!.workspace.file('config/b.json')]), { timeout: 10_000 });
    writeFileSync(h.workspace.file('config/b.json'), '{"b":1}');
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(2), { timeout: 10_000 });
    expect(logged(h).map((p) => [p.file_name, p.event])).toEqual([
      ['a.json', 'change'],
      ['b.json', 'change'],
    ]);
  }, 30_000);

  it("watch the watchPaths of a compaction's SessionStart hooks too", async () => {
    const start = `#!/usr/bin/env node
const { source } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const hookEventName = 'SessionStart';
console.log(JSON.stringify({ hookSpecificOutput: { hookEventName, watchPaths: [source === 'compact' ? 'after.json' : 'before.json'] } }));
`;
    const config = hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/start.js' }] }] });
    h = await startAgent({ 'hooks/start.js': start, '.vscode/hooks.json': config }, [
      text('one'),
      text('two'),
      text('three'),
      text('four'),
      text('the summary'),
    ]);
    expect(h.session.watchedFiles).toEqual([h.workspace.file('before.json')]);
    for (const prompt of ['1', '2', '3', '4']) expect((await h.session.prompt(prompt)).reason).toBe('completed');
    expect(await h.session.compact(null)).toBe(true);
    expect(h.session.watchedFiles).toEqual([h.workspace.file('after.json')]);
  }, 30_000);

  it('run once more, not once per write, for a file written many times while a run is on', async () => {
    // Each run waits for the test to let it end: every write below comes while the first is on.
    const slowLog = `node hooks/log.js; while [ ! -e release ]; do sleep 0.05; done`;
    const config = hooksJson({ FileChanged: [{ matcher: 'counter|sentinel', hooks: [{ type: 'command', command: slowLog }] }] });
    h = await startAgent({ 'hooks/log.js': LOG_HOOK, '.vscode/hooks.json': config, counter: '0' }, []);
    writeFileSync(h.workspace.file('counter'), '1');
    await vi.waitFor(() => expect(logged(h!)).toHaveLength(1), { timeout: 10_000 });
    for (let i = 2; i <= 500; i++) writeFileSync(h.workspace.file('counter'), String(i));
    writeFileSync(h.workspace.file('sentinel'), '');
    writeFileSync(h.workspace.file('release'), '');
    await vi.waitFor(() => expect(logged(h!).map((p) => p.file_name)).toContain('sentinel'), { timeout: 20_000 });
    // The first run, then one for all the writes made during it. Each file has a watcher of its
    // own, and a loaded machine may hand over a burst's last events late (a run more each time):
    // a handful of runs for 500 writes, never one per write.
    const counterRuns = () => logged(h!).filter((p) => p.file_name === 'counter').length;
    expect(counterRuns()).toBeLessThanOrEqual(5);
  }, 30_000);

  it('stop watching when the session ends', async () => {
    const config = hooksJson({ FileChanged: [{ matcher: '.env', hooks: [{ type: 'command', command: 'node hooks/log.js' }] }] });
    h = await startAgent({ 'hooks/log.js': LOG_HOOK, '.vscode/hooks.json': config }, []);
    expect(h.session.watchedFiles).toHaveLength(1);
    await h.session.end();
    expect(h.session.watchedFiles).toEqual([]);
  }, 30_000);
});
