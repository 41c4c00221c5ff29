/**
 * A sentence of the service's (`service.stopping`'s, say) as it is shown: the parts it quotes
 * in backticks, commands a person may type, are code; the backticks themselves are not shown.
 * A lone backtick with no partner stays as it is.
 */
export interface Span {
  text: string;
  code: boolean;
}

export function codeSpans(sentence: string): Span[] {
  const spans: Span[] = [];
  const re = /`([^`]+)`/g;
  let at = 0;
  for (const m of sentence.matchAll(re)) {
    if (m.index > at) spans.push({ text: sentence.slice(at, m.index), code: false });
    spans.push({ text: m[1]!, code: true });
    at = m.index + m[0].length;
  }
  if (at < sentence.length) spans.push({ text: sentence.slice(at), code: false });
  return spans;
}
