/**
 * URL allowlist for http hooks (Claude Code's `allowedHttpHookUrls`): a pattern's `*`
 * matches any run of characters, everything else matches literally.
 */

export type UrlCheck = { ok: true; url: URL } | { ok: false; error: string };

export function patternToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

export class UrlAllowlist {
  private readonly patterns: RegExp[] | undefined;

  /** undefined: every URL is allowed; []: every URL is refused. */
  constructor(patterns: readonly string[] | undefined) {
    this.patterns = patterns?.map(patternToRegExp);
  }

  /**
   * Parses and checks `raw`. Patterns are matched against the normalized URL (lowercase
   * scheme and host), so the same string that was checked is the one requested. URLs with
   * credentials are refused: `http://127.0.0.1:1@evil.test/` would otherwise satisfy
   * `http://127.0.0.1:*` while going to another host.
   */
  check(raw: string): UrlCheck {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { ok: false, error: `invalid http hook URL: ${raw}` };
    }
    if (url.username !== '' || url.password !== '') {
      return { ok: false, error: `http hook URL must not contain credentials (use headers): ${url.protocol}//${url.host}${url.pathname}` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { ok: false, error: `http hook URL must use http or https: ${url.href}` };
    }
    if (this.patterns && !this.patterns.some((pattern) => pattern.test(url.href))) {
      return { ok: false, error: `http hook URL not in allowlist: ${url.href}` };
    }
    return { ok: true, url };
  }
}
