import type { ReactNode } from 'react';
import { DiagramFrame } from '../../viewers/DiagramFrame.tsx';
import { visibleText } from '../../visible.ts';
import type { CardCtx } from './ActButton.tsx';
import { str } from './model.ts';

export function DiagramBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  return (
    <>
      <DiagramFrame format={str(m.format)} source={str(m.source)} title={ctx.surface.title} maxHeight={320} />
      {str(m.caption) && <p className="tdb-caption">{str(m.caption)}</p>}
      <div className="tdb-actions">
        {ctx.accepts('open') && (
          <button type="button" className="tdb-btn" aria-label={`Open large: ${visibleText(ctx.surface.title)}`} title="Open (o)" onClick={() => ctx.open()}>
            Open large
          </button>
        )}
      </div>
    </>
  );
}
