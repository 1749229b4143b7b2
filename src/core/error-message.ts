/** The message of a thrown value: an Error's `message`, anything else as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A thrown value as an Error, for callbacks that take one: an Error as it is, anything else wrapped. */
export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
