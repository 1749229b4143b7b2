import { RE2JS } from 're2js';

/**
 * An `allowedHttpHookUrls` pattern, matched part by part against a parsed URL, so that a
 * wildcard never crosses from one part into another: `http://*.example.com/*` must not
 * admit `http://127.0.0.1:8080/.example.com/x`.
 *
 * - scheme: `http` or `https`, exactly;
 * - host: a name, `*.` followed by a domain (one or more whole leading labels), or `*` alone;
 * - port: a number, `*` for any, or none for the scheme's default;
 * - path (with the query): a glob whose `*` matches any run of characters, `/` included, but
 *   only within the path; no path means any path.
 */
export interface UrlPattern {
  scheme: 'http:' | 'https:';
  host: { kind: 'any' } | { kind: 'exact'; name: string } | { kind: 'subdomains'; of: string };
  /** '' is the scheme's default port, as `URL.port` writes it. */
  port: { kind: 'any' } | { kind: 'exact'; port: string };
  /** The path glob (a leading `/` added) compiled, or undefined for any path. */
  path?: RE2JS;
}

export type ParsedUrlPattern = { ok: true; pattern: UrlPattern } | { ok: false; error: string };

const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)([^#]*)$/;
const IPV4 = /^\d+\.\d+\.\d+\.\d+$/;

function invalid(text: string, why: string): ParsedUrlPattern {
  return { ok: false, error: `URL pattern "${text}" ${why}` };
}

/** The host as `URL` normalizes it (case, IDN, IPv4 shorthand), or undefined when it is no host. */
function normalizedHost(scheme: string, host: string): string | undefined {
  try {
    const url = new URL(`${scheme}//${host}/`);
    return url.hostname === '' ? undefined : url.hostname;
  } catch {
    return undefined;
  }
}

function splitAuthority(authority: string): { host: string; port: string | undefined } {
  const ipv6 = /^(\[[^\]]*\])(?::(.*))?$/.exec(authority);
  if (ipv6) return { host: ipv6[1], port: ipv6[2] };
  const colon = authority.lastIndexOf(':');
  return colon === -1 ? { host: authority, port: undefined } : { host: authority.slice(0, colon), port: authority.slice(colon + 1) };
}

function parseHost(scheme: string, host: string): UrlPattern['host'] | string {
  if (host === '*') return { kind: 'any' };
  const wildcard = host.startsWith('*.');
  const rest = wildcard ? host.slice(2) : host;
  if (rest.includes('*')) return 'may use "*" only as whole leading labels of the host ("*.example.com")';
  const name = normalizedHost(scheme, rest);
  if (name === undefined) return `has no valid host ("${host}")`;
  if (!wildcard) return { kind: 'exact', name };
  if (IPV4.test(name) || name.startsWith('[')) return `uses "*." before an IP address ("${host}"); name the address`;
  return { kind: 'subdomains', of: name };
}

function parsePort(scheme: string, port: string | undefined): UrlPattern['port'] | string {
  if (port === undefined) return { kind: 'exact', port: '' };
  if (port === '*') return { kind: 'any' };
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) return `has an invalid port ("${port}"); write a number or "*"`;
  // `URL` drops a scheme's default port; compare like with like.
  return { kind: 'exact', port: new URL(`${scheme}//h:${port}/`).port };
}

function globRegex(glob: string): RE2JS {
  return RE2JS.compile(
    `^${glob
      .split('*')
      .map((part) => RE2JS.quote(part))
      .join('.*')}$`,
    RE2JS.DOTALL,
  );
}

export function parseUrlPattern(text: string): ParsedUrlPattern {
  const shape = SHAPE.exec(text);
  if (!shape) return invalid(text, 'is not scheme://host[:port][/path] (and has no "#")');
  const scheme = `${shape[1].toLowerCase()}:`;
  if (scheme !== 'http:' && scheme !== 'https:') return invalid(text, 'must start with http:// or https://');
  const [, , authority, rawPath] = shape;
  if (authority.includes('@')) return invalid(text, 'must not contain credentials');
  const { host: rawHost, port: rawPort } = splitAuthority(authority);
  const host = parseHost(scheme, rawHost);
  if (typeof host === 'string') return invalid(text, host);
  const port = parsePort(scheme, rawPort);
  if (typeof port === 'string') return invalid(text, port);
  const pattern: UrlPattern = { scheme, host, port };
  if (rawPath !== '') {
    pattern.path = globRegex(rawPath.startsWith('/') ? rawPath : `/${rawPath}`);
  }
  return { ok: true, pattern };
}

function hostMatches(pattern: UrlPattern['host'], hostname: string): boolean {
  switch (pattern.kind) {
    case 'any':
      return true;
    case 'exact':
      return hostname === pattern.name;
    case 'subdomains':
      return hostname.length > pattern.of.length + 1 && hostname.endsWith(`.${pattern.of}`);
  }
}

/** Whether `url` (already parsed: lowercase scheme and host, default port elided) matches. */
export function urlMatches(pattern: UrlPattern, url: URL): boolean {
  if (url.protocol !== pattern.scheme || !hostMatches(pattern.host, url.hostname)) return false;
  if (pattern.port.kind === 'exact' && url.port !== pattern.port.port) return false;
  return pattern.path === undefined || pattern.path.test(url.pathname + url.search);
}
