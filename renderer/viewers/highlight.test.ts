import { describe, expect, it } from 'vitest';
import { escapeHtml, highlight, highlightLines } from './highlight.ts';

describe('highlight', () => {
  it('highlights a known language and escapes an unknown one', () => {
    expect(highlight('const a = 1;', 'typescript')).toContain('<span class="hljs-keyword">const</span>');
    expect(highlight('<b>&', 'no-such-language')).toBe('&lt;b&gt;&amp;');
    expect(highlight('<b>', undefined)).toBe('&lt;b&gt;');
    expect(escapeHtml(`"'`)).toBe('&quot;&#39;');
  });

  it('gives one balanced line of HTML per input line, even inside a multi-line comment', () => {
    const lines = ['/* a', ' b */', 'const x = "<y>";'];
    const html = highlightLines(lines, 'typescript');
    expect(html).toHaveLength(3);
    for (const h of html) expect((h.match(/<span/g) ?? []).length).toBe((h.match(/<\/span>/g) ?? []).length);
    expect(html[0]).toMatch(/^<span class="hljs-comment">\/\* a<\/span>$/);
    expect(html[1]).toMatch(/^<span class="hljs-comment"> b \*\/<\/span>$/);
    expect(html[2]).toContain('&lt;y&gt;');
    expect(highlightLines(['<x>', ''], undefined)).toEqual(['&lt;x&gt;', '']);
  });
});
