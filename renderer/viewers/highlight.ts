/**
 * Syntax highlighting for code blocks and diffs (highlight.js, common languages).
 * Returns HTML made only of highlight.js's own <span class="hljs-…"> around escaped
 * text, so it is safe to insert as it is.
 */
import hljs from 'highlight.js/lib/common';
import { escapeHtml } from '../../common/escape.ts';

export { escapeHtml };

/** Highlight text in a language when highlight.js knows it; else just escape it. */
export function highlight(code: string, language: string | undefined): string {
  if (language && hljs.getLanguage(language)) {
    try {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

/**
 * Highlight many lines of one file so that multi-line constructs (comments, strings)
 * colour right, and give back one HTML string per line. Each line's open spans are
 * closed at its end and reopened on the next.
 */
export function highlightLines(lines: readonly string[], language: string | undefined): string[] {
  if (!language || !hljs.getLanguage(language)) return lines.map(escapeHtml);
  const html = highlight(lines.join('\n'), language);
  const out: string[] = [];
  const open: string[] = [];
  let cur = '';
  const re = /(<span[^>]*>)|(<\/span>)|(\n)|([^<\n]+)/g;
  for (const m of html.matchAll(re)) {
    if (m[1]) {
      open.push(m[1]);
      cur += m[1];
    } else if (m[2]) {
      open.pop();
      cur += m[2];
    } else if (m[3]) {
      out.push(cur + '</span>'.repeat(open.length));
      cur = open.join('');
    } else if (m[4]) {
      cur += m[4];
    }
  }
  out.push(cur + '</span>'.repeat(open.length));
  // A mismatch (should not happen) falls back to plain text rather than misplacing lines.
  return out.length === lines.length ? out : lines.map(escapeHtml);
}
