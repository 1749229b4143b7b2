import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeHook, toolMessageSent, useTestbed } from '../fixtures/cli/cli-harness';
import { text, toolCalls } from '../support/model-server';
import { hooksJson } from '../support/workspace';

// A SessionStart hook's CLAUDE_ENV_FILE runs before every Bash command, in whatever shell it
// was written: each secret it exports must be redacted, not only the `export NAME=value` form.

const testbed = useTestbed();

const SECRET = 'envfile-exported-Zx81Qw72Lp';
const printenv = { command: 'printenv ACME_API_TOKEN', shown: '[REDACTED:secret_value]' };
// Set without `export`, a variable still reaches every Bash command, which starts with the file.
const echo = { command: 'echo "v=$ACME_API_TOKEN"', shown: 'v=[REDACTED:secret_value]' };

describe('secrets a SessionStart hook sets through CLAUDE_ENV_FILE', () => {
  it.each([
    ['declare -x, as export -p prints it', `declare -x ACME_API_TOKEN="${SECRET}"`, printenv],
    ['two assignments on one export line', `export NODE_ENV=test ACME_API_TOKEN=${SECRET}`, printenv],
    ['an assignment and a later export', `ACME_API_TOKEN=${SECRET}; export ACME_API_TOKEN`, printenv],
    ['a command substitution reading a file outside the workspace', 'export ACME_API_TOKEN="$(cat "$HOME/acme-token")"', printenv],
    ['a shell variable read from a file, not exported', 'ACME_API_TOKEN="$(cat "$HOME/acme-token")"', echo],
    ['declare without -x', 'declare ACME_API_TOKEN="$(cat "$HOME/acme-token")"', echo],
    // `${!name}` of an array is its first element only, of an associative array nothing.
    [
      'the second element of an array',
      'ACME_API_TOKENS=(first-placeholder "$(cat "$HOME/acme-token")")',
      { command: 'echo "v=${ACME_API_TOKENS[1]}"', shown: 'v=[REDACTED:secret_value]' },
    ],
    [
      'an element of an associative array',
      'declare -A ACME_SECRETS=([deploy]="$(cat "$HOME/acme-token")")',
      { command: 'echo "v=${ACME_SECRETS[deploy]}"', shown: 'v=[REDACTED:secret_value]' },
    ],
  ])(
    'are redacted from what the model reads when written as %s',
    async (_form, line, peek) => {
      const hook = nodeHook(`fs.appendFileSync(process.env.CLAUDE_ENV_FILE, ${JSON.stringify(`${line}\n`)});`);
      const bed = await testbed(
        {
          'hooks/env.js': hook,
          '.vscode/hooks.json': hooksJson({ SessionStart: [{ hooks: [{ type: 'command', command: 'node hooks/env.js' }] }] }),
        },
        [toolCalls([{ id: 'peek', name: 'Bash', arguments: { command: peek.command } }]), text('done')],
      );
      writeFileSync(path.join(bed.home, 'acme-token'), SECRET);
      const r = await bed.run(['look', '--output-format', 'json', '--allowed-tools', 'Bash'], { timeoutMs: 60_000 });
      expect(r.code, r.stderr).toBe(0);
      // The command still gets the value; the model reads it redacted.
      expect(toolMessageSent(bed.server, 'peek')).toBe(peek.shown);
      expect(JSON.stringify(bed.server.requests.map((q) => q.body))).not.toContain(SECRET);
    },
    90_000,
  );
});
