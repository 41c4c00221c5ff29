import { describe, expect, it } from 'vitest';
import { NoteBudget, readNote } from './notes.ts';

describe('readNote', () => {
  it('reads a note', () => {
    expect(readNote({ td: 'note', text: '  Go with LRU.  ' })).toEqual({ ok: true, text: 'Go with LRU.' });
  });
  it('ignores messages that are not notes', () => {
    for (const m of [null, 'note', 42, [], {}, { td: 'other', text: 'x' }, { type: 'note', text: 'x' }]) expect(readNote(m)).toBeNull();
  });
  it('refuses bad notes with a sentence', () => {
    expect(readNote({ td: 'note', text: 5 })).toEqual({ ok: false, error: expect.stringContaining('string') });
    expect(readNote({ td: 'note' })).toEqual({ ok: false, error: expect.stringContaining('string') });
    expect(readNote({ td: 'note', text: '   ' })).toEqual({ ok: false, error: expect.stringContaining('empty') });
    const big = readNote({ td: 'note', text: 'é'.repeat(2049) });
    expect(big).toEqual({ ok: false, error: expect.stringContaining('4 KiB') });
    expect(readNote({ td: 'note', text: 'x'.repeat(4096) })).toEqual({ ok: true, text: 'x'.repeat(4096) });
  });
});

describe('NoteBudget', () => {
  it('lets a few notes a minute through and refuses a flood', () => {
    const b = new NoteBudget(3);
    expect([b.take(0), b.take(10), b.take(20), b.take(30)]).toEqual([true, true, true, false]);
    expect(b.take(60_001)).toBe(true);
  });
});
