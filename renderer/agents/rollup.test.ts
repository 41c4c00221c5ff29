import { describe, expect, it } from 'vitest';
import type { PaneInfo } from '../../preload/contract.ts';
import { agentCounts, agentRows, countsText, durationText, listPlace, titleParts } from './rollup.ts';

function pane(id: string, agent?: PaneInfo['agent'], extra: Partial<PaneInfo> = {}): PaneInfo {
  return {
    id, tag: 'abcdefgh', kind: 'agent', title: `t-${id}`, cwd: '/tmp', command: ['claude'], status: 'running',
    cols: 80, rows: 24, benchOpen: false, unseen: 0, ...(agent ? { agent } : {}), ...extra,
  };
}

describe('agentRows', () => {
  it('lists only panes with an agent status: blocked first, then working, done, idle; the longest waiting first', () => {
    const rows = agentRows({
      a: pane('a', { status: 'working', since: '2026-01-01T00:00:05Z' }),
      b: pane('b', { status: 'blocked', since: '2026-01-01T00:00:09Z', detail: 'Which colour?' }),
      c: pane('c'),
      d: pane('d', { status: 'idle', since: '2026-01-01T00:00:00Z' }),
      e: pane('e', { status: 'blocked', since: '2026-01-01T00:00:01Z' }, { unseen: 3 }),
      f: pane('f', { status: 'done', since: '2026-01-01T00:00:02Z' }),
      g: pane('g', { status: 'working', since: '2026-01-01T00:00:01Z' }),
    });
    expect(rows.map((r) => r.paneId)).toEqual(['e', 'b', 'g', 'a', 'f', 'd']);
    expect(rows[0]).toEqual({ paneId: 'e', title: 't-e', status: 'blocked', since: '2026-01-01T00:00:01Z', unseen: 3 });
    expect(rows[1]!.detail).toBe('Which colour?');
  });
  it('keeps only the visible panes when given, and names an untitled pane by its command', () => {
    const rows = agentRows([pane('a', { status: 'done', since: 'x' }, { title: '' }), pane('b', { status: 'done', since: 'x' })], ['a']);
    expect(rows).toEqual([{ paneId: 'a', title: 'claude', status: 'done', since: 'x', unseen: 0 }]);
  });
});

describe('counts', () => {
  it('counts per status and says it blocked first, leaving out zeros', () => {
    const c = agentCounts([{ status: 'working' }, { status: 'blocked' }, { status: 'working' }]);
    expect(c).toEqual({ blocked: 1, working: 2, done: 0, idle: 0 });
    expect(countsText(c)).toBe('1 blocked · 2 working');
    expect(countsText(agentCounts([]))).toBe('');
  });
});

describe('durationText', () => {
  const t0 = Date.parse('2026-01-01T00:00:00Z');
  it('says how long in a few characters', () => {
    expect(durationText('2026-01-01T00:00:00Z', t0 + 2_000)).toBe('now');
    expect(durationText('2026-01-01T00:00:00Z', t0 + 42_000)).toBe('42s');
    expect(durationText('2026-01-01T00:00:00Z', t0 + 4 * 60_000 + 59_000)).toBe('4m');
    expect(durationText('2026-01-01T00:00:00Z', t0 + 125 * 60_000)).toBe('2h 5m');
    expect(durationText('2026-01-01T00:00:00Z', t0 + 120 * 60_000)).toBe('2h');
    expect(durationText('2026-01-01T00:00:00Z', t0 + 50 * 3600_000)).toBe('2d');
  });
  it('gives nothing for a bad time and never a negative one', () => {
    expect(durationText('soon', t0)).toBe('');
    expect(durationText('2026-01-01T00:00:10Z', t0)).toBe('now');
  });
});

describe('titleParts', () => {
  it('splits a path before its last folder (shortened as a header does), and leaves any other title whole', () => {
    expect(titleParts('/tmp/td-e2e-cwd-WLZRxD')).toEqual({ head: '/tmp/', tail: 'td-e2e-cwd-WLZRxD' });
    expect(titleParts('/home/ada/src/shop/api')).toEqual({ head: '…/shop/', tail: 'api' });
    expect(titleParts('~/src/shop')).toEqual({ head: '~/src/', tail: 'shop' });
    expect(titleParts('/')).toEqual({ head: '', tail: '/' });
    expect(titleParts('claude')).toEqual({ head: '', tail: 'claude' });
    expect(titleParts('Fix the /login page')).toEqual({ head: '', tail: 'Fix the /login page' });
  });
});

describe('listPlace', () => {
  it('hangs leftwards from the rollup 320-460 px wide where there is room, else rightwards, never past the window', () => {
    expect(listPlace({ left: 640, right: 810 }, 1280)).toEqual({ minWidth: 320, maxWidth: 460 });
    expect(listPlace({ left: 230, right: 400 }, 1280)).toEqual({ minWidth: 320, maxWidth: 384 });
    expect(listPlace(undefined, 600)).toEqual({ minWidth: 320, maxWidth: 460 });
    // a narrow window, the rollup near its left: rightwards from its left edge
    expect(listPlace({ left: 50, right: 231 }, 600)).toEqual({ left: 0, right: 'auto', minWidth: 320, maxWidth: 460 });
    expect(listPlace({ left: 50, right: 231 }, 300)).toEqual({ left: 0, right: 'auto', minWidth: 242, maxWidth: 242 });
    // no room either way: the wider side, all of it
    expect(listPlace({ left: 50, right: 231 }, 240)).toEqual({ minWidth: 215, maxWidth: 215 });
  });
});
