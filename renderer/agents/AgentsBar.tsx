/**
 * The title bar's agent pieces: "New agent" and "Open Tick…" buttons, and the rollup
 * of every agent pane's status (herdr's sidebar, folded into the title bar): counts
 * such as "1 blocked · 2 working", and on click a compact list, one row per agent
 * pane (blocked first), that focuses the pane.
 */
import { useEffect, useMemo, useRef, useState, type ReactElement, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { focusPane } from '../commands.ts';
import { useWindow, useWindowState } from '../context.ts';
import { shortcutLabel } from '../keys.ts';
import { leafIds } from '../panes/layout.ts';
import { enableDesktopNotifications } from './notify.ts';
import { agentCounts, agentRows, countsText, durationText, STATUS_ORDER, STATUS_WORD, listPlace, titleParts } from './rollup.ts';
import { agentsUi, showOpenTick } from './ui.ts';
import { NEEDS_SERVICE, useStopped } from '../service/ui.ts';
import { showAgentPicker } from './picker.ts';
import { WorktreeRows } from './WorktreeRows.tsx';
import { followWorktrees, showWorktreeDialog, withoutPane, worktreesUi } from './worktrees.ts';
import './agents.css';

/** The current time, refreshed every `ms` while mounted. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(t);
  }, [ms]);
  return now;
}

export function AgentsBar(): ReactElement {
  const ctx = useWindow();
  const platform = useWindowState((s) => s.platform);
  // Stopped on purpose: nothing here can start, so the buttons say why instead (service/StoppedBar.tsx offers the start).
  const stopped = useStopped();
  const tip = (label: string, keys: string): string => (stopped ? NEEDS_SERVICE : keys ? `${label} (${keys})` : label);
  return (
    <div className="agents-bar">
      <AgentsRollup />
      <span className="split-button">
        <button
          type="button"
          className="text-button small titlebar-button"
          title={tip('Start an agent in a new pane: choose which', shortcutLabel('new-agent', platform))}
          aria-haspopup="dialog"
          disabled={stopped}
          onClick={() => showAgentPicker(ctx.store.getState().focused ?? undefined)}
        >
          + Agent
        </button>
        <button
          type="button"
          className="text-button small titlebar-button split-more"
          aria-label="New agent in a worktree…"
          title={tip('New agent in a git worktree of its own: its own branch and folder', shortcutLabel('new-agent-worktree', platform))}
          data-testid="new-agent-worktree"
          disabled={stopped}
          onClick={() => showWorktreeDialog()}
        >
          <span aria-hidden="true">⎇</span>
        </button>
      </span>
      <button
        type="button"
        className="text-button small titlebar-button"
        title={tip('Open a Tick in a new pane', shortcutLabel('open-tick', platform))}
        aria-label="Open Tick…"
        disabled={stopped}
        onClick={() => showOpenTick()}
      >
        {/* A narrow window says "Tick…" (styles.css, the title bar's narrow widths). */}
        <span className="titlebar-wide">Open </span>Tick…
      </button>
    </div>
  );
}

