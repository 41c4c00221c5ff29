import { useState, type ReactNode } from 'react';
import { visibleText } from '../../../common/visible.ts';
import { ActButton, type CardCtx } from './ActButton.tsx';
import { arr, obj, str } from './model.ts';
import { stateLine } from './answerState.ts';
import { StateLine } from './StateLine.tsx';

export function QuestionBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const options = arr(m.options).map((o) => (typeof o === 'string' ? { name: o } : obj(o)));
  const multiple = m.multiple === true;
  const [picked, setPicked] = useState<string[]>([]);
  // The ticked options, in the question's own order.
  const ordered = options.map((o) => str(o.name)).filter((n) => picked.includes(n));
  const target = ordered.join(', ');
  const chosen = new Set(ctx.surface.acted.filter((r) => r.action === 'choose').flatMap((r) => (r.target ?? '').split(', ')));
  const line = stateLine(m);
  const open = line?.open ?? true;
  return (
    <>
      {line && <StateLine line={line} />}
      <p className="tdb-question">{str(m.question)}</p>
      {options.length > 0 && !open && (
        <ul className="tdb-options-plain" aria-label="Options">
          {options.map((o, i) => <li key={`${str(o.name)}-${i}`}>{str(o.name)}{str(o.detail) && <span className="tdb-detail"> — {str(o.detail)}</span>}</li>)}
        </ul>
      )}
      {open && options.length > 0 && !multiple && (
        <div className="tdb-choices" role="group" aria-label="Options">
          {options.map((o, i) => {
            const name = str(o.name);
            return (
              <div className="tdb-choice" key={`${name}-${i}`}>
                <ActButton ctx={ctx} action="choose" target={name} label={visibleText(name)} ariaLabel={`Choose ${visibleText(name)}`} />
                {str(o.detail) && <span className="tdb-detail">{str(o.detail)}</span>}
              </div>
            );
          })}
        </div>
      )}
      {open && options.length > 0 && multiple && (
        <fieldset className="tdb-multi">
          <legend className="tdb-meta">Choose any</legend>
          {options.map((o, i) => {
            const name = str(o.name);
            const on = picked.includes(name) || chosen.has(name);
            return (
              <label className="tdb-check" key={`${name}-${i}`}>
                <input
                  type="checkbox"
                  checked={on}
                  disabled={ctx.blocked('choose', target)}
                  onChange={(e) => setPicked(e.target.checked ? [...picked, name] : picked.filter((p) => p !== name))}
                />
                <span>{visibleText(name)}</span>
                {str(o.detail) && <span className="tdb-detail">{str(o.detail)}</span>}
              </label>
            );
          })}
          <div className="tdb-actions">
            <button
              type="button"
              className="tdb-btn tdb-primary"
              aria-label={`Choose ${ordered.length ? target : 'the ticked options'}`}
              disabled={ordered.length === 0 || ctx.blocked('choose', target)}
              onClick={() => ctx.act('choose', target)}
            >
              Choose {picked.length > 0 ? `${picked.length}` : ''}
            </button>
          </div>
        </fieldset>
      )}
      {open && m.free_text === true && <p className="tdb-meta">Or write an answer below and press Enter.</p>}
    </>
  );
}
