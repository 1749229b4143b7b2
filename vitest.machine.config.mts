import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Tests that write machine-wide files (/etc/hookpilot/managed-settings.json): after the main
// suite, one file at a time, so no other test runs while such a file exists. Otherwise as
// vitest.config.mts (they use the same harnesses, the `vscode` stand-in included).
export default defineConfig({
  resolve: { alias: { vscode: fileURLToPath(new URL('./test/support/vscode-stub.ts', import.meta.url)) } },
  test: {
    include: ['test/machine/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
    setupFiles: ['test/support/no-network.ts'],
  },
});
