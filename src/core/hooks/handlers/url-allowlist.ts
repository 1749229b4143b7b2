import { parseUrlPattern, urlMatches, type UrlPattern } from './url-pattern';

/**
 * URL allowlist for http hooks (Claude Code's `allowedHttpHookUrls`), matched part by part
 * (see url-pattern.ts). A pattern that does not parse allows nothing: the loader reports it.
 */

export type UrlCheck = { ok: true; url: URL } | { ok: false; error: string };

/**
 * A hook's URL as errors quote it, which may reach the model: scheme and host, `/…` for a path
 * or query, where a webhook's token often is (Slack, Discord, Azure's `?code=`).
 */
export function messageUrl(url: URL): string {
  return url.pathname === '/' && url.search === '' ? `${url.protocol}//${url.host}` : `${url.protocol}//${url.host}/…`;
}

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
      return { ok: false, error: 'invalid http hook URL' };
    }
    if (url.username !== '' || url.password !== '') {
      return { ok: false, error: `http hook URL must not contain credentials (use headers): ${messageUrl(url)}` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return { ok: false, error: `http hook URL must use http or https: ${messageUrl(url)}` };
    }
    if (this.patterns && !this.patterns.some((pattern) => urlMatches(pattern, url))) {
      return { ok: false, error: `http hook URL not in allowlist: ${messageUrl(url)}` };
    }
    return { ok: true, url };
  }
}
