import { describe, expect, it } from 'vitest';
import type { ActionRecord } from '../preload/contract.ts';
import { currentRecords } from './revisions.ts';

const rec = (action: string, at: string, target?: string): ActionRecord => ({ action, at, ...(target ? { target } : {}) });

describe('currentRecords', () => {
  it('keeps every record of a surface without stamps', () => {
    const acted = [rec('approve', '2026-01-01T00:00:00Z')];
    expect(currentRecords({ acted, model: { files: [] } })).toEqual(acted);
  });

  it('drops records taken before their hunk (or the whole card) last changed', () => {
    const model = {
      since: '2026-01-01T00:10:00Z',
      files: [{ path: 'a.txt', diff: '', hunks: [{ key: 'k1', since: '2026-01-01T00:00:00Z' }, { key: 'k2', since: '2026-01-01T00:10:00Z' }] }],
    };
    const acted = [
      rec('reject_part', '2026-01-01T00:05:00Z', 'a.txt#hunk-1'), // hunk 1 unchanged since: current
      rec('reject_part', '2026-01-01T00:05:00Z', 'a.txt#hunk-2'), // hunk 2 changed after: stale
      rec('approve', '2026-01-01T00:05:00Z'), // the card changed after: stale
      rec('approve_part', '2026-01-01T00:05:00Z', 'a.txt#hunk-3'), // no such hunk now: stale
      rec('comment', '2026-01-01T00:11:00Z'),
    ];
    expect(currentRecords({ acted, model }).map((r) => `${r.action}:${r.target ?? ''}`)).toEqual(['reject_part:a.txt#hunk-1', 'comment:']);
  });
});
