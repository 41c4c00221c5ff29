/**
 * Shelves, counts and order on a pane's bench. Pure: the bench component and its
 * tests feed these plain values.
 */
import type { ApprovalRequest, Shelf, Surface } from '../../preload/contract.ts';
import { currentRecords } from '../../common/revisions.ts';
import { SHELVES } from '../../preload/tdsp.ts';

export { SHELVES };

/** Newest first, by arrival order (an update keeps its place, so nothing jumps). */
export function newestFirst(surfaces: readonly Surface[]): Surface[] {
  return [...surfaces].sort((a, b) => b.order - a.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function onShelf(surfaces: readonly Surface[], shelf: Shelf): Surface[] {
  return newestFirst(surfaces.filter((s) => s.shelf === shelf));
}

/** Whether an approval belongs on this pane's bench (the pane that asked, or the Tick's own pane). */
export function approvalIsForPane(a: ApprovalRequest, paneId: string): boolean {
  return a.askingPaneId === paneId || a.tickPaneId === paneId;
}

/** Pending approvals for a pane, newest first. */
export function pendingApprovals(all: readonly ApprovalRequest[], paneId: string): ApprovalRequest[] {
  return all
    .filter((a) => a.state === 'pending' && approvalIsForPane(a, paneId))
    .sort((a, b) => (a.requestedAt < b.requestedAt ? 1 : a.requestedAt > b.requestedAt ? -1 : 0));
}

export type ShelfCounts = Record<Shelf, { total: number; unseen: number }>;

/**
 * Each shelf's count of surfaces and of unseen ones. Pending approvals live on Decide;
 * the ids in `unseenApprovals` count as unseen there.
 */
export function shelfCounts(
  surfaces: readonly Surface[],
  approvals: readonly ApprovalRequest[] = [],
  unseenApprovals: ReadonlySet<string> = new Set(),
): ShelfCounts {
  const counts = Object.fromEntries(SHELVES.map((s) => [s, { total: 0, unseen: 0 }])) as ShelfCounts;
  for (const s of surfaces) {
    const c = counts[s.shelf] ?? counts.Unsorted;
    c.total++;
    if (!s.seen) c.unseen++;
  }
  for (const a of approvals) {
    counts.Decide.total++;
    if (unseenApprovals.has(a.id)) counts.Decide.unseen++;
  }
  return counts;
}

/** The shelf `step` places from `current`, wrapping around. */
export function stepShelf(current: Shelf, step: number): Shelf {
  const i = SHELVES.indexOf(current);
  const n = SHELVES.length;
  return SHELVES[(((i < 0 ? 0 : i) + step) % n + n) % n]!;
}

/** The shelf a bench opens on: the first with something unseen, else the first with anything, else Decide. */
export function initialShelf(counts: ShelfCounts): Shelf {
  return SHELVES.find((s) => counts[s].unseen > 0) ?? SHELVES.find((s) => counts[s].total > 0) ?? 'Decide';
}

/**
 * Move the selection among the cards on screen (ids in display order). With nothing
 * selected, a step down selects the first card and a step up the last. A selected id
 * that has gone selects the card now nearest to where it was (`fallbackIndex`).
 */
export function stepSelection(ids: readonly string[], selected: string | null, step: number, fallbackIndex = 0): string | null {
  if (ids.length === 0) return null;
  const i = selected === null ? -1 : ids.indexOf(selected);
  if (i < 0) {
    if (selected !== null) return ids[Math.min(Math.max(fallbackIndex, 0), ids.length - 1)]!;
    return step >= 0 ? ids[0]! : ids[ids.length - 1]!;
  }
  return ids[Math.min(Math.max(i + step, 0), ids.length - 1)]!;
}

/** Merge one 'surface.changed' into a pane's list: replace by id, add, or remove. */
export function applySurfaceChange(list: readonly Surface[], change: { surface?: Surface; removedId?: string }): Surface[] {
  let next: Surface[] = [...list];
  if (change.removedId !== undefined) next = next.filter((s) => s.id !== change.removedId);
  if (change.surface) {
    const s = change.surface;
    const i = next.findIndex((x) => x.id === s.id);
    if (i >= 0) next[i] = s;
    else next.push(s);
  }
  return next;
}

/** Whether this action, on this target, has been taken on the surface already. */
export function alreadyTaken(s: Surface, action: string, target?: string): boolean {
  return s.acted.some((r) => r.action === action && (r.target ?? '') === (target ?? ''));
}

/** The last action taken on a hunk target (approve_part / reject_part), if any. */
export function hunkState(s: Surface, target: string): 'approved' | 'rejected' | undefined {
  // Only what was taken on the hunk as it is now (a live diff's older actions were about something else).
  const acted = currentRecords(s);
  for (let i = acted.length - 1; i >= 0; i--) {
    const r = acted[i]!;
    if (r.target === target && r.action === 'approve_part') return 'approved';
    if (r.target === target && r.action === 'reject_part') return 'rejected';
    // A whole-change approve/reject after the part decides every hunk it covers.
    if (r.target === undefined && r.action === 'approve') return 'approved';
    if (r.target === undefined && r.action === 'reject') return 'rejected';
  }
  return undefined;
}
