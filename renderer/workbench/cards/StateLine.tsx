import type { ReactNode } from 'react';
import type { StateLine as Line } from './answerState.ts';

/** The line under a question or permission card's title that says what became of it. */
export function StateLine({ line }: { line: Line }): ReactNode {
  return (
    <p className="tdb-state" data-state={line.state} role="status">
      <span className={`tdb-badge tdb-${line.tone}`}>{line.label}</span>
      {line.note && <span className="tdb-state-note">{line.note}</span>}
    </p>
  );
}
