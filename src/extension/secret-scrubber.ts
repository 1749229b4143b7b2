const REDACTED = '[REDACTED]';

/** Replaces every occurrence of a secret value in a string. Short values are ignored: they would match too much. */
export function scrubText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * A copy of `value` with every string scrubbed, for messages leaving the extension host
 * (webviews, logs): a key pasted into a prompt or printed by a tool must not travel on.
 */
export function scrubSecrets<T>(value: T, secrets: readonly string[]): T {
  const active = secrets.filter((s) => s.length >= 8);
  if (active.length === 0) return value;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') return scrubText(v, active);
    if (Array.isArray(v)) return v.map(visit);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, visit(inner)]));
    return v;
  };
  return visit(value) as T;
}
