import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadSubagentDefinitions, parseSubagentFile, subagentFolders, subagentTools } from '../../src/core/agent/subagent-definitions';
import type { Tool } from '../../src/core/agent/tools/tool';
import { makeWorkspace } from '../support/workspace';

const fake = (name: string): Tool => ({
  name,
  description: name,
  category: 'read',
  inputSchema: z.object({}),
  run: async () => ({ ok: true, content: '', response: {} }),
});
const BUILTINS = ['Read', 'Grep', 'Bash'].map(fake);
const MCP = ['mcp__memory__create_entities', 'mcp__memory__read_graph', 'mcp__memoryx__read', 'mcp__fs__read_file'].map(fake);
const names = (tools: Tool[]) => tools.map((t) => t.name);

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('subagent definition files', () => {
  it('reads name, description, a tools list in any of its spellings, and the body as instructions', () => {
    const text = '---\nname: reviewer\ndescription: "Reviews code"\ntools: Read, Grep , mcp__memory\nmodel: sonnet\n---\nBe strict.\n';
    const expected = {
      name: 'reviewer',
      description: 'Reviews code',
      tools: ['Read', 'Grep', 'mcp__memory'],
      prompt: 'Be strict.',
      file: 'r.md',
    };
    expect(parseSubagentFile(text, 'r.md')).toEqual(expected);
    expect(parseSubagentFile('---\nname: a\ndescription: d\ntools: [Read, "Bash"]\n---\n', 'a.md').tools).toEqual(['Read', 'Bash']);
    const crlf = '---\r\nname: a\r\ndescription: d\r\ntools:\r\n  - Read\r\n  - mcp__fs__read_file\r\n---\r\nbody';
    expect(parseSubagentFile(crlf, 'a.md')).toMatchObject({ tools: ['Read', 'mcp__fs__read_file'], prompt: 'body' });
    expect(parseSubagentFile('---\nname: a\ndescription: d\n---\n', 'a.md').tools).toBeUndefined();
  });

  it('refuses a file without front matter, a bad or reserved name, no description, or too many tools', () => {
    expect(() => parseSubagentFile('name: a', 'x.md')).toThrow(/no front matter/);
    expect(() => parseSubagentFile('---\nname: Bad Name\ndescription: d\n---\n', 'x.md')).toThrow(/lowercase/);
    expect(() => parseSubagentFile('---\nname: general-purpose\ndescription: d\n---\n', 'x.md')).toThrow(/built-in/);
    expect(() => parseSubagentFile('---\nname: a\n---\n', 'x.md')).toThrow(/description/);
    const many = Array.from({ length: 201 }, (_, i) => `t${i}`).join(', ');
    expect(() => parseSubagentFile(`---\nname: a\ndescription: d\ntools: ${many}\n---\n`, 'x.md')).toThrow(/more than 200 tools/);
  });

  it('loads folders in order (a later one wins a name), reports each skipped file, and ignores huge ones', () => {
    const ws = makeWorkspace({
      'user/agents/a.md': '---\nname: a\ndescription: from the user\n---\n',
      'user/agents/b.md': '---\nname: b\ndescription: only the user\n---\n',
      'project/agents/a.md': '---\nname: a\ndescription: from the workspace\n---\n',
      'project/agents/broken.md': 'no front matter',
      'project/agents/notes.txt': 'ignored',
    });
    cleanups.push(() => ws.cleanup());
    writeFileSync(ws.file('project/agents/huge.md'), `---\nname: huge\ndescription: d\n---\n${'x'.repeat(70_000)}`);
    const loaded = loadSubagentDefinitions([
      { dir: ws.file('user/agents') },
      { dir: ws.file('project/agents') },
      { dir: ws.file('missing') },
    ]);
    expect(loaded.definitions.map((d) => [d.name, d.description])).toEqual([
      ['a', 'from the workspace'],
      ['b', 'only the user'],
    ]);
    expect(loaded.problems).toEqual([
      expect.stringMatching(/broken\.md: no front matter/),
      expect.stringMatching(/huge\.md: larger than 64 KiB/),
    ]);
  });

  it('a file or an unreadable folder where a folder of definitions should be is a problem of its own; the other folders load', () => {
    const ws = makeWorkspace({ 'user/agents/b.md': '---\nname: b\ndescription: the user\n---\n', 'project/agents': 'not a folder' });
    cleanups.push(() => ws.cleanup());
    const loaded = loadSubagentDefinitions([{ dir: ws.file('user/agents') }, { dir: ws.file('project/agents') }]);
    expect(loaded.definitions.map((d) => d.name)).toEqual(['b']);
    expect(loaded.problems).toEqual([expect.stringMatching(/project\/agents: not a readable folder \(ENOTDIR/)]);
  });

  it("an untrusted workspace's .claude/agents is not read", () => {
    expect(subagentFolders('/ws', '/home/u', true)).toEqual([
      { dir: path.join('/home/u', '.claude', 'agents') },
      { dir: path.join('/ws', '.claude', 'agents'), within: '/ws' },
    ]);
    expect(subagentFolders('/ws', '/home/u', false)).toEqual([{ dir: path.join('/home/u', '.claude', 'agents') }]);
    expect(subagentFolders('/ws', undefined, false)).toEqual([]);
  });

  it("a workspace definition that links out of the workspace is not read (its text would reach the model); the user's may link", () => {
    const outside = makeWorkspace({
      'secret.md': '---\nname: leak\ndescription: SECRET-TEXT\n---\nSECRET-BODY\n',
      'agents/x.md': '---\nname: x\ndescription: d\n---\n',
    });
    const ws = makeWorkspace({ '.claude/agents/ok.md': '---\nname: ok\ndescription: fine\n---\n' });
    const home = makeWorkspace();
    cleanups.push(
      () => outside.cleanup(),
      () => ws.cleanup(),
      () => home.cleanup(),
    );
    symlinkSync(outside.file('secret.md'), ws.file('.claude/agents/leak.md'));
    mkdirSync(home.file('.claude/agents'), { recursive: true });
    symlinkSync(outside.file('secret.md'), home.file('.claude/agents/mine.md'));
    const loaded = loadSubagentDefinitions(subagentFolders(ws.dir, home.dir, true));
    expect(loaded.definitions.map((d) => d.name)).toEqual(['leak', 'ok']);
    expect(loaded.definitions.find((d) => d.name === 'leak')?.file).toBe(home.file('.claude/agents/mine.md'));
    expect(loaded.problems).toEqual([expect.stringMatching(/leak\.md: it leads out of the workspace/)]);

    // A .claude folder that is itself a link out of the workspace.
    const linked = makeWorkspace();
    cleanups.push(() => linked.cleanup());
    symlinkSync(outside.dir, linked.file('.claude'));
    const viaDir = loadSubagentDefinitions(subagentFolders(linked.dir, undefined, true));
    expect(viaDir.definitions).toEqual([]);
    expect(viaDir.problems).toEqual([expect.stringMatching(/x\.md: it leads out of the workspace/)]);
  });

  it('skips a FIFO, a device and a link to /dev/zero in a folder, reporting each, instead of blocking or reading forever', async () => {
    const ws = makeWorkspace({ '.claude/agents/ok.md': '---\nname: ok\ndescription: fine\n---\n' });
    const home = makeWorkspace();
    cleanups.push(
      () => ws.cleanup(),
      () => home.cleanup(),
    );
    execFileSync('mkfifo', [ws.file('.claude/agents/fifo.md')]);
    mkdirSync(home.file('.claude/agents'), { recursive: true });
    symlinkSync('/dev/zero', home.file('.claude/agents/zero.md'));
    // Without the fix the read of the FIFO blocks the thread: this writer then unblocks it, so the test fails instead of hanging.
    const writer = spawn('sh', ['-c', 'printf x > "$1"', 'sh', ws.file('.claude/agents/fifo.md')], { stdio: 'ignore' });
    cleanups.push(() => writer.kill());
    const loaded = loadSubagentDefinitions([{ dir: home.file('.claude/agents') }, { dir: ws.file('.claude/agents'), within: ws.dir }]);
    expect(loaded.definitions.map((d) => d.name)).toEqual(['ok']);
    expect(loaded.problems).toEqual([
      expect.stringMatching(/zero\.md: it is not a regular file/),
      expect.stringMatching(/fifo\.md: it is not a regular file/),
    ]);
  }, 20_000);

  it('reads at most 200 files of a folder', () => {
    const ws = makeWorkspace();
    cleanups.push(() => ws.cleanup());
    mkdirSync(ws.file('agents'));
    for (let i = 0; i < 205; i++)
      writeFileSync(ws.file(`agents/a${String(i).padStart(3, '0')}.md`), `---\nname: a${i}\ndescription: d\n---\n`);
    const loaded = loadSubagentDefinitions([{ dir: ws.file('agents') }]);
    expect(loaded.definitions).toHaveLength(100);
    expect(loaded.problems[0]).toMatch(/more than 200 files/);
    expect(loaded.problems.filter((p) => p.includes('more than 100 subagents'))).toHaveLength(100);
  });
});

describe('the tools a subagent is offered', () => {
  const def = (tools?: string[]) => ({ name: 'a', description: 'd', prompt: '', file: 'a.md', ...(tools ? { tools } : {}) });

  it('without a list: the built-ins and no MCP tool', () => {
    expect(names(subagentTools(undefined, BUILTINS, MCP))).toEqual(['Read', 'Grep', 'Bash']);
    expect(names(subagentTools(def(), BUILTINS, MCP))).toEqual(['Read', 'Grep', 'Bash']);
  });

  it('with a list: exactly the tools it names; mcp__server names that server only; unknown names and Task give nothing', () => {
    expect(names(subagentTools(def(['Read', 'mcp__memory__create_entities', 'Task', 'Nope']), BUILTINS, MCP))).toEqual([
      'Read',
      'mcp__memory__create_entities',
    ]);
    expect(names(subagentTools(def(['mcp__memory']), BUILTINS, MCP))).toEqual(['mcp__memory__create_entities', 'mcp__memory__read_graph']);
    expect(names(subagentTools(def(['mcp__memory__']), BUILTINS, MCP))).toEqual([]);
    expect(names(subagentTools(def([]), BUILTINS, MCP))).toEqual([]);
  });
});
