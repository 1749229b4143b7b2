/**
 * The host's one registry of secrets, and how they are removed: from audit records before
 * they reach the disk (`redact`, `redactText`), and from everything the model reads
 * (`redactForModel`). Each string first meets one combined regex per flag set (the fast
 * path); only strings that hit it go through the per-pattern replacements.
 *
 * A pattern may split its match into named groups `pre`, `secret` and `post`: then only
 * `secret` is replaced and the rest kept (`Bearer [REDACTED:bearer]`). Without them the
 * whole match is replaced.
 */

export interface SecretPattern {
  kind: string;
  pattern: RegExp;
  /**
   * Found by its context (`password=`, `Bearer `), not by its shape: applied to logs only.
   * In what the model reads it would rewrite ordinary source code (`token = getToken()`).
   */
  contextual?: boolean;
}

export interface RedactorOptions {
  /** Extra patterns; a bare RegExp or string gets the kind `custom`. */
  patterns?: Array<SecretPattern | RegExp | string>;
  /** Exact values to redact wherever they appear (values under 8 characters are ignored). */
  secretValues?: string[];
  /** Write `[REDACTED]` instead of `[REDACTED:kind]`. */
  plainReplacement?: boolean;
}

/** Values shorter than this are not worth redacting ("true", "1", a port). */
export const MIN_SECRET_VALUE_LENGTH = 8;
const MAX_DEPTH = 64;
const KEY_CACHE_LIMIT = 10_000;

// Keys whose words include one of these (or an adjacent pair below) hold a secret value.
const SECRET_KEY_WORDS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'authorization',
  'cookie',
  'credential',
  'credentials',
]);
const SECRET_KEY_PAIRS = new Set(['api key', 'private key', 'access key', 'secret key', 'session key']);
// Secret only as one word of several (`db_pass`, `mysql_pwd`): a lone `PWD` is the working folder.
const SECRET_KEY_LAST_WORDS = new Set(['pass', 'pwd', 'passcode', 'dsn']);
/** `pgpassword`, `mypasswd`: one word ending in a password. */
const ENDS_IN_PASSWORD = /passw(?:or)?d$/;

// Spelled case-insensitively by hand (`[pP][aA]...`), so that all built-ins share one
// case-sensitive prefilter instead of needing a second, slower `i` one.
const caseless = (source: string) => source.replace(/[a-z]/g, (c) => `[${c}${c.toUpperCase()}]`);
// `[^\W_]` (a letter or digit) has no lowercase letter for `caseless` to spell out:
// PGPASSWORD; a `pwd` only after a word (MYSQL_PWD, never PWD, the working folder).
const ASSIGNMENT_KEYS = caseless(
  '[^\\W_]*passw(?:or)?d|passphrase|passcode|pass|[^\\W_]+_pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth',
);
// Flags that take a secret as their next word (`--password hunter2`, `--token abc`).
const SECRET_FLAGS = 'password|passwd|pass|token|secret|api-key|apikey';

