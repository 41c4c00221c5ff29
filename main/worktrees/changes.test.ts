import { describe, expect, it } from 'vitest';
import { checkSurface } from '../surfaces/validate.ts';
import { CHANGES_ID, FILE_DIFF_CHARS, changesSurface, hunkKey, hunkPatch, splitDiff, stampsOf } from './changes.ts';

const DIFF = [
  'diff --git a/a.txt b/a.txt',
  'index 4cb29ea..95fc9f7 100644',
  '--- a/a.txt',
  '+++ b/a.txt',
  '@@ -1,3 +1,3 @@',
  ' one',
  '-two',
  '+TWO',
  ' three',
  '@@ -10,2 +10,3 @@ function f() {',
  ' ten',
  '+ten and a half',
  ' eleven',
  'diff --git a/new file.txt b/new file.txt',
  'new file mode 100644',
  'index 0000000..3e75765',
  '--- /dev/null',
  '+++ b/new file.txt',
  '@@ -0,0 +1 @@',
  '+new',
  '\\ No newline at end of file',
  'diff --git a/gone.txt b/gone.txt',
  'deleted file mode 100644',
  'index 1111111..0000000',
  '--- a/gone.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-gone',
  'diff --git a/logo.png b/logo.png',
  'new file mode 100644',
  'index 0000000..3e75765',
  'Binary files /dev/null and b/logo.png differ',
  '',
].join('\n');

const ctx = { branch: 'fix-login', base: 'main', against: 'abcdef0123456789', path: '/w/fix-login' };

describe('splitDiff', () => {
  it('splits git diff output into files with their raw text, header and hunks', () => {
    const files = splitDiff(DIFF);
    expect(files.map((f) => f.path)).toEqual(['a.txt', 'new file.txt', 'gone.txt', 'logo.png']);
    const [a, n, g, png] = files as [typeof files[0], typeof files[0], typeof files[0], typeof files[0]];
    expect(a.hunks).toHaveLength(2);
    expect(a.hunks[0]!.text).toBe('@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three');
    expect(a.header).toBe('diff --git a/a.txt b/a.txt\nindex 4cb29ea..95fc9f7 100644\n--- a/a.txt\n+++ b/a.txt');
    expect(a.diff.startsWith('diff --git a/a.txt')).toBe(true);
    expect([a.added, a.removed]).toEqual([2, 1]);
    expect(n.hunks[0]!.text).toBe('@@ -0,0 +1 @@\n+new\n\\ No newline at end of file');
    expect([g.added, g.removed]).toEqual([0, 1]);
    expect(png.hunks).toEqual([]);
    expect(png.diff).toContain('Binary files');
  });

  it('gives nothing for no diff', () => {
    expect(splitDiff('')).toEqual([]);
    expect(splitDiff('\n')).toEqual([]);
  });

  it('keys a hunk by its file and lines, not by where it is', () => {
    const moved = '@@ -20,3 +20,3 @@\n one\n-two\n+TWO\n three';
    expect(hunkKey('a.txt', moved)).toBe(splitDiff(DIFF)[0]!.hunks[0]!.key);
    expect(hunkKey('b.txt', moved)).not.toBe(splitDiff(DIFF)[0]!.hunks[0]!.key);
  });

  it('makes the one-hunk patch git apply takes', () => {
    const [a] = splitDiff(DIFF);
    expect(hunkPatch(a!, 2)).toBe('diff --git a/a.txt b/a.txt\nindex 4cb29ea..95fc9f7 100644\n--- a/a.txt\n+++ b/a.txt\n@@ -10,2 +10,3 @@ function f() {\n ten\n+ten and a half\n eleven\n');
    expect(hunkPatch(a!, 3)).toBeUndefined();
  });
});

describe('changesSurface', () => {
  it('is a valid change surface on the Review shelf, each hunk stamped', () => {
    const { doc, stamps } = changesSurface(splitDiff(DIFF), ctx, undefined, '2026-01-01T00:00:00.000Z');
    const checked = checkSurface(doc, { strict: true });
    expect(checked.type).toBe('present');
    expect(doc.id).toBe(CHANGES_ID);
    const model = doc.model as { summary: string; files: Array<{ path: string; hunks: Array<{ key: string; since: string }> }>; since: string; worktree: unknown };
    expect(model.summary).toContain('4 files changed on `fix-login` against `main`');
    expect(model.files[0]!.hunks).toHaveLength(2);
    expect(model.files[0]!.hunks[0]!.since).toBe('2026-01-01T00:00:00.000Z');
    expect(model.since).toBe('2026-01-01T00:00:00.000Z');
    expect(model.worktree).toEqual({ path: '/w/fix-login', branch: 'fix-login', base: 'main', against: 'abcdef0123456789' });
    expect(stamps.hunks.size).toBe(4);
  });

  it('keeps the time of a hunk seen before, and of the card when nothing changed', () => {
    const first = changesSurface(splitDiff(DIFF), ctx, undefined, 'T1');
    const same = changesSurface(splitDiff(DIFF), ctx, first.stamps, 'T2');
    expect((same.doc.model as { since: string }).since).toBe('T1');
    expect(same.doc).toEqual(first.doc);
    const edited = DIFF.replace('+TWO', '+Two');
    const next = changesSurface(splitDiff(edited), ctx, first.stamps, 'T3');
    const files = (next.doc.model as { since: string; files: Array<{ hunks: Array<{ since: string }> }> });
    expect(files.since).toBe('T3');
    expect(files.files[0]!.hunks.map((h) => h.since)).toEqual(['T3', 'T1']);
  });

  it('reads its stamps back from a card on the bench (a restarted app)', () => {
    const first = changesSurface(splitDiff(DIFF), ctx, undefined, 'T1');
    const back = stampsOf(first.doc.model as Record<string, unknown>)!;
    expect(back.since).toBe('T1');
    expect([...back.hunks.values()].every((t) => t === 'T1')).toBe(true);
    expect(changesSurface(splitDiff(DIFF), ctx, back, 'T9').doc).toEqual(first.doc);
    expect(stampsOf(undefined)).toBeUndefined();
    expect(stampsOf({ files: [] })).toBeUndefined();
  });

  it('names a file too large to show, and still fits in a surface', () => {
    const big = `diff --git a/big.txt b/big.txt\nnew file mode 100644\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,20000 @@\n${Array.from({ length: 20000 }, (_, i) => `+line ${i}`).join('\n')}\n`;
    expect(big.length).toBeGreaterThan(FILE_DIFF_CHARS);
    const { doc } = changesSurface(splitDiff(big + DIFF), ctx, undefined, 'T1');
    expect(checkSurface(doc, { strict: true }).type).toBe('present');
    const files = (doc.model as { files: Array<{ path: string; diff: string }> }).files;
    expect(files[0]!.diff).toMatch(/^big\.txt: too large to show here \(\d+ KiB of diff\); see `git diff abcdef012345 -- big\.txt`/);
    expect(files).toHaveLength(5);
  });

  it('says so when there is nothing yet', () => {
    const { doc } = changesSurface([], ctx, undefined, 'T1');
    expect((doc.model as { summary: string }).summary).toBe('No changes on `fix-login` against `main` yet.');
    expect(checkSurface(doc, { strict: true }).type).toBe('present');
  });
});
