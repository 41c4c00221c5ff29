/**
 * Markdown for cards and the document viewer: marked, then DOMPurify, with code
 * blocks highlighted by highlight.js. Links open outside the app (target _blank,
 * rel noopener noreferrer); nothing that runs script survives.
 */
import DOMPurify from 'dompurify';
import { Marked } from 'marked';
import { escapeHtml, highlight } from './highlight.ts';

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() || undefined;
      const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
      return `<pre class="td-code"><code${cls}>${highlight(text.replace(/\n$/, ''), language)}</code></pre>\n`;
    },
  },
});

let hooked = false;
function hookOnce(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    // Images load only from data: URLs; anything else (a tracking pixel, a path the page
    // cannot reach) becomes its alt text, so nothing is fetched and nothing shows broken.
    if (node.tagName === 'IMG' && !/^data:image\//i.test(node.getAttribute('src') ?? '')) {
      const alt = node.getAttribute('alt') ?? '';
      const span = node.ownerDocument.createElement('span');
      span.className = 'td-img-alt';
      span.textContent = alt ? `[image: ${alt}]` : '[image]';
      node.replaceWith(span);
      return;
    }
    if (node.tagName === 'A' && node.getAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
}

/** Markdown to sanitized HTML. Never throws: on failure the text comes back escaped. */
export function renderMarkdown(src: string): string {
  hookOnce();
  let html: string;
  try {
    html = marked.parse(src) as string;
  } catch {
    html = `<pre>${escapeHtml(src)}</pre>`;
  }
  return DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
    FORBID_ATTR: ['style'],
  });
}

/** SVG to sanitized SVG markup (DOMPurify's SVG profile). */
export function sanitizeSvg(svg: string): string {
  return DOMPurify.sanitize(svg, { USE_PROFILES: { svg: true, svgFilters: true } });
}
