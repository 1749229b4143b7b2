import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where the end-to-end tools and outputs live, relative to the repository root. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** scripts/install-code-server.sh installs here; the variable lets CI point at a cache. */
export const toolsDir = process.env.HOOKPILOT_E2E_TOOLS_DIR ?? path.join(repoRoot, '.tools', 'code-server');

export const codeServerEntry = path.join(toolsDir, 'node_modules', 'code-server', 'out', 'node', 'entry.js');

export const chromiumPath = process.env.HOOKPILOT_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots and logs kept as CI artifacts. */
export const resultsDir = path.join(repoRoot, 'test-results', 'e2e');
