import { chmodSync, existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { managedPolicyFile } from '../../src/core/hooks/config/managed-policy';

/** The one test file allowed to write the machine's real managed policy. */
const OWNER = 'test/machine/cli-managed-policy.test.ts';
const LOCK = `${managedPolicyFile()}.test-lock`;

/**
 * The machine's managed policy, written at its real place (no variable moves it) for the
 * calling test file only: another file calling this fails, an existing policy that is not
 * ours is never overwritten, and the file is removed after each test and when the file ends.
 */
export function useManagedPolicyFile(): { write(policy: unknown, mode?: number): string; remove(): void } {
  const file = managedPolicyFile();
  let created = false;
  const remove = () => {
    rmSync(file, { force: true });
  };
  beforeAll(() => {
    const caller = expect.getState().testPath ?? '';
    if (!caller.endsWith(OWNER)) throw new Error(`only ${OWNER} may write ${file} (called from ${caller})`);
    if (existsSync(file)) throw new Error(`${file} exists and is not this test's: refusing to touch the machine's policy`);
    const dir = path.dirname(file);
    if (!existsSync(dir)) {
      mkdirSync(dir, { recursive: true, mode: 0o755 });
      created = true;
    }
    // Exclusive: a second run of this file at the same time fails here instead of racing.
    writeFileSync(LOCK, String(process.pid), { flag: 'wx' });
  });
  afterEach(remove);
  afterAll(() => {
    remove();
    rmSync(LOCK, { force: true });
    if (created) rmdirSync(path.dirname(file));
  });
  return {
    write(policy: unknown, mode = 0o644): string {
      writeFileSync(file, JSON.stringify(policy, null, 2));
      chmodSync(file, mode);
      return file;
    },
    remove,
  };
}
