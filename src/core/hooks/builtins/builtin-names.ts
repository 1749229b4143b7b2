/** Every built-in hook by name: the one list that the config schema and the settings describe. */
export const BUILTIN_HOOK_NAMES = [
  'Cancellation',
  'Metrics',
  'AuditLog',
  'TurnStats',
  'SessionSummary',
  'ErrorReport',
  'ResponseValidation',
  'AutoCommit',
] as const;

/** Built-ins that act on the user's files: they run only once a setting turns them on. */
export const BUILTINS_OFF_BY_DEFAULT: ReadonlySet<string> = new Set(['AutoCommit']);
