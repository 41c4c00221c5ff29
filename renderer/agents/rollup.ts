/**
 * Agent status at a glance, as pure functions: which panes run an agent, in what
 * order the window lists them (blocked first, the longest waiting on top), the
 * counts the title bar shows, and "how long" in a few characters.
 */
import { titleName, visibleText } from '../../common/visible.ts';
import { shortPath } from '../../common/header-text.ts';
import type { AgentStatus, PaneInfo } from '../../preload/contract.ts';

export interface AgentRow {
  paneId: string;
  title: string;
  status: AgentStatus;
  /** ISO time the agent entered this status. */
  since: string;
  detail?: string;
  unseen: number;
}

export type AgentCounts = Record<AgentStatus, number>;

/** Status order in lists and counts: what needs a person comes first. */
export const STATUS_ORDER: readonly AgentStatus[] = ['blocked', 'working', 'done', 'idle'];

export const STATUS_WORD: Record<AgentStatus, string> = {
  blocked: 'blocked',
  working: 'working',
  done: 'done',
  idle: 'idle',
};

function time(iso: string): number {
  const t = Date.parse(iso);
  return Number.isFinite(t) ? t : 0;
}

/**
 * One row per pane with an agent status, blocked first, then working, done, idle;
 * within a status the one that has been so the longest first. With `visible`, only
 * those panes (the ones in the layout: a row must be clickable).
 */
export function agentRows(panes: Record<string, PaneInfo> | PaneInfo[], visible?: readonly string[]): AgentRow[] {
  const list = Array.isArray(panes) ? panes : Object.values(panes);
  const keep = visible ? new Set(visible) : undefined;
  const rows: AgentRow[] = [];
  for (const p of list) {
    if (!p.agent || (keep && !keep.has(p.id))) continue;
    const row: AgentRow = {
      paneId: p.id,
      title: visibleText(titleName(p.title) || p.command.join(' ') || 'Agent'),
      status: p.agent.status,
      since: p.agent.since,
      unseen: Math.max(0, p.unseen || 0),
    };
    if (p.agent.detail) row.detail = p.agent.detail;
    rows.push(row);
  }
  return rows.sort((a, b) =>
    STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status)
    || time(a.since) - time(b.since)
    || a.paneId.localeCompare(b.paneId));
}

/**
 * A row's title in two parts for a narrow list: a path's `head` (up to its last slash,
 * shortened as a header's: shortPath) gives up its room first, so the `tail`, the folder's own
 * name, stays readable (two agents in /tmp/a-1 and /tmp/a-2 never read the same); any other
 * title is all tail.
 */
export function titleParts(title: string): { head: string; tail: string } {
  if (!title.startsWith('/') && !title.startsWith('~/')) return { head: '', tail: title };
  const short = title.startsWith('/') ? shortPath(title) : title;
  const cut = short.replace(/\/+$/, '').lastIndexOf('/');
  return cut < 0 ? { head: '', tail: short } : { head: short.slice(0, cut + 1), tail: short.slice(cut + 1) };
}

/** Where the agents list hangs and how wide it may be (AgentsBar's style for it). */
export type ListPlace = { left?: number; right?: number | 'auto'; minWidth: number; maxWidth: number };

/**
 * The agents list's place: 320-460 px wide, hanging leftwards from the rollup's right edge
 * where there is room for 320 px left of it (an 8 px margin each side), else rightwards from
 * its left edge (a narrow window, the rollup near its left), never past the window's edge.
 * `rollup`: its box in the window; none known: as in a wide window.
 */
export function listPlace(rollup: { left: number; right: number } | undefined, windowWidth: number): ListPlace {
  const leftward = Math.max(0, Math.round(rollup?.right ?? 476) - 16);
  if (!rollup || leftward >= 320) return { minWidth: Math.min(320, leftward), maxWidth: Math.min(460, leftward) };
  const rightward = Math.max(0, Math.round(windowWidth - rollup.left) - 8);
  const room = Math.max(leftward, rightward);
  return rightward > leftward ? { left: 0, right: 'auto', minWidth: Math.min(320, room), maxWidth: Math.min(460, room) } : { minWidth: room, maxWidth: room };
}

export function agentCounts(rows: readonly Pick<AgentRow, 'status'>[]): AgentCounts {
  const c: AgentCounts = { blocked: 0, working: 0, done: 0, idle: 0 };
  for (const r of rows) c[r.status]++;
  return c;
}

/** "1 blocked · 2 working", leaving out zeros; "" when there are no agents. */
export function countsText(c: AgentCounts): string {
  return STATUS_ORDER.filter((s) => c[s] > 0).map((s) => `${c[s]} ${STATUS_WORD[s]}`).join(' · ');
}

/** How long since `iso`, short: "now", "12s", "4m", "2h 5m", "3d". */
export function durationText(iso: string, now: number): string {
  const t = time(iso);
  if (!t) return '';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
  return `${Math.floor(h / 24)}d`;
}