export const BUILTIN_SECRET_PATTERNS: readonly SecretPattern[] = [
  { kind: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----|[\s\S]*$)/g },
  { kind: 'anthropic_key', pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  { kind: 'openai_key', pattern: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{20,}/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: 'slack_token', pattern: /\bxox[a-z]-[A-Za-z0-9-]{10,}/g },
  { kind: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'gitlab_token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'stripe_key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { kind: 'huggingface_token', pattern: /\bhf_[A-Za-z0-9]{30,}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+/g },
  { kind: 'bearer', contextual: true, pattern: /(?<pre>\b[Bb]earer\s+)(?<secret>(?!\[REDACTED)[A-Za-z0-9._~+/-]{8,}=*)/g },
  { kind: 'url_credentials', pattern: /(?<pre>:\/\/[^\s:/@[\]]+:)(?<secret>(?!\[REDACTED)[^\s/@]+)(?=@)/g },
  {
    kind: 'assignment',
    contextual: true,
    // Anchored on the `:` or `=`, with the key name in a look-behind: scanning for one
    // character is far cheaper than trying a dozen case-insensitive words at every position.
    pattern: new RegExp(
      `(?<pre>[:=](?<=(?<![A-Za-z0-9])(?:${ASSIGNMENT_KEYS})(?:[_-][A-Za-z0-9_-]*)?["']?\\s*[:=])\\s*["']?)(?<secret>(?!\\[REDACTED)[^\\s"',;&]+)`,
      'g',
    ),
  },
  {
    kind: 'assignment',
    contextual: true,
    pattern: new RegExp(`(?<pre>(?<![\\w-])--(?:${SECRET_FLAGS})[ \\t]+["']?)(?<secret>(?!\\[REDACTED)[^\\s"'-][^\\s"']*)`, 'g'),
  },
  {
    kind: 'assignment',
    // The same, for what the model reads too, but only for values that look generated (12+
    // letters and digits, both present, ending the word, `=` only as padding at its end):
    // `aws_secret_access_key = wJalr...` in a credentials file, not `token = getToken()` in code.
    // A value stops at an `=`, or every `=` of a run like `token=token=…` would start a scan
    // to the run's end, and the time would grow with the square of its length.
    pattern: new RegExp(
      `(?<pre>[:=](?<=(?<![A-Za-z0-9])(?:${ASSIGNMENT_KEYS})(?:[_-][A-Za-z0-9_-]*)?["']?\\s*[:=])\\s*["']?)` +
        `(?<secret>(?=[\\w+/-]*\\d)(?=[\\w+/-]*[A-Za-z])[\\w+/-]{12,}={0,3})(?![^\\s"',;&])`,
      'g',
    ),
  },
];

type Groups = Record<string, string | undefined>;

// Named groups repeat across patterns and numbered back-references would shift, so the
// combined prefilter drops group names and leaves patterns with back-references on their own.
const NAMED_GROUP = /\(\?<([A-Za-z_$][\w$]*)>/g;
const BACK_REFERENCE = /\\[1-9]|\\k</;

/** One use's patterns and, built on first use, their combined prefilters. */
interface Scanner {
  patterns: readonly SecretPattern[];
  prefilters?: RegExp[];
}

/** How a deep copy treats what it meets: which scanner, whether secret-named keys hide their value, whether to share. */
interface CopyMode {
  scanner: Scanner;
  keys: boolean;
  share: boolean;
}

export class Redactor {
  private readonly logs: Scanner;
  private readonly model: Scanner;
  private readonly plain: boolean;
  private readonly secretValues = new Set<string>();
  private valuesPattern: RegExp | undefined;
  /** Keys repeat in every record: what each one is and how it reads once redacted. */
  private readonly keyCache = new Map<string, { secret: boolean; text: string }>();

  constructor(options: RedactorOptions = {}) {
    this.plain = options.plainReplacement ?? false;
    const patterns = [...BUILTIN_SECRET_PATTERNS, ...(options.patterns ?? []).map(toSecretPattern)];
    this.logs = { patterns };
    this.model = { patterns: patterns.filter((p) => !p.contextual) };
    for (const value of options.secretValues ?? []) this.addSecretValue(value);
  }

  /** Registers an exact secret (an API key, a token read from settings). Short values are ignored. */
  addSecretValue(value: string): void {
    if (typeof value !== 'string' || value.length < MIN_SECRET_VALUE_LENGTH || this.secretValues.has(value)) return;
    this.secretValues.add(value);
    this.valuesPattern = undefined;
    this.logs.prefilters = undefined;
    this.model.prefilters = undefined;
    this.keyCache.clear();
  }

  get secretValueCount(): number {
    return this.secretValues.size;
  }

  /** Replaces every secret in `text`; returns `text` itself when nothing matched. */
  redactText(text: string): string {
    return this.scan(text, this.logs);
  }

  /**
   * For what the model reads (and the transcript of it): every string of `value` without the
   * registered secret values and token shapes, but with contextual patterns left out, so that
   * source code reads as written. Parts that need no change are returned as they are.
   */
  redactForModel<T>(value: T): T {
    return this.copy(value, false, 0, [], { scanner: this.model, keys: false, share: true }) as T;
  }

  /**
   * A redacted deep copy in JSON form: strings (keys too) are redacted, string values under
   * secret-named keys are replaced whole, `toJSON` is honoured, cycles and values JSON cannot
   * hold (bigint, functions) are turned into strings or dropped, so the copy always serializes.
   */
  redact(value: unknown): unknown {
    return this.copy(value, false, 0, [], { scanner: this.logs, keys: true, share: false });
  }

  /**
   * Like `redact`, but parts that need no change are returned as they are (the value itself
   * when nothing does): for a caller that serializes the result at once, this saves the copy.
   */
  redactForSerialization(value: unknown): unknown {
    return this.copy(value, false, 0, [], { scanner: this.logs, keys: true, share: true });
  }

  /**
   * `text` without its end when that end is the start of a registered secret value: for a
   * text cut at a byte cap, where the rest of the value, and so its match, was cut off.
   */
  withoutSecretStartAtEnd(text: string): string {
    let cut = 0;
    for (const value of this.secretValues) cut = Math.max(cut, prefixEndingText(value, text));
    return text.slice(0, text.length - cut);
  }

  /** Whether a key such as `password`, `api_key`, `accessToken` or `Authorization` names a secret. */
  isSecretKey(key: string): boolean {
    return this.keyInfo(key).secret;
  }

  private scan(text: string, scanner: Scanner): string {
    if (!this.couldContainSecret(text, scanner)) return text;
    let out = text;
    const values = this.valuesRegex();
    if (values) out = out.replace(values, this.label('secret_value'));
    for (const { kind, pattern } of scanner.patterns) {
      pattern.lastIndex = 0;
      out = out.replace(pattern, (...args: unknown[]) => this.replacement(kind, args));
    }
    return out;
  }

  private keyInfo(key: string): { secret: boolean; text: string } {
    const cached = this.keyCache.get(key);
    if (cached !== undefined) return cached;
    const words = key
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    let secret =
      words.some((w) => SECRET_KEY_WORDS.has(w) || ENDS_IN_PASSWORD.test(w)) ||
      (words.length === 1 && (words[0] === 'auth' || (SECRET_KEY_LAST_WORDS.has(words[0]) && words[0] !== 'pwd'))) ||
      (words.length > 1 && SECRET_KEY_LAST_WORDS.has(words[words.length - 1]));
    for (let i = 0; !secret && i + 1 < words.length; i++) secret = SECRET_KEY_PAIRS.has(`${words[i]} ${words[i + 1]}`);
    const info = { secret, text: this.redactText(key) };
    if (this.keyCache.size >= KEY_CACHE_LIMIT) this.keyCache.clear();
    this.keyCache.set(key, info);
    return info;
  }

  private copy(value: unknown, secretKey: boolean, depth: number, ancestors: object[], mode: CopyMode): unknown {
    switch (typeof value) {
      case 'string':
        return secretKey && value.length > 0 ? this.label('key') : this.scan(value, mode.scanner);
      case 'number':
        return Number.isFinite(value) ? value : null;
      case 'boolean':
        return value;
      case 'bigint':
        return value.toString();
      case 'object':
        break;
      default:
        return undefined;
    }
    if (value === null) return null;
    const withJson = value as { toJSON?: unknown };
    if (typeof withJson.toJSON === 'function')
      return this.copy((withJson.toJSON as () => unknown).call(value), secretKey, depth, ancestors, mode);
    if (ancestors.includes(value)) return '[Circular]';
    if (depth >= MAX_DEPTH) return '[MaxDepth]';
    ancestors.push(value);
    try {
      return Array.isArray(value)
        ? this.copyArray(value, secretKey, depth, ancestors, mode)
        : this.copyObject(value, secretKey, depth, ancestors, mode);
    } finally {
      ancestors.pop();
    }
  }

  // With `share`, a new array or object is made only from the first element that changes.
  private copyArray(value: unknown[], secretKey: boolean, depth: number, ancestors: object[], mode: CopyMode): unknown[] {
    let out: unknown[] | undefined = mode.share ? undefined : [];
    for (let i = 0; i < value.length; i++) {
      const item = this.copy(value[i], secretKey, depth + 1, ancestors, mode) ?? null;
      if (!out && item !== value[i]) out = value.slice(0, i);
      out?.push(item);
    }
    return out ?? value;
  }

  private copyObject(value: object, secretKey: boolean, depth: number, ancestors: object[], mode: CopyMode): object {
    const source = value as Record<string, unknown>;
    const keys = Object.keys(source);
    let out: Record<string, unknown> | undefined = mode.share ? undefined : {};
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      const info = mode.keys ? this.keyInfo(key) : { secret: false, text: this.scan(key, mode.scanner) };
      const item = this.copy(source[key], secretKey || info.secret, depth + 1, ancestors, mode);
      if (!out && (item !== source[key] || info.text !== key)) {
        out = {};
        for (let j = 0; j < k; j++) out[keys[j]] = source[keys[j]];
      }
      if (out && item !== undefined) out[info.text] = item;
    }
    return out ?? value;
  }

  private couldContainSecret(text: string, scanner: Scanner): boolean {
    for (const regex of this.prefiltersFor(scanner)) if (regex.test(text)) return true;
    return false;
  }

  private prefiltersFor(scanner: Scanner): RegExp[] {
    if (scanner.prefilters) return scanner.prefilters;
    const byFlags = new Map<string, string[]>();
    const alone: RegExp[] = [];
    const sources = scanner.patterns.map((p) => p.pattern);
    const values = this.valuesRegex();
    if (values) sources.push(values);
    for (const pattern of sources) {
      const flags = pattern.flags.replace(/[gyd]/g, '');
      if (BACK_REFERENCE.test(pattern.source)) alone.push(new RegExp(pattern.source, flags));
      else byFlags.set(flags, [...(byFlags.get(flags) ?? []), pattern.source.replace(NAMED_GROUP, '(?:')]);
    }
    // Grouping by identical flags keeps each prefilter an exact union of its members.
    scanner.prefilters = [...[...byFlags].map(([flags, list]) => new RegExp(list.map((s) => `(?:${s})`).join('|'), flags)), ...alone];
    return scanner.prefilters;
  }

  private valuesRegex(): RegExp | undefined {
    if (this.secretValues.size === 0) return undefined;
    if (!this.valuesPattern) {
      // Longest first, so a secret that contains another is replaced whole.
      const sorted = [...this.secretValues].sort((a, b) => b.length - a.length);
      this.valuesPattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
    }
    return this.valuesPattern;
  }

  private replacement(kind: string, args: unknown[]): string {
    const last = args[args.length - 1];
    const groups = typeof last === 'object' && last !== null ? (last as Groups) : undefined;
    if (groups?.secret === undefined) return this.label(kind);
    return `${groups.pre ?? ''}${this.label(kind)}${groups.post ?? ''}`;
  }

  private label(kind: string): string {
    return this.plain ? '[REDACTED]' : `[REDACTED:${kind}]`;
  }
}

function toSecretPattern(p: SecretPattern | RegExp | string): SecretPattern {
  if (typeof p === 'string') return { kind: 'custom', pattern: new RegExp(p, 'g') };
  if (p instanceof RegExp) return { kind: 'custom', pattern: withGlobal(p) };
  return { ...p, pattern: withGlobal(p.pattern) };
}

function withGlobal(re: RegExp): RegExp {
  return re.global ? re : new RegExp(re.source, `${re.flags}g`);
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The length of the longest start of `value`, shorter than all of it, that ends `text`: one
 * pass of Knuth-Morris-Pratt over the last characters of `text`, linear in the value's length
 * (a `.env` value of a megabyte must not cost its square on every capped Bash output).
 */
function prefixEndingText(value: string, text: string): number {
  const fail = new Int32Array(value.length);
  for (let i = 1, k = 0; i < value.length; i++) {
    while (k > 0 && value[i] !== value[k]) k = fail[k - 1];
    if (value[i] === value[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  // Fewer characters than the value holds: a whole match was redacted already, and k stays below it.
  for (let i = Math.max(0, text.length - value.length + 1); i < text.length; i++) {
    while (k > 0 && text[i] !== value[k]) k = fail[k - 1];
    if (text[i] === value[k]) k++;
  }
  return k;
}
