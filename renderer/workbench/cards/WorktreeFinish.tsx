/**
 * The Changes card's own parts, for a worktree's live diff (`model.worktree`): "Put
 * back" on a hunk (a person's action, confirmed), and the Finish row: commit (message
 * drawn from the agent's last reply), merge into the base, push, pull request, remove.
 * These are requests to the core ('worktree.*'); nothing of them is typed to the agent.
 */
import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { machineField } from '../../../common/pane-id.ts';
import type { Res } from '../../../preload/contract.ts';
import { useWindowState } from '../../context.ts';
import { aheadBehindText } from '../../agents/worktrees.ts';
import { benchApi, errorText } from '../runtime.ts';

export interface CardWorktree {
  path: string;
  branch: string;
  base: string;
}

/** The card's worktree, when its model names one. */
export function cardWorktree(model: Record<string, unknown>): CardWorktree | undefined {
  const w = model.worktree as Partial<CardWorktree> | undefined;
  return w && typeof w.path === 'string' && typeof w.branch === 'string' && typeof w.base === 'string' ? { path: w.path, branch: w.branch, base: w.base } : undefined;
}

/** A refusal as a sentence: a capital first letter and a full stop. */
export function sentence(t: string): string {
  const s = t.trim();
  return s ? `${s[0]!.toUpperCase()}${s.slice(1)}${/[.!?]$/.test(s) ? '' : '.'}` : '';
}

