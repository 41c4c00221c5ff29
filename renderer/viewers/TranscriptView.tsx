/**
 * An agent's transcript in the document viewer (a search hit's, renderer/search/jump.ts):
 * its prompts, replies and tool runs in order, the hit's entry marked and scrolled to.
 * Replies are Markdown (sanitized, as every card's); prompts and tool runs are kept as typed.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import type { SearchTranscript } from '../../preload/contract.ts';
import { Markdown } from '../workbench/cards/Markdown.tsx';
import { when } from '../search/group.ts';
import { AGENT_LABELS } from '../agents/labels.ts';

const WHO: Record<SearchTranscript['entries'][number]['kind'], string> = { prompt: 'Prompt', reply: 'Reply', tool: 'Tool run' };

export function TranscriptView({ transcript }: { transcript: SearchTranscript }): ReactNode {
  const current = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    current.current?.scrollIntoView({ block: 'center' });
  }, [transcript]);
  const t = transcript;
  return (
    <div className="tdv-doc tdv-transcript" tabIndex={0} role="region" aria-label="Transcript">
      <p className="tdv-transcript-head">
        {[t.agent ? (AGENT_LABELS[t.agent] ?? t.agent) : undefined, t.sessionId ? `session ${t.sessionId}` : undefined].filter(Boolean).join(' · ')}
        {t.path ? <><br /><code>{t.path}</code></> : null}
      </p>
      {t.cut.before > 0 && <p className="tdv-transcript-cut">{t.cut.before} earlier entries not shown</p>}
      {t.entries.map((e, i) => (
        <article
          key={`${e.ref}-${i}`}
          ref={i === t.index ? current : undefined}
          className="tdv-entry"
          data-kind={e.kind}
          aria-current={i === t.index ? 'true' : undefined}
          aria-label={`${WHO[e.kind]}, ${when(e.at)}`}
        >
          <header><span className="tdv-entry-kind">{WHO[e.kind]}</span><span className="tdv-entry-when">{when(e.at)}</span></header>
          {e.kind === 'reply' ? <Markdown text={e.text} /> : <pre>{e.text}</pre>}
        </article>
      ))}
      {t.cut.after > 0 && <p className="tdv-transcript-cut">{t.cut.after} later entries not shown</p>}
    </div>
  );
}
