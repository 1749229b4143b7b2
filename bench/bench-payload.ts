import { join } from 'node:path';
import type { HookPayload } from '../src/core/hooks/types';

/** The PreToolUse payload of a Bash `ls` that the hook benches dispatch, in `dir`. */
export function benchPayload(dir: string): HookPayload {
  return {
    hook_event_name: 'PreToolUse',
    session_id: 'bench',
    transcript_path: join(dir, 't.jsonl'),
    cwd: dir,
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: 'c1',
  };
}
