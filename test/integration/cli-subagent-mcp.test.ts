import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonResult, nodeHook, REPO_ROOT, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls, type RecordedRequest, type ScriptedReply } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// Custom subagents (.claude/agents/*.md) through the built CLI with server-memory: a subagent
// is offered an MCP tool only when its tools list names it, and its calls pass the same rules
// and hooks as the main agent's.

const MEMORY = path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js');
const memory = { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: '${workspaceFolder}/memory.jsonl' } };
const mcpJson = JSON.stringify({ mcpServers: { memory } });
const agent = (name: string, tools: string | undefined, body: string) =>
  `---\nname: ${name}\ndescription: The ${name} subagent\n${tools === undefined ? '' : `tools: ${tools}\n`}---\n${body}\n`;
const entity = (name: string) => ({ entities: [{ name, entityType: 'person', observations: ['met'] }] });
const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => toolCalls([{ id, name, arguments: args }]);
const task = (id: string, type: string, prompt: string) => call(id, 'Task', { description: `${type} task`, prompt, subagent_type: type });
const offered = (request: RecordedRequest) =>
  (request.body as { tools?: Array<{ function: { name: string; description: string } }> }).tools ?? [];
const firstUser = (request: RecordedRequest) => String(request.body.messages.find((m) => m.role === 'user')?.content ?? '');

/** Each agent's replies by the tool results it has seen; the subagents are told apart by their prompt. */
function script(request: RecordedRequest): ScriptedReply {
  const done = request.body.messages.filter((m) => m.role === 'tool').length;
  const prompt = firstUser(request);
  if (prompt.includes('SUB-REMEMBER')) {
    const steps = [
      call('s1', 'mcp__memory__create_entities', entity('Mallory')),
      call('s2', 'mcp__memory__create_entities', entity('Ada')),
      call('s3', 'mcp__memory__read_graph', {}),
      text('remembered'),
    ];
    return steps[done] ?? text('ok');
  }
  if (prompt.includes('SUB-READ'))
    return [call('r1', 'mcp__memory__create_entities', entity('Eve')), text('could not')][done] ?? text('ok');
  if (prompt.includes('SUB-GENERAL'))
    return [call('g1', 'mcp__memory__create_entities', entity('Gus')), text('could not either')][done] ?? text('ok');
  const main = [
    task('t1', 'rememberer', 'SUB-REMEMBER: remember people'),
    task('t2', 'reader', 'SUB-READ: remember Eve'),
    task('t3', 'general-purpose', 'SUB-GENERAL: remember Gus'),
    task('t4', 'nobody', 'x'),
    text('done'),
  ];
  return main[done] ?? text('ok');
}

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

describe('subagents and MCP tools', () => {
  it('only a subagent whose tools list names an MCP tool is offered it; its call passes the same hooks and rules', async () => {
    const guard = nodeHook(`fs.appendFileSync('pre.jsonl', JSON.stringify(input) + '\\n');
if (JSON.stringify(input.tool_input).includes('Mallory')) { process.stderr.write('mcp-guard: not Mallory'); process.exit(2); }`);
    bed = await startTestbed(
      bundle.bundle,
      {
        '.mcp.json': mcpJson,
        '.claude/agents/rememberer.md': agent(
          'rememberer',
          'Read, mcp__memory__create_entities',
          'You remember people. REMEMBERER-INSTRUCTIONS',
        ),
        '.claude/agents/reader.md': agent('reader', 'Read, Grep', 'You only read.'),
        'hooks/guard.js': guard,
        '.vscode/hooks.json': hooksJson({
          PreToolUse: [{ matcher: 'mcp__memory__.*', hooks: [{ type: 'command', command: 'node hooks/guard.js' }] }],
        }),
      },
      script,
    );
    const result = jsonResult(await bed.run(['delegate', '--allowed-tools', 'mcp__memory', '--output-format', 'json']));
    expect(result.subtype).toBe('success');

    const requests = bed.server.requests;
    const main = requests.find((r) => !firstUser(r).includes('SUB-'))!;
    expect(offered(main).find((t) => t.function.name === 'Task')?.function.description).toContain('rememberer: The rememberer subagent');
    const rememberer = requests.find((r) => firstUser(r).includes('SUB-REMEMBER'))!;
    expect(
      offered(rememberer)
        .map((t) => t.function.name)
        .sort(),
    ).toEqual(['Read', 'mcp__memory__create_entities']);
    expect(String(rememberer.body.messages[0].content)).toContain('REMEMBERER-INSTRUCTIONS');
    const reader = requests.find((r) => firstUser(r).includes('SUB-READ'))!;
    expect(
      offered(reader)
        .map((t) => t.function.name)
        .sort(),
    ).toEqual(['Grep', 'Read']);
    const general = requests.find((r) => firstUser(r).includes('SUB-GENERAL'))!;
    expect(
      offered(general)
        .map((t) => t.function.name)
        .some((n) => n.startsWith('mcp__') || n === 'Task'),
    ).toBe(false);

    // The listed tool runs through the same hook: Mallory blocked, Ada stored; read_graph was not offered.
    expect(toolMessageSent(bed.server, 's1')).toContain('mcp-guard: not Mallory');
    expect(toolMessageSent(bed.server, 's3')).toContain('there is no tool named "mcp__memory__read_graph"');
    expect(toolMessageSent(bed.server, 'r1')).toContain('there is no tool named "mcp__memory__create_entities"');
    expect(toolMessageSent(bed.server, 'g1')).toContain('there is no tool named "mcp__memory__create_entities"');
    expect(toolMessageSent(bed.server, 't4')).toContain(
      'There is no subagent type "nobody". Available: general-purpose, Explore, Plan, reader, rememberer.',
    );
    const stored = readFileSync(bed.workspace.file('memory.jsonl'), 'utf8');
    expect(stored).toContain('Ada');
    expect(stored).not.toMatch(/Mallory|Eve|Gus/);
    const seen = readFileSync(bed.workspace.file('pre.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(seen.map((p) => [p.tool_name, p.agent_type])).toEqual([
      ['mcp__memory__create_entities', 'rememberer'],
      ['mcp__memory__create_entities', 'rememberer'],
    ]);
  });

  it("without a rule the subagent call is denied headless, as the main agent's would be", async () => {
    const replies = (request: RecordedRequest): ScriptedReply => {
      const done = request.body.messages.filter((m) => m.role === 'tool').length;
      if (firstUser(request).includes('SUB-REMEMBER'))
        return [call('s1', 'mcp__memory__create_entities', entity('Ada')), text('denied')][done] ?? text('ok');
      return [task('t1', 'rememberer', 'SUB-REMEMBER: remember Ada'), text('done')][done] ?? text('ok');
    };
    bed = await startTestbed(
      bundle.bundle,
      { '.mcp.json': mcpJson, '.claude/agents/rememberer.md': agent('rememberer', 'mcp__memory', 'Remember.') },
      replies,
    );
    await bed.run(['delegate', '--output-format', 'json']);
    const rememberer = bed.server.requests.find((r) => firstUser(r).includes('SUB-REMEMBER'))!;
    // `mcp__memory` names all of the server's tools.
    expect(offered(rememberer).map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['mcp__memory__create_entities', 'mcp__memory__read_graph']),
    );
    expect(toolMessageSent(bed.server, 's1')).toMatch(/denied|permission/i);
    expect(existsSync(bed.workspace.file('memory.jsonl'))).toBe(false);
  });
});
