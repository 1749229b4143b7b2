import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeHook, startTestbed, toolMessageSent, useCliBundle, type Testbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A SessionStart hook's CLAUDE_ENV_FILE runs before every Bash command, in whatever shell it
// was written: each secret it exports must be redacted, not only the `export NAME=value` form.

const bundle = useCliBundle();
let bed: Testbed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const SECRET = 'envfile-exported-Zx81Qw72Lp';

describe('secrets a SessionStart hook exports through CLAUDE_ENV_FILE', () => {
  it.each([
    ['declare -x, as export -p prints it', `declare -x ACME_API_TOKEN="${SECRET}"`],
    ['two assignments on one export line', `export NODE_ENV=test ACME_API_TOKEN=${SECRET}`],
    ['an assignment and a later export', `ACME_API_TOKEN=${SECRET}; export ACME_API_TOKEN`],
    ['a command substitution reading a file outside the workspace', 'export ACME_API_TOKEN="$(cat "$HOME/acme-token")"'],
  ])(
    'are redacted from what the model reads when written as %s',
    async (_form, line) => {
      const hook = nodeHook(`fs.appendFileSync(process.env.CLAUDE_ENV_FILE, ${JSON.stringify(`${line}\n`)});`);
      bed = await startTestbed(
        bundle.bundle,
        {
          'hooks/env.js': hook,
          '.vscode/hooks.json': hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/env.js' }] }] }),
        },
        [toolCalls([{ id: 'peek', name: 'Bash', arguments: { command: 'printenv ACME_API_TOKEN' } }]), text('done')],
      );
      writeFileSync(path.join(bed.home, 'acme-token'), SECRET);
      const r = await bed.run(['look', '--output-format', 'json', '--allowed-tools', 'Bash'], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      // The command still gets the value; the model reads it redacted.
      expect(toolMessageSent(bed.server, 'peek')).toBe('[REDACTED:secret_value]');
      expect(JSON.stringify(bed.server.requests.map((q) => q.body))).not.toContain(SECRET);
    },
    90_000,
  );
});

describe('secrets a SessionStart hook sets through CLAUDE_ENV_FILE without exporting them', () => {
  it.each([
    ['a shell variable read from a file', 'ACME_API_TOKEN="$(cat "$HOME/acme-token")"'],
    ['declare without -x', 'declare ACME_API_TOKEN="$(cat "$HOME/acme-token")"'],
  ])(
    'are redacted from what the model reads when written as %s, as every Bash command still sees them',
    async (_form, line) => {
      const hook = nodeHook(`fs.appendFileSync(process.env.CLAUDE_ENV_FILE, ${JSON.stringify(`${line}\n`)});`);
      bed = await startTestbed(
        bundle.bundle,
        {
          'hooks/env.js': hook,
          '.vscode/hooks.json': hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/env.js' }] }] }),
        },
        [toolCalls([{ id: 'peek', name: 'Bash', arguments: { command: 'echo "v=$ACME_API_TOKEN"' } }]), text('done')],
      );
      writeFileSync(path.join(bed.home, 'acme-token'), SECRET);
      const r = await bed.run(['look', '--output-format', 'json', '--allowed-tools', 'Bash'], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      expect(toolMessageSent(bed.server, 'peek')).toBe('v=[REDACTED:secret_value]');
      expect(JSON.stringify(bed.server.requests.map((q) => q.body))).not.toContain(SECRET);
    },
    90_000,
  );
});
