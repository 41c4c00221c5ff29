import { describe, expect, it } from 'vitest';
import type { ActionRecord } from '../../preload/contract.ts';
import { COMMENT_LIMIT, isBlocked, recordText, utf8Length } from './acting.ts';

const rec = (action: string, target?: string, extra: Partial<ActionRecord> = {}): ActionRecord => ({ action, target, at: '2026-01-01T00:00:00Z', ...extra });

describe('isBlocked', () => {
  it('leaves a fresh card free', () => {
    for (const a of ['approve', 'reject', 'choose', 'approve_part', 'comment', 'dismiss']) expect(isBlocked([], a, 'x')).toBe(false);
  });
  it('blocks every deciding button once one decision is taken, but not comments', () => {
    const acted = [rec('choose', 'LRU')];
    expect(isBlocked(acted, 'choose', 'TTL')).toBe(true);
    expect(isBlocked(acted, 'approve')).toBe(true);
    expect(isBlocked(acted, 'reject')).toBe(true);
    expect(isBlocked(acted, 'comment')).toBe(false);
    expect(isBlocked(acted, 'dismiss')).toBe(false);
  });
  it('blocks one hunk once it is approved or rejected, and all hunks after a whole decision', () => {
    const acted = [rec('reject_part', 'a.ts#hunk-2')];
    expect(isBlocked(acted, 'approve_part', 'a.ts#hunk-2')).toBe(true);
    expect(isBlocked(acted, 'reject_part', 'a.ts#hunk-2')).toBe(true);
    expect(isBlocked(acted, 'approve_part', 'a.ts#hunk-1')).toBe(false);
    expect(isBlocked(acted, 'approve')).toBe(false);
    expect(isBlocked([...acted, rec('approve')], 'approve_part', 'a.ts#hunk-1')).toBe(true);
  });
  it('blocks any other action repeated on the same target', () => {
    expect(isBlocked([rec('custom', 't')], 'custom', 't')).toBe(true);
    expect(isBlocked([rec('custom', 't')], 'custom', 'u')).toBe(false);
  });
});

describe('records and limits', () => {
  it('shows the typed line, else the action in words', () => {
    expect(recordText(rec('approve', undefined, { line: '[workbench:abc] approve on surface x' }))).toBe('[workbench:abc] approve on surface x');
    expect(recordText(rec('reject_part', 'a#hunk-1', { comment: 'no' }))).toBe('reject_part · a#hunk-1 — no');
  });
  it('measures comments in UTF-8 bytes', () => {
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('x'.repeat(COMMENT_LIMIT))).toBe(4096);
  });
});
