/**
 * A URL as messages may show it: without user info, query and fragment, which can carry
 * credentials (`http://alice:pw@host/v1`, `?api_key=...`). Text that is no valid URL is cut the same way.
 */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#\s]*@/i, '$1').replace(/[?#].*$/s, '');
}

/** `text` with every URL in it as displayUrl shows it (an HTTP client's error quotes the URL it was given). */
export function displayUrlsIn(text: string): string {
  return text.replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, (url) => displayUrl(url));
}
