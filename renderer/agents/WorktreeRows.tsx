/**
 * The agents list's worktrees: every worktree the app made, each with its branch and
 * base; one whose pane is open focuses it, one without a pane (left behind after its
 * pane closed, or after a restart) offers "Open agent" and "Remove…", so nothing is
 * left behind unseen.
 */
import { useState, type ReactElement } from 'react';
import type { WorktreeInfo } from '../../preload/contract.ts';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { shortPath } from '../../common/header-text.ts';
import { sentence } from './WorktreeDialog.tsx';
import { aheadBehindText } from './worktrees.ts';

export function WorktreeRows({ worktrees, onDone }: { worktrees: WorktreeInfo[]; onDone(): void }): ReactElement | null {
  const ctx = useWindow();
  const panes = useWindowState((s) => s.panes);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (worktrees.length === 0) return null;

  const open = async (w: WorktreeInfo): Promise<void> => {
    setBusy(w.path);
    setError(null);
    try {
      const res = await ctx.api.invoke('worktree.open', { path: w.path });
      if (!res.ok) return setError(sentence(res.error));
      ctx.store.getState().paneUpdated(res.pane);
      onDone();
      focusPane(ctx, res.pane.id, true);
    } catch (err) {
      setError(sentence(err instanceof Error ? err.message : String(err)));
    } finally {
      setBusy(null);
    }
  };

  const remove = async (w: WorktreeInfo): Promise<void> => {
    setBusy(w.path);
    setError(null);
    try {
      let res = await ctx.api.invoke('worktree.remove', { path: w.path });
      if (!res.ok && res.confirm) {
        if (!window.confirm(`${sentence(res.error)}\n\nRemove the worktree and the branch ${w.branch} anyway?`)) return;
        res = await ctx.api.invoke('worktree.remove', { path: w.path, force: true });
      }
      if (!res.ok) setError(sentence(res.error));
    } catch (err) {
      setError(sentence(err instanceof Error ? err.message : String(err)));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="agents-worktrees" role="group" aria-label="Worktrees" data-testid="agents-worktrees">
      <div className="agents-section">Worktrees</div>
      {worktrees.map((w) => {
        const pane = w.paneId ? panes[w.paneId] : undefined;
        const apart = aheadBehindText(w);
        return (
          <div role="listitem" key={w.path} className={`agents-worktree${pane ? '' : ' is-left'}`} data-worktree={w.path}>
            <span className="agents-worktree-branch" title={`${w.branch}, from ${w.base}`}>⎇ {w.branch}</span>
            <span className="agents-worktree-where" title={w.path}>{w.missing ? 'folder gone' : shortPath(w.path)}{apart ? ` · ${apart}` : ''}</span>
            {pane ? (
              <button type="button" className="text-button small" onClick={() => { onDone(); focusPane(ctx, pane.id, true); }}>Show pane</button>
            ) : (
              <>
                {!w.missing && <button type="button" className="text-button small" disabled={busy !== null} onClick={() => void open(w)}>Open agent</button>}
                <button type="button" className="text-button small danger" disabled={busy !== null} aria-label={`Remove the worktree ${w.branch}`} onClick={() => void remove(w)}>Remove…</button>
              </>
            )}
          </div>
        );
      })}
      {error && <p className="agents-error" role="alert">{error}</p>}
    </div>
  );
}
