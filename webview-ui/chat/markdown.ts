import DOMPurify from 'dompurify';
import { Marked } from 'marked';

/**
 * Model output is untrusted. Raw HTML in it is shown as text (a coding agent talks about
 * tags far more often than it means them); the HTML marked makes from the markdown then
 * goes through DOMPurify, which keeps only inert markup: no scripts, event handlers,
 * styles, forms, frames or images (a remote image would leak data the moment it renders).
 */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const marked = new Marked({ gfm: true, breaks: false, async: false, renderer: { html: (token) => escapeHtml(token.text) } });

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: [
    'style',
    'img',
    'picture',
    'video',
    'audio',
    'source',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'iframe',
    'object',
    'embed',
    'svg',
    'math',
  ],
  FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
  ALLOW_DATA_ATTR: false,
};

DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node instanceof HTMLAnchorElement) node.setAttribute('rel', 'noopener noreferrer');
});

const cache = new Map<string, string>();
const CACHE_LIMIT = 500;

/** Sanitized HTML for `text`; finished messages are cached, so scrolling back does not re-parse. */
export function renderMarkdown(text: string, streaming: boolean): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = DOMPurify.sanitize(marked.parse(text) as string, PURIFY_CONFIG);
  if (!streaming) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(text, html);
  }
  return html;
}
