/** The id prefix of the sessions `hookpilot hooks test` records. */
export const HOOKS_TEST_SESSION_PREFIX = 'test-';
/** The id prefix of the sessions a replay records (in its scratch copy). */
export const REPLAY_SESSION_PREFIX = 'replay-';

/** Whether a session was the agent's own run, not a hook test or a replay: what commands show by default. */
export function isAgentRunSession(sessionId: string): boolean {
  return !sessionId.startsWith(HOOKS_TEST_SESSION_PREFIX) && !isReplaySession(sessionId);
}

/** Whether a session is a replay's, run in a scratch copy of the workspace. */
export function isReplaySession(sessionId: string): boolean {
  return sessionId.startsWith(REPLAY_SESSION_PREFIX);
}
