import { mkdirSync, realpathSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// On macOS (APFS/HFS+ by default) and Windows (NTFS) file names ignore case, and Windows drops
// trailing dots and spaces and reads `name::$DATA` as the file itself: `.VSCode/HOOKS.json` IS
// `.vscode/hooks.json` there. A name that does not exist yet is kept as written when a path is
// resolved, so the gate must compare protected files as the file system tells them apart, or
// Write creates a hooks file in acceptEdits mode with no person asked. The platform is set for
// the modules' load, as they read it once; the names below are all missing ones, so the test
// means the same here as on those systems.

const realPlatform = process.platform;
let ws: string;

beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'rv-case-')));
  mkdirSync(join(ws, '.claude'));
  // .vscode does not exist yet: a new hooks file there is as protected as an existing one.
});
afterAll(() => {
  Object.defineProperty(process, 'platform', { value: realPlatform });
  rmSync(ws, { recursive: true, force: true });
});

/** The gate's verdict on a Write of `file` in acceptEdits mode, with the modules loaded as on `platform`. */
async function writeVerdict(platform: NodeJS.Platform, file: string): Promise<string> {
  Object.defineProperty(process, 'platform', { value: platform });
  vi.resetModules();
  const { PermissionGate } = await import('../../src/core/agent/permissions/permission-gate');
  const { permissionSettingsSchema } = await import('../../src/core/agent/permissions/permission-settings');
  const { createWriteTool } = await import('../../src/core/agent/tools/write-tool');
  Object.defineProperty(process, 'platform', { value: realPlatform });
  const gate = new PermissionGate(() => permissionSettingsSchema.parse({ mode: 'acceptEdits' }));
  const verdict = gate.evaluate(createWriteTool() as never, { file_path: join(ws, file), content: '{"hooks":{}}' }, undefined, {
    workspaceRoot: ws,
    cwd: ws,
    home: homedir(),
    protectedPaths: [join(ws, '.vscode', 'hooks.json'), join(ws, '.claude', 'settings.local.json')],
  });
  return verdict.verdict;
}

describe.each(['darwin', 'win32'] as const)('on %s (case-insensitive file names)', (platform) => {
  it.each([
    ['.claude/settings.local.json'],
    // .claude exists: its name resolves to the stored case; the missing leaf is kept as written.
    ['.claude/Settings.Local.json'],
    ['.vscode/hooks.json'],
    // .vscode does not exist: every name after the last existing folder is kept as written.
    ['.VSCode/hooks.json'],
    ['.vscode/HOOKS.json'],
  ])('Write %s in acceptEdits mode asks a person', async (file) => {
    expect({ file, verdict: await writeVerdict(platform, file) }).toEqual({ file, verdict: 'ask' });
  });
});

// Windows also drops trailing dots and spaces from a name, and `name::$DATA` is the file's own data stream.
describe('on win32 (names Windows strips)', () => {
  it.each([['.vscode/hooks.json.'], ['.vscode/hooks.json '], ['.vscode/hooks.json::$DATA']])(
    'Write %s in acceptEdits mode asks a person',
    async (file) => {
      expect({ file, verdict: await writeVerdict('win32', file) }).toEqual({ file, verdict: 'ask' });
    },
  );
});

describe('on linux (names that differ in case are other files)', () => {
  it('Write .vscode/HOOKS.json in acceptEdits mode is an ordinary edit', async () => {
    expect(await writeVerdict('linux', '.vscode/HOOKS.json')).toBe('allow');
  });
});