function AgentsRollup(): ReactElement | null {
  const ctx = useWindow();
  const panes = useWindowState((s) => s.panes);
  const layout = useWindowState((s) => s.layout);
  const shell = useWindowState((s) => s.shell);
  const focused = useWindowState((s) => s.focused);
  const permission = useStore(agentsUi, (s) => s.permission);
  const rows = useMemo(() => agentRows(panes, leafIds(layout)), [panes, layout]);
  const counts = agentCounts(rows);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const now = useNow(open ? 1000 : 15_000);
  const epoch = useWindowState((s) => s.epoch);
  useEffect(() => followWorktrees(ctx.api), [ctx.api, epoch]);
  const worktrees = useStore(worktreesUi, (s) => s.list);
  const left = useMemo(() => withoutPane(worktrees, panes), [worktrees, panes]);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent): void => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    window.addEventListener('pointerdown', onDown, true);
    return () => window.removeEventListener('pointerdown', onDown, true);
  }, [open]);
  useEffect(() => {
    if (rows.length === 0 && worktrees.length === 0) setOpen(false);
  }, [rows.length, worktrees.length]);

  if (rows.length === 0 && worktrees.length === 0) return null;
  const trees = (n: number) => `${n} ${n === 1 ? 'worktree' : 'worktrees'}`;
  // Worktrees left without a pane are always counted; the others only when no agent is.
  const leftText = left.length ? `${trees(left.length)} without a pane` : rows.length === 0 ? trees(worktrees.length) : '';
  return (
    <div className="agents-rollup" ref={box} onKeyDown={(e) => { if (e.key === 'Escape') { e.stopPropagation(); setOpen(false); } }}>
      <button
        type="button"
        className={`agents-counts${counts.blocked ? ' has-blocked' : ''}`}
        aria-expanded={open}
        aria-haspopup="true"
        aria-label={`Agents: ${[countsText(counts), leftText].filter(Boolean).join(', ')}`}
        title="Agents in this window (click for the list)"
        data-testid="agents-counts"
        onClick={() => setOpen(!open)}
      >
        {STATUS_ORDER.filter((s) => counts[s] > 0).map((s, i) => (
          <span key={s} className={`agents-count agent-${s}`}>
            {i > 0 ? <span className="agents-sep" aria-hidden="true">·</span> : null}
            <span className={`agent-dot agent-${s}`} aria-hidden="true" />
            {counts[s]} {STATUS_WORD[s]}
          </span>
        ))}
        {leftText ? (
          <span className={`agents-count${left.length ? ' agents-left' : ''}`} title={leftText}>
            {rows.length ? <span className="agents-sep" aria-hidden="true">·</span> : null}
            <span aria-hidden="true">⎇</span> {left.length ? `${left.length} left` : trees(worktrees.length)}
          </span>
        ) : null}
      </button>
      {open ? (
        // Within the window: leftwards from the rollup's right edge, or rightwards where there is no room for that.
        <div className="agents-list" role="list" aria-label="Agent panes" data-testid="agents-list" style={listPlace(box.current?.getBoundingClientRect(), window.innerWidth)}>
          {rows.map((r) => (
            <button
              type="button"
              role="listitem"
              key={r.paneId}
              className={`agents-row agent-${r.status}${r.paneId === focused ? ' is-focused' : ''}`}
              data-pane-row={r.paneId}
              title={r.detail ? `${r.title}: ${r.detail}` : r.title}
              onClick={() => {
                setOpen(false);
                focusPane(ctx, r.paneId, true);
              }}
            >
              <span className={`agent-dot agent-${r.status}`} aria-hidden="true" />
              <RowTitle title={r.title}>
                {panes[r.paneId]?.worktree ? <span className="agents-row-branch" title={panes[r.paneId]!.worktree!.path}> ⎇ {panes[r.paneId]!.worktree!.branch}</span> : null}
              </RowTitle>
              <span className="agents-row-status">{STATUS_WORD[r.status]}</span>
              <span className="agents-row-time">{durationText(r.since, now)}</span>
              {r.unseen > 0 ? <span className="badge unseen">{r.unseen}<span className="sr-only"> unseen</span></span> : <span className="agents-row-unseen" />}
            </button>
          ))}
          <WorktreeRows worktrees={worktrees} onDone={() => setOpen(false)} />
          {shell === 'serve' && permission !== 'unsupported' ? (
            <div className="agents-foot">
              {permission === 'default' ? (
                <button type="button" className="text-button small" onClick={() => void enableDesktopNotifications()}>
                  Enable desktop notifications
                </button>
              ) : permission === 'granted' ? (
                <span>Desktop notifications are on for blocked and finished agents.</span>
              ) : (
                <span>The browser blocks notifications for this page; allow them in its site settings.</span>
              )}
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}

/** A row's title: a path's folders give up their room before the folder's own name (titleParts) and what follows it (a branch). */
function RowTitle({ title, children }: { title: string; children?: ReactNode }): ReactElement {
  const { head, tail } = titleParts(title);
  return (
    <span className="agents-row-title">
      {head ? <span className="agents-row-head">{head}</span> : null}
      <span className="agents-row-name">{tail}{children}</span>
    </span>
  );
}
