import { describe, expect, it } from 'vitest';
import { UrlAllowlist } from '../../src/core/hooks/handlers/url-allowlist';
import { parseUrlPattern } from '../../src/core/hooks/handlers/url-pattern';

const allows = (pattern: string, url: string): boolean => new UrlAllowlist([pattern]).check(url).ok;

describe('allowedHttpHookUrls patterns match scheme, host, port and path separately', () => {
  it.each([
    // The bypass: a host wildcard satisfied by text in the path.
    ['http://*.example.com/*', 'http://127.0.0.1:8080/.example.com/x', false],
    ['http://*.example.com/*', 'http://hooks.example.com/x', true],
    ['http://*.example.com/*', 'http://a.b.example.com/x/y?z=1', true],
    ['http://*.example.com/*', 'http://example.com/x', false],
    ['http://*.example.com/*', 'http://evilexample.com/x', false],
    ['http://*.example.com/*', 'http://hooks.example.com.evil.test/x', false],
    ['http://*.example.com/*', 'http://hooks.example.com:8080/x', false],
    ['http://*.example.com/*', 'https://hooks.example.com/x', false],
    // Ports: none is the default port; `*` any; a number exactly.
    ['http://localhost/*', 'http://localhost:80/x', true],
    ['http://localhost/*', 'http://localhost:8080/x', false],
    ['http://localhost:*/*', 'http://localhost:8080/x', true],
    ['http://localhost:8080/*', 'http://localhost:8081/x', false],
    ['http://127.0.0.1:*', 'http://127.0.0.1:9/any/path', true],
    // A wildcard in the port cannot reach into the host.
    ['http://127.0.0.1:8*', 'http://127.0.0.1:80/', false],
    // Paths: `*` crosses `/`, but only within the path; the query is part of the path.
    ['https://h.test/hooks/*', 'https://h.test/hooks/a/b', true],
    ['https://h.test/hooks/*', 'https://h.test/other/hooks/a', false],
    ['https://h.test/hook', 'https://h.test/hook?x=1', false],
    ['https://h.test/hook*', 'https://h.test/hook?x=1', true],
    ['https://h.test/a/*', 'https://h.test/a/../b', false],
    // Hosts compare as URL normalizes them.
    ['http://HOOKS.Example.com/*', 'http://hooks.example.COM/x', true],
    ['http://127.1/*', 'http://127.0.0.1/x', true],
    ['http://[::1]:*/*', 'http://[::1]:3000/x', true],
    ['http://*/*', 'http://anything.test/x', true],
  ])('%s against %s: %s', (pattern, url, expected) => {
    expect(allows(pattern, url)).toBe(expected);
  });

  it.each([
    ['http://h*.example.com/*', 'may use "*" only as whole leading labels'],
    ['http://*.*.example.com/*', 'may use "*" only as whole leading labels'],
    ['http://*.10.0.0.1/*', 'before an IP address'],
    ['ftp://h.test/*', 'must start with http:// or https://'],
    ['http://user@h.test/*', 'must not contain credentials'],
    ['http://h.test:99999/*', 'invalid port'],
    ['http://h.test/#frag', 'has no "#"'],
    ['hooks.example.com', 'is not scheme://host'],
  ])('refuses %s: %s', (pattern, why) => {
    const parsed = parseUrlPattern(pattern);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toContain(why);
    expect(allows(pattern, 'http://h.test/')).toBe(false);
  });
});
