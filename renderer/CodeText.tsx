/**
 * A sentence of the core's as it is shown: the commands it quotes in backticks are code (kept
 * whole on one line where they fit), the backticks themselves not shown (service/code-spans.ts).
 */
import type { ReactElement } from 'react';
import { codeSpans } from './service/code-spans.ts';

export function CodeText({ text }: { text: string }): ReactElement {
  return <>{codeSpans(text).map((part, i) => (part.code ? <code key={i} className="td-code-span">{part.text}</code> : part.text))}</>;
}
