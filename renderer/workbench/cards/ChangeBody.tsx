import { useMemo, useState, type ReactNode } from 'react';
import { highlightLines } from '../../viewers/highlight.ts';
import { visibleText } from '../../../common/visible.ts';
import { ActButton, type CardCtx } from './ActButton.tsx';
import { hunkTarget, languageForPath, parseFileDiff, type Hunk } from '../diff.ts';
import { hunkState } from '../shelves.ts';
import { Markdown } from './Markdown.tsx';
import { arr, obj, str } from './model.ts';
import { PutBackButton, WorktreeFinish, cardWorktree, type CardWorktree } from './WorktreeFinish.tsx';
import { HunkTurnButtons, TurnsBar, cardTurns, type CardTurns } from './TurnsBar.tsx';

export function ChangeBody({ ctx }: { ctx: CardCtx }): ReactNode {
  const m = ctx.surface.model;
  const files = useMemo(
    () => arr(m.files).map(obj).map((f) => ({
      path: str(f.path), diff: parseFileDiff(str(f.diff)), keys: arr(f.hunks).map((h) => str(obj(h).key)),
      reviewed: arr(f.hunks).map((h) => obj(h).reviewed === true), gone: arr(f.hunks).map((h) => obj(h).gone === true),
    })),
    [m.files],
  );
  // A worktree's live Changes card (main/worktrees) also offers the person's own actions.
  const wt = useMemo(() => cardWorktree(m), [m]);
  // By turn (main/turns): the view, the timeline, Reviewed and Revert.
  const turns = useMemo(() => cardTurns(m), [m]);
  const [wtError, setWtError] = useState<string | null>(null);
  const added = files.reduce((n, f) => n + f.diff.added, 0);
  const removed = files.reduce((n, f) => n + f.diff.removed, 0);
  return (
    <>
      {str(m.summary) && <Markdown text={str(m.summary)} className="tdb-body" />}
      {/* Our own Changes cards (by turn, a worktree's) say these counts in their summary already. */}
      {!turns && !wt && (
        <p className="tdb-meta">
          {files.length} {files.length === 1 ? 'file' : 'files'} · <span className="tdb-add-n">+{added}</span> <span className="tdb-del-n">−{removed}</span>
        </p>
      )}
      {turns && <TurnsBar paneId={ctx.paneId} turns={turns} onError={setWtError} />}
      {turns && wtError && !wt && <p className="tdb-error" role="alert">{wtError}</p>}
      {files.map((f, i) => (
        <FileDiff key={`${f.path}-${i}`} ctx={ctx} path={f.path} hunks={f.diff.hunks} preamble={f.diff.preamble} added={f.diff.added} removed={f.diff.removed} wt={wt} keys={f.keys} reviewed={f.reviewed} gone={f.gone} turns={turns} onError={setWtError} />
      ))}
      {wt && <WorktreeFinish paneId={ctx.paneId} wt={wt} version={ctx.surface.updatedAt} error={wtError} onError={setWtError} />}
      <div className="tdb-actions">
        <ActButton ctx={ctx} action="approve" label="Approve change" ariaLabel={`Approve change ${visibleText(ctx.surface.title)} (every hunk)`} tone="primary" title="Approve every hunk (a)" />
        <ActButton ctx={ctx} action="reject" label="Reject change" ariaLabel={`Reject change ${visibleText(ctx.surface.title)} (every hunk)`} tone="danger" title="Reject every hunk (r)" />
      </div>
    </>
  );
}

