import type { ReactNode } from 'react';
import { DiagramFrame } from '../../viewers/DiagramFrame.tsx';
import { visibleText } from '../../../common/visible.ts';
import type { CardCtx } from './ActButton.tsx';
import { str } from './model.ts';

export function DiagramBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const canOpen = ctx.accepts('open');
  return (
    <>
      <div className="tdb-diagram-preview">
        <DiagramFrame format={str(m.format)} source={str(m.source)} title={ctx.surface.title} maxHeight={320} />
        {/* The preview opens large when clicked, as a thumbnail does: its frame would swallow
            the click otherwise, and a click meant for "Open large" that lands here while the
            drawing grows the card still opens it. Pointer only: the button below and the
            "o" key are the named ways. */}
        {canOpen && <div className="tdb-diagram-open" aria-hidden="true" title="Open large (o)" onClick={() => ctx.open()} />}
      </div>
      {str(m.caption) && <p className="tdb-caption">{str(m.caption)}</p>}
      <div className="tdb-actions">
        {canOpen && (
          <button type="button" className="tdb-btn" aria-label={`Open large: ${visibleText(ctx.surface.title)}`} title="Open (o)" onClick={() => ctx.open()}>
            Open large
          </button>
        )}
      </div>
    </>
  );
}
