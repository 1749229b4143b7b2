import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The extension host's tests run against a small hand-written stand-in for VS Code's API.
  resolve: { alias: { vscode: fileURLToPath(new URL('./test/support/vscode-stub.ts', import.meta.url)) } },
  test: {
    include: ['test/**/*.test.ts'],
    // test/machine writes machine-wide files (the managed policy): its own suite, run alone.
    exclude: ['test/e2e/**', 'test/machine/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/support/no-network.ts'],
  },
});
