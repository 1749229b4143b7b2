/** Session ids name files (audit logs, transcripts, recordings): one safe file name, never a path. */
const SESSION_ID = /^[A-Za-z0-9_.-]{1,200}$/;

export function isValidSessionId(sessionId: string): boolean {
  return SESSION_ID.test(sessionId) && sessionId !== '.' && sessionId !== '..';
}
