import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, Shelf, Surface, SurfaceKind } from '../../preload/contract.ts';
import {
  SHELVES, alreadyTaken, applySurfaceChange, hunkState, initialShelf, newestFirst, onShelf,
  pendingApprovals, shelfCounts, stepSelection, stepShelf,
} from './shelves.ts';

function surface(id: string, order: number, shelf: Shelf, seen = false, kind: SurfaceKind = 'response'): Surface {
  return {
    id, kind, title: id, shelf, model: {}, route: 'file', order,
    arrivedAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z', seen, acted: [],
  };
}

function approval(id: string, paneIds: { asking?: string; tick?: string }, state: ApprovalRequest['state'] = 'pending', at = '2026-01-01T00:00:00Z'): ApprovalRequest {
  return {
    id, instanceId: 'hosted:1', askingPaneId: paneIds.asking, tickPaneId: paneIds.tick, tool: 't',
    description: '', args: {}, revision: 'r1', requestedAt: at, timeoutSeconds: 60, state,
  };
}

describe('shelves', () => {
  it('lists the registry shelves in order', () => {
    expect(SHELVES).toEqual(['Decide', 'Review', 'Replies', 'Files', 'Data', 'Notes', 'Unsorted']);
  });

  it('orders newest first by arrival order, whatever the input order', () => {
    const list = [surface('a', 1, 'Replies'), surface('c', 3, 'Replies'), surface('b', 2, 'Review')];
    expect(newestFirst(list).map((s) => s.id)).toEqual(['c', 'b', 'a']);
    expect(onShelf(list, 'Replies').map((s) => s.id)).toEqual(['c', 'a']);
  });

  it('counts totals and unseen per shelf, approvals on Decide', () => {
    const list = [surface('a', 1, 'Replies'), surface('b', 2, 'Replies', true), surface('c', 3, 'Data')];
    const counts = shelfCounts(list, [approval('p1', { asking: 'x' }), approval('p2', { asking: 'x' })], new Set(['p2']));
    expect(counts.Replies).toEqual({ total: 2, unseen: 1 });
    expect(counts.Data).toEqual({ total: 1, unseen: 1 });
    expect(counts.Decide).toEqual({ total: 2, unseen: 1 });
    expect(counts.Notes).toEqual({ total: 0, unseen: 0 });
  });

  it('steps shelves with wrap-around', () => {
    expect(stepShelf('Decide', 1)).toBe('Review');
    expect(stepShelf('Decide', -1)).toBe('Unsorted');
    expect(stepShelf('Unsorted', 1)).toBe('Decide');
  });

  it('opens on the first shelf with unseen, else with anything, else Decide', () => {
    expect(initialShelf(shelfCounts([surface('a', 1, 'Data', true), surface('b', 2, 'Files')]))).toBe('Files');
    expect(initialShelf(shelfCounts([surface('a', 1, 'Data', true)]))).toBe('Data');
    expect(initialShelf(shelfCounts([]))).toBe('Decide');
  });
});

describe('selection', () => {
  const ids = ['c', 'b', 'a'];
  it('selects first or last from nothing and clamps at the ends', () => {
    expect(stepSelection(ids, null, 1)).toBe('c');
    expect(stepSelection(ids, null, -1)).toBe('a');
    expect(stepSelection(ids, 'c', -1)).toBe('c');
    expect(stepSelection(ids, 'a', 1)).toBe('a');
    expect(stepSelection(ids, 'b', 1)).toBe('a');
    expect(stepSelection([], 'b', 1)).toBeNull();
  });
  it('falls back near the old place when the selected card has gone', () => {
    expect(stepSelection(ids, 'gone', 1, 1)).toBe('b');
    expect(stepSelection(ids, 'gone', 1, 9)).toBe('a');
  });
});

describe('applySurfaceChange', () => {
  it('adds, replaces in place and removes', () => {
    const a = surface('a', 1, 'Replies');
    const b = surface('b', 2, 'Replies');
    let list = applySurfaceChange([], { surface: a });
    list = applySurfaceChange(list, { surface: b });
    expect(list.map((s) => s.id)).toEqual(['a', 'b']);
    const a2 = { ...a, title: 'changed' };
    list = applySurfaceChange(list, { surface: a2 });
    expect(list.map((s) => s.title)).toEqual(['changed', 'b']);
    list = applySurfaceChange(list, { removedId: 'a' });
    expect(list.map((s) => s.id)).toEqual(['b']);
  });
});

describe('approvals', () => {
  it('keeps pending approvals of this pane (asking or the Tick own pane), newest first', () => {
    const all = [
      approval('1', { asking: 'p' }, 'pending', '2026-01-01T00:00:01Z'),
      approval('2', { tick: 'p' }, 'pending', '2026-01-01T00:00:02Z'),
      approval('3', { asking: 'q' }),
      approval('4', { asking: 'p' }, 'approved'),
    ];
    expect(pendingApprovals(all, 'p').map((a) => a.id)).toEqual(['2', '1']);
  });
});

describe('taken actions and hunk state', () => {
  it('knows an action taken on a target, and the latest state of a hunk', () => {
    const s = surface('ch', 1, 'Review', true, 'change');
    s.acted = [
      { action: 'approve_part', target: 'a.ts#hunk-1', at: 't1' },
      { action: 'reject_part', target: 'a.ts#hunk-2', at: 't2' },
      { action: 'approve_part', target: 'a.ts#hunk-2', at: 't3' },
    ];
    expect(alreadyTaken(s, 'approve_part', 'a.ts#hunk-1')).toBe(true);
    expect(alreadyTaken(s, 'approve_part', 'a.ts#hunk-3')).toBe(false);
    expect(alreadyTaken(s, 'approve')).toBe(false);
    expect(hunkState(s, 'a.ts#hunk-1')).toBe('approved');
    expect(hunkState(s, 'a.ts#hunk-2')).toBe('approved');
    expect(hunkState(s, 'a.ts#hunk-3')).toBeUndefined();
    s.acted.push({ action: 'reject', at: 't4' });
    expect(hunkState(s, 'a.ts#hunk-3')).toBe('rejected');
  });

  it('on a live diff, a hunk that changed after it was rejected is undecided again', () => {
    const s = surface('worktree-changes', 1, 'Review', true, 'change');
    s.model = {
      since: '2026-01-01T00:10:00Z',
      files: [{ path: 'a.ts', diff: '', hunks: [{ key: 'k1', since: '2026-01-01T00:00:00Z' }, { key: 'k2', since: '2026-01-01T00:10:00Z' }] }],
    };
    s.acted = [
      { action: 'reject_part', target: 'a.ts#hunk-1', at: '2026-01-01T00:05:00Z' },
      { action: 'reject_part', target: 'a.ts#hunk-2', at: '2026-01-01T00:05:00Z' },
    ];
    expect(hunkState(s, 'a.ts#hunk-1')).toBe('rejected');
    expect(hunkState(s, 'a.ts#hunk-2')).toBeUndefined();
  });
});
