/** Pieces of a pane's header for agents and Ticks (mounted by renderer/panes/PaneHeader.tsx). */
import { useState, type ReactElement } from 'react';
import { splitPaneId } from '../../common/pane-id.ts';
import type { PaneInfo, PaneWorktree } from '../../preload/contract.ts';
import { useWindow } from '../context.ts';
import { durationText } from './rollup.ts';
import { aheadBehindText, worktreeTip } from './worktrees.ts';

/** The agent badge's tooltip: what it does, for how long, and its detail. */
export function agentTip(agent: NonNullable<PaneInfo['agent']>, label: string): string {
  const since = durationText(agent.since, Date.now());
  const head = `Agent ${label}${since && since !== 'now' ? ` for ${since}` : ''}`;
  return agent.detail ? `${head}: ${agent.detail}` : head;
}

/** Closing a Tick's pane hides its view; the Tick runs on. */
export function tickCloseTip(base: string): string {
  return `${base.replace('Close pane', 'Hide this view')}: the Tick keeps running (End Tick stops it)`;
}

/** The Tick badge and "End Tick" (tick.close) of a tick pane. */
export function TickHeaderParts({ pane }: { pane: PaneInfo }): ReactElement {
  const ctx = useWindow();
  const [ending, setEnding] = useState(false);
  const end = async (): Promise<void> => {
    if (!pane.instanceId) return;
    setEnding(true);
    try {
      // A far Tick's instance is its machine's: the request goes there.
      const { machine } = splitPaneId(pane.id);
      await ctx.api.invoke('tick.close', { instanceId: pane.instanceId, ...(machine ? { machine } : {}) });
    } catch (err) {
      ctx.store.getState().notice(`Ending the Tick failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      setEnding(false);
    }
  };
  return (
    <>
      <span className="badge kind-tick" title={`A Tick${pane.instanceId ? ` (${pane.instanceId})` : ''}: ${pane.title}`} data-testid="tick-badge">Tick</span>
      {pane.instanceId && pane.status === 'running' ? (
        <button
          type="button"
          className="text-button small"
          title="Stop the Tick (SIGTERM, then SIGKILL) and end its session"
          disabled={ending}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => void end()}
        >
          End Tick
        </button>
      ) : null}
    </>
  );
}

/** The branch a worktree pane's agent works on, and how far it is from its base. */
export function WorktreeBadge({ wt }: { wt: PaneWorktree }): ReactElement {
  const apart = aheadBehindText(wt);
  return (
    <span className="badge worktree" title={worktreeTip(wt)} aria-label={worktreeTip(wt)} role="note" data-testid="worktree-badge">
      <span aria-hidden="true">⎇</span>
      <span className="worktree-branch">{wt.branch}</span>
      {apart ? <span className="worktree-apart">{apart}</span> : null}
    </span>
  );
}
