import { describe, expect, it } from 'vitest';
import { splitDiff } from '../worktrees/changes.ts';
import { decorate, keepHunks, parseNumstat, timelineEntry, viewSummary } from './card.ts';
import { parseEntry, turnsOf, type TurnEntry } from './log.ts';
import { refSegment } from './checkpoint.ts';

const target = { top: '/r', gitDir: '/r/.git', seed: '/r/.git/index', shadow: false };
const sha = (c: string) => c.repeat(40);

const DIFF = `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,3 @@
 line 1
-line 2
+LINE TWO
 line 3
@@ -9,3 +9,4 @@
 line 9
-line 10
+LINE TEN
+ten and a half
 line 11
`;

describe('the card by turn, pure', () => {
  it('reads numstat with binary files and paths with tabs or newlines', () => {
    expect(parseNumstat('3\t1\ta.txt\0-\t-\timg.png\0' + '2\t0\tdir/we\tird\nname\0')).toEqual({ files: ['a.txt', 'img.png', 'dir/we\tird\nname'], added: 5, removed: 1 });
    expect(parseNumstat('')).toEqual({ files: [], added: 0, removed: 0 });
  });

  it('keeps only the hunks asked for, with the diff text and counts made again', () => {
    const [f] = splitDiff(DIFF);
    const [h1, h2] = f!.hunks;
    expect(keepHunks(f!, () => true)).toBe(f);
    expect(keepHunks(f!, () => false)).toBeUndefined();
    const kept = keepHunks(f!, (k) => k === h2!.key)!;
    expect(kept.hunks).toEqual([h2]);
    expect([kept.added, kept.removed]).toEqual([2, 1]);
    expect(kept.diff).not.toContain('LINE TWO');
    // What is left parses again as the same hunk, with the same key.
    expect(splitDiff(`${kept.diff}\n`)[0]!.hunks.map((h) => h.key)).toEqual([h2!.key]);
    expect(h1!.key).not.toBe(h2!.key);
  });

  it('makes turns of the lines: an interrupted turn ends where the next begins, a restore is a turn, a stray end is dropped', () => {
    const e = (kind: TurnEntry['kind'], n: number, c: string, extra: Partial<TurnEntry> = {}): TurnEntry => ({ kind, n, commit: sha(c), at: `2026-01-01T00:0${n}:00Z`, target, ...extra });
    const turns = turnsOf([
      e('end', 0, 'f'),
      e('start', 1, 'a', { prompt: 'one' }),
      e('end', 1, 'b'),
      e('start', 2, 'c', { prompt: 'two' }),
      e('start', 3, 'd', { prompt: 'three' }),
      e('restore', 4, 'e', { of: 2, after: sha('9') }),
      e('start', 5, '1', { prompt: 'five' }),
    ]);
    expect(turns.map((t) => [t.n, t.prompt, t.start[0], t.end?.[0] ?? null, t.restoreOf ?? null])).toEqual([
      [1, 'one', 'a', 'b', null], [2, 'two', 'c', 'd', null], [3, 'three', 'd', 'e', null], [4, 'Restore turn 2', 'e', '9', 2], [5, 'five', '1', null, null],
    ]);
  });

  it('reads only well-formed lines', () => {
    expect(parseEntry('not json')).toBeUndefined();
    expect(parseEntry(JSON.stringify({ kind: 'start', n: 1, commit: 'abc', at: 'x', target }))).toBeUndefined();
    expect(parseEntry(JSON.stringify({ kind: 'start', n: 1, commit: sha('a'), at: 'x', target: { top: '/r' } }))).toBeUndefined();
    expect(parseEntry(JSON.stringify({ kind: 'start', n: 1, commit: sha('a'), at: 'x', target }))).toMatchObject({ kind: 'start', n: 1 });
  });

  it('makes ref segments git takes', () => {
    expect(refSegment('p:1/2..x')).toBe('p_1_2__x');
    expect(refSegment('-lead')).toBe('lead');
    expect(refSegment('')).toBe('x');
  });

  it('says what each view shows, and marks reviewed and gone hunks', () => {
    const [f] = splitDiff(DIFF);
    const last = { n: 3, prompt: 'shout   the\nlines', at: 'x', start: sha('a'), end: sha('b'), endAt: 'y', target };
    expect(viewSummary('turn', last, [f!])).toBe('Turn 3 (“shout the lines”), ended: 1 file, +3 −2.');
    expect(viewSummary('turn', { ...last, end: undefined }, [])).toBe('Turn 3 (“shout the lines”), still running: no changes.');
    expect(viewSummary('turn', { ...last, restoreOf: 1 }, [])).toBe('Restore of turn 1, ended: no changes.');
    expect(viewSummary('reviewed', last, [])).toBe('Nothing new since you last reviewed: every hunk is marked Reviewed.');
    expect(viewSummary('all', last, [f!])).toBe('Since turn 1 began: 1 file, +3 −2.');
    expect(viewSummary('all', last, [f!], 'the worktree says')).toBe('the worktree says');
    const model: Record<string, unknown> = { files: [{ path: 'a.txt', hunks: f!.hunks.map((h) => ({ key: h.key })) }] };
    const entry = timelineEntry({ ...last, end: undefined, endAt: undefined }, { files: ['a.txt'], added: 3, removed: 2 });
    expect(entry).toEqual({ n: 3, prompt: 'shout   the\nlines', at: 'x', running: true, files: ['a.txt'], fileCount: 1, added: 3, removed: 2 });
    decorate(model, { view: 'turn', turn: 3, from: sha('a'), to: sha('b'), ended: true, timeline: [entry], marks: new Set([f!.hunks[0]!.key]), gone: new Set([f!.hunks[1]!.key]), summary: 's' });
    expect(model.summary).toBe('s');
    expect((model.files as Array<{ hunks: unknown[] }>)[0]!.hunks).toEqual([{ key: f!.hunks[0]!.key, reviewed: true }, { key: f!.hunks[1]!.key, gone: true }]);
    expect(model.turns).toEqual({ view: 'turn', turn: 3, from: sha('a'), to: sha('b'), ended: true, timeline: [entry] });
  });
});