function FileDiff(props: { ctx: CardCtx; path: string; hunks: Hunk[]; preamble: string[]; added: number; removed: number; wt?: CardWorktree; keys: string[]; reviewed: boolean[]; gone: boolean[]; turns?: CardTurns; onError(text: string | null): void }): ReactNode {
  const [open, setOpen] = useState(true);
  const lang = languageForPath(props.path);
  return (
    <section className="tdb-file-diff" aria-label={`Diff of ${props.path}`}>
      <button type="button" className="tdb-file-diff-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className="tdb-caret" aria-hidden="true">{open ? '▾' : '▸'}</span>
        <span className="tdb-path">{props.path}</span>
        <span className="tdb-add-n">+{props.added}</span>
        <span className="tdb-del-n">−{props.removed}</span>
      </button>
      {open && props.hunks.length === 0 && <pre className="tdb-diff-note">{props.preamble.join('\n') || 'No hunks in this diff.'}</pre>}
      {open && props.hunks.map((h) => (
        <HunkView key={h.index} ctx={props.ctx} path={props.path} hunk={h} lang={lang} reviewed={props.reviewed[h.index - 1] === true}
          putBack={<>
            {props.turns && <HunkTurnButtons paneId={props.ctx.paneId} path={props.path} hunk={h.index} hunkKey={props.keys[h.index - 1] || undefined} reviewed={props.reviewed[h.index - 1] === true} gone={props.gone[h.index - 1] === true} putBack={!!props.wt && props.turns.view === 'all'} onError={props.onError} />}
            {props.wt && (!props.turns || props.turns.view === 'all') && <PutBackButton paneId={props.ctx.paneId} wt={props.wt} path={props.path} hunk={h.index} hunkKey={props.keys[h.index - 1] || undefined} onError={props.onError} />}
          </>} />
      ))}
    </section>
  );
}

function HunkView(props: { ctx: CardCtx; path: string; hunk: Hunk; lang: string | undefined; reviewed?: boolean; putBack?: ReactNode }): ReactNode {
  const { ctx, hunk } = props;
  const target = hunkTarget(props.path, hunk.index);
  const state = hunkState(ctx.surface, target);
  const html = useMemo(() => highlightLines(hunk.lines.map((l) => l.text), props.lang), [hunk, props.lang]);
  return (
    <div className={`tdb-hunk${state ? ` is-${state}` : ''}${props.reviewed ? ' is-reviewed' : ''}`} data-hunk={target}>
      <div className="tdb-hunk-head">
        <span className="tdb-hunk-n">Hunk {hunk.index}</span>
        <code className="tdb-hunk-range">{hunk.header.replace(/^(@@[^@]*@@).*$/, '$1')}</code>
        {hunk.section && <code className="tdb-hunk-section">{hunk.section}</code>}
        {/* One group: on a narrow bench it goes under the head whole, not a button at a time. */}
        <span className="tdb-hunk-acts">
          {state && <span className={`tdb-badge ${state === 'approved' ? 'tdb-ok' : 'tdb-bad'}`}>{state}</span>}
          <ActButton ctx={ctx} action="approve_part" target={target} label="Approve" ariaLabel={`Approve hunk ${hunk.index} of ${props.path}`} tone="quiet" />
          <ActButton ctx={ctx} action="reject_part" target={target} label="Reject" ariaLabel={`Reject hunk ${hunk.index} of ${props.path}`} tone="quiet" />
          {props.putBack}
        </span>
      </div>
      <div className="tdb-diff" role="table" tabIndex={0} aria-label={`Hunk ${hunk.index} of ${props.path}`}>
        {hunk.lines.map((l, i) => (
          <div key={i} className={`tdb-dl tdb-dl-${l.type}`} role="row">
            <span className="tdb-ln" role="cell">{l.oldNo ?? ''}</span>
            <span className="tdb-ln" role="cell">{l.newNo ?? ''}</span>
            <span className="tdb-mk" role="cell" aria-hidden="true">{l.type === 'add' ? '+' : l.type === 'del' ? '−' : l.type === 'note' ? '\\' : ' '}</span>
            <code className="tdb-code hljs" role="cell" dangerouslySetInnerHTML={{ __html: l.type === 'note' ? escape(l.text) : html[i] ?? '' }} />
          </div>
        ))}
      </div>
    </div>
  );
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
