import path from 'node:path';

/**
 * Where a workspace ships a recorded session to replay (the demo workspace does). The
 * extension offers it to replay, so it governs what runs: a protected file, as hook
 * configuration is.
 */
export const DEMO_RECORDING = path.join('.hookpilot', 'recordings', 'demo-session.jsonl');
