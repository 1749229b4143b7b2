import { describe, expect, it } from 'vitest';
import { problemRange } from '../../../src/extension/hooks-diagnostics';
import type { ConfigProblem } from '../../../src/core/hooks/config/config-problems';

// A script problem carries only the handler's JSON path: the squiggle must land on its command,
// whichever file holds the hooks at the top (hooks.json, Claude Code's settings, the policy).

const CLAUDE = `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./missing.sh" } ] }
    ]
  }
}`;

const missing = (sourceKind: ConfigProblem['sourceKind']): ConfigProblem => ({
  severity: 'error',
  code: 'script-missing',
  message: 'missing.sh does not exist',
  path: 'hooks.PreToolUse[0].hooks[0]',
  sourceKind,
  file: '/w/.claude/settings.json',
});

describe('problemRange', () => {
  it.each(['claudeProject', 'claudeUser', 'claudeLocal', 'managed', 'hooksJson'] as const)('points at the command in a %s file', (kind) => {
    const range = problemRange(missing(kind), CLAUDE);
    expect([range.start.line, range.start.character]).toEqual([4, CLAUDE.split('\n')[4].indexOf('"./missing.sh"')]);
  });
});
