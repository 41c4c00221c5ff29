import { useMemo, type ReactNode } from 'react';
import { renderMarkdown } from '../../viewers/markdown.ts';

/** Sanitized Markdown (marked + DOMPurify, code highlighted). */
export function Markdown(props: { text: string; className?: string }): ReactNode {
  const html = useMemo(() => renderMarkdown(props.text), [props.text]);
  return <div className={`td-md ${props.className ?? ''}`} dangerouslySetInnerHTML={{ __html: html }} />;
}
