import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { nestingDepth } from './markdown-nesting';

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

/**
 * A reply longer than this is shown as plain text, as tool output is: parsing costs grow with
 * the text, and a streaming reply's last block is parsed again each frame.
 */
export const MAX_MARKDOWN_CHARS = 64 * 1024;
/** marked recurses once per nested block quote or list: a few thousand levels overflow the stack. */
const MAX_NESTING = 32;

const cache = new Map<string, string>();
const CACHE_LIMIT = 500;

/** Sanitized HTML for `text`; finished messages are cached, so scrolling back does not re-parse. */
export function renderMarkdown(text: string, streaming: boolean): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const html = toHtml(text);
  if (!streaming) {
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(text, html);
  }
  return html;
}

/** `text` escaped, its lines kept: what a reply too long or too deep for markdown shows. */
const plainText = (text: string): string => `<pre class="markdown-plain">${escapeHtml(text)}</pre>`;

function toHtml(text: string): string {
  if (text.length > MAX_MARKDOWN_CHARS || nestingDepth(text) > MAX_NESTING) return plainText(text);
  try {
    return DOMPurify.sanitize(marked.parse(text) as string, PURIFY_CONFIG);
  } catch {
    // Inline nesting (thousands of `*`) can still overflow the stack: the text is still worth showing.
    return plainText(text);
  }
}
