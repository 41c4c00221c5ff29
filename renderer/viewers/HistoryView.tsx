/**
 * A pane's output around a search hit's line, as the search index holds it (the line has
 * left the terminal's own history): the lines in order, numbered as the pane printed them,
 * the hit's line marked and scrolled to.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';

export interface PaneHistory {
  lines: Array<{ line: number; text: string }>;
  /** The hit's line. */
  line: number;
}

export function HistoryView({ history }: { history: PaneHistory }): ReactNode {
  const current = useRef<HTMLLIElement>(null);
  useLayoutEffect(() => {
    current.current?.scrollIntoView({ block: 'center' });
  }, [history]);
  return (
    <div className="tdv-doc tdv-history" tabIndex={0} role="region" aria-label="Output from the search index">
      <p className="tdv-transcript-head">This part of the pane's output is no longer in its terminal; the search index kept it (colours and layout are not kept).</p>
      <ol className="tdv-history-lines" aria-label="Output lines">
        {history.lines.map((l) => (
          <li key={l.line} ref={l.line === history.line ? current : undefined} aria-current={l.line === history.line ? 'true' : undefined} value={l.line + 1}>
            <span className="tdv-history-n" aria-hidden="true">{l.line + 1}</span>
            <code>{l.text || ' '}</code>
          </li>
        ))}
      </ol>
    </div>
  );
}
