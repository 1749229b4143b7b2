import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A temporary workspace with the given files; `.sh` files are made executable. */
export function makeWorkspace(files: Record<string, string> = {}): { dir: string; file: (rel: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'hookpilot-ws-'));
  for (const [rel, content] of Object.entries(files)) {
    const full = path.join(dir, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
    if (rel.endsWith('.sh')) chmodSync(full, 0o755);
  }
  return { dir, file: (rel) => path.join(dir, rel), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function hooksJson(hooks: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ hooks, ...extra }, null, 2);
}