/** "Put back": the hunk in the worktree becomes what the base has, after the person confirms. */
export function PutBackButton(props: { paneId: string; wt: CardWorktree; path: string; hunk: number; hunkKey: string | undefined; onError(text: string | null): void }): ReactNode {
  const [busy, setBusy] = useState(false);
  if (!props.hunkKey) return null;
  const run = async (): Promise<void> => {
    if (!window.confirm(`Put hunk ${props.hunk} of ${props.path} back as ${props.wt.base} has it? This changes the file in the worktree.`)) return;
    setBusy(true);
    props.onError(null);
    try {
      const res = await benchApi().invoke('worktree.revert', { ...machineField(props.paneId), path: props.wt.path, file: props.path, hunk: props.hunk, key: props.hunkKey! });
      if (!res.ok) props.onError(sentence(res.error));
    } catch (err) {
      props.onError(sentence(errorText(err)));
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" className="tdb-btn tdb-quiet tdb-putback" aria-label={`Put hunk ${props.hunk} of ${props.path} back as ${props.wt.base} has it`} title={`Put this hunk back as ${props.wt.base} has it (changes the file; asks first)`} disabled={busy} onClick={(e) => { e.stopPropagation(); void run(); }}>
      Put back
    </button>
  );
}

type Status = Extract<Res<'worktree.status'>, { ok: true }>;

/** The Finish row of a worktree's Changes card. */
export function WorktreeFinish(props: { paneId: string; wt: CardWorktree; version: string; error: string | null; onError(text: string | null): void }): ReactNode {
  const { wt, onError } = props;
  // A far pane's worktree is its machine's: every request about it goes there.
  const on = machineField(props.paneId);
  const counts = useWindowState((s) => s.panes[props.paneId]?.worktree);
  const [status, setStatus] = useState<Status | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const ahead = counts?.ahead ?? status?.worktree.ahead ?? 0;
  const behind = counts?.behind ?? status?.worktree.behind ?? 0;
  const [how, setHow] = useState<'ff' | 'merge'>('ff');

  const load = useCallback(() => {
    benchApi().invoke('worktree.status', { ...on, path: wt.path }).then((res) => {
      if (res.ok) setStatus(res);
    }, () => undefined);
  }, [wt.path, on.machine]);
  useEffect(load, [load, props.version, ahead, behind]);
  useEffect(() => setHow(behind > 0 ? 'merge' : 'ff'), [behind]);

  const run = async <T,>(what: string, call: () => Promise<T>, ok: (res: T) => string | null): Promise<void> => {
    setBusy(what);
    setDone(null);
    onError(null);
    try {
      const res = await call();
      const r = res as { ok?: boolean; error?: string };
      if (r.ok === false) onError(sentence(r.error ?? 'it did not work'));
      else setDone(ok(res));
    } catch (err) {
      onError(sentence(errorText(err)));
    } finally {
      setBusy(null);
      load();
    }
  };

  const commit = (): void => {
    if (message === null) {
      setMessage(status?.message ?? `Work on ${wt.branch}`);
      return;
    }
    void run('commit', () => benchApi().invoke('worktree.commit', { ...on, path: wt.path, message }), (res) => {
      if (!res.ok) return null;
      setMessage(null);
      return `Committed ${res.commit.slice(0, 8)} on ${wt.branch}.`;
    });
  };

  const remove = async (): Promise<void> => {
    setBusy('remove');
    onError(null);
    try {
      let res = await benchApi().invoke('worktree.remove', { ...on, path: wt.path });
      if (!res.ok && res.confirm && window.confirm(`${sentence(res.error)}\n\nRemove the worktree and the branch ${wt.branch} anyway?`)) {
        res = await benchApi().invoke('worktree.remove', { ...on, path: wt.path, force: true });
      } else if (!res.ok && res.confirm) {
        return;
      }
      if (!res.ok) onError(sentence(res.error));
    } catch (err) {
      onError(sentence(errorText(err)));
    } finally {
      setBusy(null);
    }
  };

  const uncommitted = status?.uncommitted ?? 0;
  const apart = aheadBehindText({ ahead, behind });
  const ghTip = status?.gh === 'missing' ? 'gh (GitHub\'s CLI) is not installed' : status?.gh === 'signed-out' ? 'gh is not signed in (gh auth login)' : 'Push and open a pull request with gh';
  return (
    <section className="tdb-finish" aria-label={`Finish ${wt.branch}`}>
      <p className="tdb-finish-head">
        <span className="tdb-branch" title={`Branch ${wt.branch}, made from ${wt.base}`}>⎇ {wt.branch}</span>
        <span className="tdb-meta">{apart ? `${apart} against ${wt.base}` : `level with ${wt.base}`}{uncommitted ? ` · ${uncommitted} uncommitted` : ''}</span>
      </p>
      {message !== null && (
        <div className="tdb-commit">
          <textarea aria-label={`Commit message for ${wt.branch}`} rows={3} value={message} onChange={(e) => setMessage(e.target.value)} onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); e.stopPropagation(); commit(); }
            if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); setMessage(null); }
          }} />
        </div>
      )}
      <div className="tdb-actions tdb-finish-actions">
        <button type="button" className="tdb-btn" disabled={busy !== null || (message === null && uncommitted === 0)} title={uncommitted ? `Commit the ${uncommitted} uncommitted files (new ones too)` : 'Nothing to commit'} onClick={commit}>
          {message === null ? 'Commit…' : busy === 'commit' ? 'Committing…' : 'Commit (Ctrl+Enter)'}
        </button>
        {message !== null && <button type="button" className="tdb-btn tdb-quiet" onClick={() => setMessage(null)}>Cancel</button>}
        <span className="tdb-merge">
          <button type="button" className="tdb-btn tdb-primary" disabled={busy !== null || ahead === 0} title={ahead ? `Merge ${wt.branch} into ${wt.base}` : `${wt.branch} has no commits ${wt.base} lacks`} onClick={() => void run('merge', () => benchApi().invoke('worktree.merge', { ...on, path: wt.path, how }), (res) => (res.ok ? `Merged into ${wt.base} (${res.commit.slice(0, 8)}).` : null))}>
            Merge into {wt.base}
          </button>
          <select aria-label="How to merge" value={how} disabled={busy !== null} onChange={(e) => setHow(e.target.value === 'merge' ? 'merge' : 'ff')}>
            <option value="ff">fast-forward</option>
            <option value="merge">merge commit</option>
          </select>
        </span>
        <button type="button" className="tdb-btn" disabled={busy !== null} title={status?.remote ? `Push ${wt.branch} to ${status.remote}` : 'The repository has no remote'} onClick={() => void run('push', () => benchApi().invoke('worktree.push', { ...on, path: wt.path, pr: false }), (res) => (res.ok ? `Pushed ${wt.branch} to ${res.remote}.` : null))}>
          Push
        </button>
        <button type="button" className="tdb-btn" disabled={busy !== null} title={ghTip} onClick={() => void run('pr', () => benchApi().invoke('worktree.push', { ...on, path: wt.path, pr: true }), (res) => (res.ok ? `Pull request: ${res.url ?? 'opened'}.` : null))}>
          Pull request
        </button>
        <span className="tdb-spacer" />
        <button type="button" className="tdb-btn tdb-danger" disabled={busy !== null} title={`Remove the worktree folder and the branch ${wt.branch} (asks first when work would be lost)`} onClick={() => void remove()}>
          Remove…
        </button>
      </div>
      {done && <p className="tdb-done" role="status">{done}</p>}
      {props.error && <p className="tdb-error" role="alert">{props.error}</p>}
    </section>
  );
}
