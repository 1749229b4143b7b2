import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findFiles } from '../../src/core/agent/tools/file-search';
import { createGlobTool } from '../../src/core/agent/tools/glob-tool';
import { createGrepTool } from '../../src/core/agent/tools/grep-tool';
import type { ToolContext, ToolResult } from '../../src/core/agent/tools/tool';

// Matches outside the workspace were always dropped, but fast-glob first walked every folder a
// pattern's literal base named (a brace alternative's, or any in Grep's glob): `/` included,
// on the host, with no way to cancel it.

let base: string;
let ws: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'search-walk-')));
  ws = join(base, 'ws');
  mkdirSync(ws);
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(ws, 'a.txt'), 'hello\n');
  writeFileSync(join(base, 'outside', 'secret.txt'), 'hello\n');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const context = (signal = new AbortController().signal): ToolContext => ({ workspaceRoot: ws, cwd: ws, signal, env: {}, sessionId: 's' });

function errorOf(result: ToolResult): string {
  if (result.ok) throw new Error(`expected a failure, got: ${result.content}`);
  return result.error;
}

/** A tree whose walk takes many directory reads, one after another. */
function deepTree(levels: number): void {
  let dir = ws;
  for (let level = 0; level < levels; level += 1) {
    dir = join(dir, 'd');
    mkdirSync(dir);
    for (let i = 0; i < 20; i += 1) writeFileSync(join(dir, `f${i}.txt`), 'hello\n');
  }
}

describe('Glob and Grep walk no folder outside the workspace', () => {
  it.each([['{OUTSIDE,x}/**'], ['{x,..}/outside/**'], ['x/{y,../../outside}/*'], ['{link,x}/**']])(
    'Glob refuses %s, whose brace alternative starts the walk outside the workspace',
    async (pattern) => {
      symlinkSync('/', join(ws, 'link'));
      const result = await createGlobTool().run({ pattern: pattern.replace('OUTSIDE', join(base, 'outside')) }, context());
      expect(errorOf(result)).toMatch(/^path outside the workspace: /);
    },
  );

  it.each([['/**/*.none-such'], ['OUTSIDE/**'], ['../outside/**'], ['{x,../outside}/*'], ['src/../../outside/*']])(
    'Grep refuses the glob %s, which leaves the search path',
    async (glob) => {
      const result = await createGrepTool().run({ pattern: 'hello', glob: glob.replace('OUTSIDE', join(base, 'outside')) }, context());
      expect(errorOf(result)).toMatch(/^Glob ".*" leaves the search path: .*takes no absolute path or "\.\."/);
    },
  );

  it('Grep refuses a glob whose literal base is a link out of the workspace', async () => {
    symlinkSync('/', join(ws, 'link-to-root'));
    const result = await createGrepTool().run({ pattern: 'hello', glob: 'link-to-root/**' }, context());
    expect(errorOf(result)).toMatch(/^path outside the workspace: .*link-to-root \(it leads through a symlink to \//);
  });

  it('brace patterns inside the workspace still search', async () => {
    mkdirSync(join(ws, 'x'));
    writeFileSync(join(ws, 'x', 'b.txt'), 'hello\n');
    const glob = await createGlobTool().run({ pattern: '{x,y}/*.txt' }, context());
    expect(glob).toMatchObject({ ok: true, response: { filenames: [join(ws, 'x', 'b.txt')] } });
    const grep = await createGrepTool().run({ pattern: 'hello', glob: '{x,.}/*.txt', output_mode: 'count' }, context());
    expect(grep).toMatchObject({ ok: true, response: { numFiles: 2 } });
  });
});

describe('a cancelled search stops its walk', () => {
  let controller = new AbortController();
  it('findFiles rejects when aborted in the middle of a walk, instead of listing the tree', async () => {
    deepTree(200);
    const controller = new AbortController();
    const listing = findFiles('**/*.txt', ws, ws, context(controller.signal));
    // The walk reads one folder after another: it is under way on the next turn of the event loop.
    setImmediate(() => controller.abort());
    await expect(listing).rejects.toThrow('Search aborted before it finished');
  });

  it.each([
    ['Glob', () => createGlobTool().run({ pattern: '**/*.txt' }, context(controller.signal))],
    ['Grep', () => createGrepTool().run({ pattern: 'hello' }, context(controller.signal))],
  ] as const)('%s aborted while walking settles as interrupted', async (_name, run) => {
    deepTree(200);
    controller = new AbortController();
    const result = run();
    setImmediate(() => controller.abort());
    expect(await result).toEqual({ ok: false, error: 'Search aborted before it finished', interrupted: true });
  });
});
