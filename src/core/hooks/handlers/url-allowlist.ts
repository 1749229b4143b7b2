import { parseUrlPattern, urlMatches, type UrlPattern } from './url-pattern';

/**
 * URL allowlist for http hooks (Claude Code's `allowedHttpHookUrls`), matched part by part
 * (see url-pattern.ts). A pattern that does not parse allows nothing: the loader reports it.
 */

export type UrlCheck = { ok: true; url: URL } | { ok: false; error: string };

export class UrlAllowlist {
  private readonly patterns: UrlPattern[] | undefined;

  /** undefined: every URL is allowed; []: every URL is refused. */
  constructor(patterns: readonly string[] | undefined) {
    this.patterns = patterns?.flatMap((text) => {
      const parsed = parseUrlPattern(text);
      return parsed.ok ? [parsed.pattern] : [];
    });
  }

  /**
   * Parses and checks `raw`. Patterns are matched against the parsed URL (lowercase scheme
   * and host, default port elided, path normalized), so what was checked is what is
   * requested. URLs with credentials are refused: `http://127.0.0.1:1@evil.test/` names
   * another host than it seems to.
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
    if (this.patterns && !this.patterns.some((pattern) => urlMatches(pattern, url))) {
      return { ok: false, error: `http hook URL not in allowlist: ${url.href}` };
    }
    return { ok: true, url };
  }
}
