import type { ReactNode } from 'react';
import { visibleText } from '../../../common/visible.ts';
import { ActButton, type CardCtx } from './ActButton.tsx';
import { Markdown } from './Markdown.tsx';
import { str } from './model.ts';

const REGISTERS = new Set(['answer', 'progress', 'done', 'blocked', 'warning']);

export function ResponseBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const register = str(m.register);
  const body = str(m.body);
  return (
    <>
      <div className="tdb-layman-row">
        {REGISTERS.has(register) && <span className={`tdb-badge tdb-reg-${register}`}>{register}</span>}
        <p className="tdb-layman">{str(m.layman)}</p>
      </div>
      {body && <Markdown text={body} className="tdb-body" />}
      <div className="tdb-actions">
        <ActButton ctx={ctx} action="ack" label="Got it" ariaLabel={`Got it: acknowledge ${visibleText(ctx.surface.title)}`} title="Acknowledge (a)" />
      </div>
    </>
  );
}

export function CommentBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const on = str(m.on);
  return (
    <>
      <p className="tdb-note-text">{str(m.text)}</p>
      <p className="tdb-meta">{on ? <>On surface <code>{on}</code> · </> : null}private — never sent to the agent</p>
    </>
  );
}

export function UnclassifiedBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const s = ctx.surface;
  const raw = s.raw ?? (Object.keys(s.model).length ? JSON.stringify(s.model, null, 2) : '');
  return (
    <>
      <p className="tdb-reason">{s.reason ?? str(s.model.reason) ?? 'This could not be read as a surface.'}</p>
      {s.file && <p className="tdb-meta">From <code>{s.file}</code></p>}
      <details className="tdb-raw">
        <summary>Raw payload</summary>
        <pre>{raw || str(s.model.raw)}</pre>
      </details>
    </>
  );
}
