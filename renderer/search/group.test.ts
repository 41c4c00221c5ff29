import { describe, expect, it } from 'vitest';
import type { SearchHit } from '../../preload/contract.ts';
import { dayName, groupHits, markedParts, shortLast, when, withoutMarkdown } from './group.ts';

const hit = (id: number, paneId: string, agent?: string): SearchHit => ({ id, kind: 'output', at: 1000 - id, paneId, session: 's', text: 't', marked: 't', ...(agent ? { agent } : {}) });

describe('groupHits', () => {
  it('groups by pane in the order of each pane\'s newest hit, naming its agent', () => {
    const g = groupHits([hit(1, 'a'), hit(2, 'b', 'codex'), hit(3, 'a', 'claude'), hit(4, 'c')]);
    expect(g.map((x) => [x.paneId, x.agent, x.hits.map((h) => h.id)])).toEqual([['a', 'claude', [1, 3]], ['b', 'codex', [2]], ['c', undefined, [4]]]);
  });
  it('groups by agent, the hits of no agent together', () => {
    const g = groupHits([hit(1, 'a'), hit(2, 'b', 'codex'), hit(3, 'c', 'claude'), hit(4, 'd', 'codex'), hit(5, 'a')], 'agent');
    expect(g.map((x) => [x.agent, x.hits.map((h) => h.id)])).toEqual([['', [1, 5]], ['codex', [2, 4]], ['claude', [3]]]);
  });
  it('groups by day where the person is, named Today, Yesterday or the date', () => {
    const now = new Date(2026, 11, 7, 9, 0).getTime();
    const at = (d: number, h: number, id: number): SearchHit => ({ ...hit(id, 'a'), at: new Date(2026, 11, d, h).getTime() });
    const g = groupHits([at(7, 8, 1), at(7, 0, 2), at(6, 23, 3), at(1, 12, 4), at(1, 11, 5)], 'day', now);
    expect(g.map((x) => [x.key, x.day, x.hits.map((h) => h.id)])).toEqual([['2026-12-07', 'Today', [1, 2]], ['2026-12-06', 'Yesterday', [3]], ['2026-12-01', 'Tue Dec 1', [4, 5]]]);
    expect(dayName(new Date(2025, 11, 31, 12).getTime(), now)).toBe('Wed Dec 31 2025');
    // On the first of January, a day of December is last year's (yesterday's year is not the test).
    expect(dayName(new Date(2026, 11, 5, 12).getTime(), new Date(2027, 0, 1, 9).getTime())).toBe('Sat Dec 5 2026');
  });
});

describe('markedParts', () => {
  it('cuts the marked text into plain and matched parts', () => {
    expect(markedParts('run the \u0001migration\u0002 now')).toEqual([{ text: 'run the ', match: false }, { text: 'migration', match: true }, { text: ' now', match: false }]);
  });
  it('starts a long line shortly before its first match and ends it with an ellipsis', () => {
    const parts = markedParts(`${'x'.repeat(300)} \u0001word\u0002 ${'y'.repeat(300)}`, 100);
    expect(parts[0]!.text.startsWith('…')).toBe(true);
    expect(parts[1]).toEqual({ text: 'word', match: true });
    expect(parts.at(-1)!.text.endsWith('…')).toBe(true);
    expect(parts.reduce((n, p) => n + p.text.length, 0)).toBeLessThanOrEqual(101);
  });
});

describe('withoutMarkdown', () => {
  it('takes emphasis and code marks out of cards and replies only, keeping the match marks', () => {
    expect(withoutMarkdown({ kind: 'surface', marked: 'holds **rendered \u0001reports\u0002**; `lru_cache` __init__' })).toBe('holds rendered \u0001reports\u0002; lru_cache __init__');
    expect(withoutMarkdown({ kind: 'output', marked: 'a **b**' })).toBe('a **b**');
  });
});

describe('when', () => {
  it('says the time today and the day before', () => {
    const now = new Date(2026, 11, 4, 18, 0).getTime();
    expect(when(new Date(2026, 11, 4, 9, 5).getTime(), now)).toBe('09:05');
    expect(when(new Date(2026, 11, 2, 14, 3).getTime(), now)).toBe('Dec 2 14:03');
  });
});

describe('shortLast', () => {
  it('says when the last word is one or two letters (matched whole, not as a prefix)', () => {
    expect(shortLast('cache ev')).toBe(true);
    expect(shortLast('é')).toBe(true);
    expect(shortLast('cache evi')).toBe(false);
    expect(shortLast('ev cache')).toBe(false);
    expect(shortLast(';;')).toBe(false);
  });
});
