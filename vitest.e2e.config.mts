import { defineConfig } from 'vitest/config';

// End-to-end tests drive a real VS Code (code-server) in Chromium: one file at a time in
// one fork, long timeouts, and no retries that would hide a flaky harness.
export default defineConfig({
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    setupFiles: ['test/support/no-network.ts'],
  },
});
