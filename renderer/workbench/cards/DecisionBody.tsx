import type { ReactNode } from 'react';
import { visibleText } from '../../../common/visible.ts';
import { ActButton, type CardCtx } from './ActButton.tsx';
import { Markdown } from './Markdown.tsx';
import { arr, obj, str } from './model.ts';
import { stateLine } from './answerState.ts';
import { StateLine } from './StateLine.tsx';

export function DecisionBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const options = arr(m.options).map(obj);
  const recommended = options.find((o) => o.recommended === true);
  const chosen = new Set(ctx.surface.acted.filter((r) => r.action === 'choose').map((r) => r.target));
  const approved = ctx.surface.acted.some((r) => r.action === 'approve');
  const line = stateLine(m);
  const open = line?.open ?? true;
  return (
    <>
      {line && <StateLine line={line} />}
      <p className="tdb-question">{str(m.question)}</p>
      {str(m.context) && <Markdown text={str(m.context)} className="tdb-body" />}
      <ul className="tdb-options" aria-label="Options">
        {options.map((o, i) => {
          const name = str(o.name);
          const isRec = o.recommended === true;
          const picked = chosen.has(name) || (approved && isRec);
          return (
            <li key={`${name}-${i}`} className={`tdb-option${isRec ? ' is-recommended' : ''}${picked ? ' is-picked' : ''}`}>
              <div className="tdb-option-head">
                <span className="tdb-option-name">{visibleText(name)}</span>
                {isRec && <span className="tdb-badge tdb-rec">recommended</span>}
                {picked && <span className="tdb-badge tdb-ok">chosen</span>}
                {/* At the right, on the name's line or, when it has no room there, under it. */}
                {open && <span className="tdb-option-act"><ActButton ctx={ctx} action="choose" target={name} label="Choose" ariaLabel={`Choose ${visibleText(name)}`} tone={isRec ? undefined : 'quiet'} /></span>}
              </div>
              {str(o.case) && <p className="tdb-case"><span className="tdb-label">Case</span>{str(o.case)}</p>}
              {str(o.cost) && <p className="tdb-cost"><span className="tdb-label">Cost</span>{str(o.cost)}</p>}
            </li>
          );
        })}
      </ul>
      {open && <div className="tdb-actions">
        {recommended && (
          <ActButton ctx={ctx} action="approve" label={<>Approve <span className="tdb-dim">{visibleText(str(recommended.name))}</span></>} ariaLabel={`Approve ${visibleText(str(recommended.name))}, the recommended option`} tone="primary" title="Approve the recommended option (a)" />
        )}
        <ActButton ctx={ctx} action="reject" label="Reject" ariaLabel={`Reject ${visibleText(ctx.surface.title)}`} tone="danger" title="Reject every option (r)" />
      </div>}
    </>
  );
}
