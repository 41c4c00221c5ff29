/**
 * The Changes card by turn (main/turns, `model.turns`): the view (This turn, Since I last
 * reviewed, All), the timeline of the pane's turns with Restore…, and on each hunk
 * Reviewed and Revert. These are the person's own requests ('turns.*'); what Revert and
 * Restore put back is told to the agent by the core, in one line.
 */
import { useState, type ReactNode } from 'react';
import type { TurnView } from '../../../preload/contract.ts';
import { benchApi, errorText } from '../runtime.ts';
import { arr, obj, str } from './model.ts';
import { sentence } from './WorktreeFinish.tsx';

export interface TimelineEntry {
  n: number;
  prompt: string;
  at: string;
  endAt?: string;
  running: boolean;
  restoreOf?: number;
  files: string[];
  fileCount: number;
  added: number;
  removed: number;
}

export interface CardTurns {
  view: TurnView;
  turn: number;
  ended: boolean;
  timeline: TimelineEntry[];
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** The card's turn parts, when its model has them. */
export function cardTurns(model: Record<string, unknown>): CardTurns | undefined {
  const t = model.turns;
  if (!t || typeof t !== 'object') return undefined;
  const m = t as Record<string, unknown>;
  const view = m.view === 'reviewed' || m.view === 'all' ? m.view : 'turn';
  const timeline = arr(m.timeline).map(obj).map((e) => ({
    n: num(e.n), prompt: str(e.prompt), at: str(e.at), endAt: typeof e.endAt === 'string' ? e.endAt : undefined, running: e.running === true,
    restoreOf: typeof e.restoreOf === 'number' ? e.restoreOf : undefined, files: arr(e.files).map(str), fileCount: num(e.fileCount), added: num(e.added), removed: num(e.removed),
  }));
  return { view, turn: num(m.turn), ended: m.ended === true, timeline };
}

/** Run a turns.* request; its refusal goes to `onError` as a sentence. */
async function run(call: () => Promise<{ ok: boolean; error?: string }>, onError: (text: string | null) => void): Promise<boolean> {
  onError(null);
  try {
    const res = await call();
    if (!res.ok) onError(sentence(res.error ?? 'it did not work'));
    return res.ok;
  } catch (err) {
    onError(sentence(errorText(err)));
    return false;
  }
}

const VIEW_LABELS: Array<[TurnView, string, string]> = [
  ['turn', 'This turn', 'What the last turn changed: its start to its end (to now while it runs)'],
  ['reviewed', 'Since I last reviewed', 'Everything, without the hunks you marked Reviewed'],
  ['all', 'All', 'Everything the agent changed (a worktree: against its base)'],
];

function clock(at: string): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** The view switch and the timeline. */
export function TurnsBar(props: { paneId: string; turns: CardTurns; onError(text: string | null): void }): ReactNode {
  const { paneId, turns, onError } = props;
  const [busy, setBusy] = useState(false);
  const [open, setOpen] = useState(false);
  const setView = (view: TurnView, turn?: number): void => {
    void run(() => benchApi().invoke('turns.view', { paneId, view, ...(turn !== undefined ? { turn } : {}) }), onError);
  };
  const restore = async (e: TimelineEntry): Promise<void> => {
    const what = e.restoreOf !== undefined ? `undo the restore of turn ${e.restoreOf}` : `put the ${e.fileCount === 1 ? 'file' : `${e.fileCount} files`} turn ${e.n} touched back as they were before it`;
    if (!window.confirm(`Restore turn ${e.n}: ${what}? A checkpoint is taken first, so this can be restored too. The agent is told.`)) return;
    setBusy(true);
    await run(() => benchApi().invoke('turns.restore', { paneId, n: e.n }), onError);
    setBusy(false);
  };
  const shown = open ? turns.timeline : turns.timeline.slice(-3);
  return (
    <section className="tdb-turns" aria-label="Changes by turn">
      <div className="tdb-turns-views" role="group" aria-label="Show">
        {VIEW_LABELS.map(([view, label, tip]) => (
          <button key={view} type="button" data-view={view} className={`tdb-btn tdb-quiet${turns.view === view ? ' is-on' : ''}`} aria-pressed={turns.view === view} title={tip} onClick={() => setView(view)}>
            {label}
          </button>
        ))}
      </div>
      <ol className="tdb-timeline" aria-label="Turns">
        {shown.map((e) => (
          <li key={e.n} className={`tdb-turn${e.n === turns.turn && turns.view === 'turn' ? ' is-shown' : ''}`}>
            <button type="button" className="tdb-turn-n" aria-pressed={e.n === turns.turn && turns.view === 'turn'} aria-label={`Show turn ${e.n}`} title={`Show what turn ${e.n} changed`} onClick={() => setView('turn', e.n)}>
              Turn {e.n}
            </button>
            <span className="tdb-meta">{clock(e.at)}{e.running ? ' · running' : ''}</span>
            <span className="tdb-turn-prompt" title={e.prompt}>{e.restoreOf !== undefined ? `↺ Restore of turn ${e.restoreOf}` : e.prompt || '(no prompt text)'}</span>
            <span className="tdb-meta" title={e.files.join('\n')}>{e.fileCount} {e.fileCount === 1 ? 'file' : 'files'}</span>
            <span className="tdb-add-n">+{e.added}</span>
            <span className="tdb-del-n">−{e.removed}</span>
            <button type="button" className="tdb-btn tdb-quiet" disabled={busy || e.fileCount === 0} title={`Put the files turn ${e.n} touched back as they were before it (asks first)`} aria-label={`Restore turn ${e.n}`} onClick={() => void restore(e)}>
              Restore…
            </button>
          </li>
        ))}
      </ol>
      {turns.timeline.length > 3 && (
        <button type="button" className="tdb-btn tdb-quiet tdb-turns-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show the last 3 turns' : `Show all ${turns.timeline.length} turns`}
        </button>
      )}
    </section>
  );
}

/** Reviewed and Revert on one hunk (`putBack`: a worktree's All, where Put back does what Revert would). */
export function HunkTurnButtons(props: { paneId: string; path: string; hunk: number; hunkKey: string | undefined; reviewed: boolean; gone: boolean; putBack: boolean; onError(text: string | null): void }): ReactNode {
  const [busy, setBusy] = useState(false);
  const { paneId, path, hunk, hunkKey: key, onError } = props;
  if (!key) return null;
  const review = async (): Promise<void> => {
    setBusy(true);
    await run(() => benchApi().invoke('turns.review', { paneId, key, reviewed: !props.reviewed }), onError);
    setBusy(false);
  };
  const revert = async (): Promise<void> => {
    if (!window.confirm(`Revert hunk ${hunk} of ${path}? Its change is taken out of the file in the working tree, and the agent is told.`)) return;
    setBusy(true);
    await run(() => benchApi().invoke('turns.revert', { paneId, file: path, key }), onError);
    setBusy(false);
  };
  return (
    <>
      {props.gone && <span className="tdb-badge tdb-warn" title="The files no longer have this change (reverted, or changed again since)">not in the files</span>}
      <button type="button" className={`tdb-btn tdb-quiet tdb-reviewed${props.reviewed ? ' is-on' : ''}`} aria-pressed={props.reviewed} disabled={busy} aria-label={`Reviewed: hunk ${hunk} of ${path}`} title="Mark this hunk reviewed (remembered; a hunk whose lines change loses the mark)" onClick={(e) => { e.stopPropagation(); void review(); }}>
        {props.reviewed ? '✓ Reviewed' : 'Reviewed'}
      </button>
      {!props.gone && !props.putBack && (
        <button type="button" className="tdb-btn tdb-quiet tdb-putback" disabled={busy} aria-label={`Revert hunk ${hunk} of ${path}`} title="Take this hunk's change out of the file (asks first; refused when the file changed since)" onClick={(e) => { e.stopPropagation(); void revert(); }}>
          Revert
        </button>
      )}
    </>
  );
}
