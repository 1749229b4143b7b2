/** Set in the extension host's environment: the suite writes its outcome there (see suite/index.ts). */
export const RESULTS_FILE_VARIABLE = 'HOOKPILOT_SUITE_RESULTS';

export interface SuiteResults {
  passed: string[];
  failed: Array<{ title: string; error: string }>;
  /** Skipped tests (`test.skip`, `this.skip()`): a runner must treat them as not passed. */
  pending: string[];
}
