import { describe, expect, it } from 'vitest';
import { hunkTarget, languageForPath, parseFileDiff, parseHunkTarget } from './diff.ts';

const TWO_HUNKS = [
  'diff --git a/src/a.ts b/src/a.ts',
  'index 1111111..2222222 100644',
  '--- a/src/a.ts',
  '+++ b/src/a.ts',
  '@@ -1,3 +1,4 @@',
  ' import x from "x";',
  '-const a = 1;',
  '+const a = 2;',
  '+const b = 3;',
  ' export { a };',
  '@@ -10,2 +11,2 @@ function tail() {',
  '-  return a;',
  '+  return b;',
  ' }',
  '\\ No newline at end of file',
  '',
].join('\n');

describe('parseFileDiff', () => {
  it('numbers hunks per file from 1 in header order', () => {
    const d = parseFileDiff(TWO_HUNKS);
    expect(d.hunks.map((h) => h.index)).toEqual([1, 2]);
    expect(d.preamble).toEqual(['diff --git a/src/a.ts b/src/a.ts', 'index 1111111..2222222 100644', '--- a/src/a.ts', '+++ b/src/a.ts']);
    expect(d.added).toBe(3);
    expect(d.removed).toBe(2);
    expect(d.hasHunks).toBe(true);
  });

  it('gives old and new line numbers to each line', () => {
    const [h1, h2] = parseFileDiff(TWO_HUNKS).hunks;
    expect(h1!.lines).toEqual([
      { type: 'context', text: 'import x from "x";', oldNo: 1, newNo: 1 },
      { type: 'del', text: 'const a = 1;', oldNo: 2 },
      { type: 'add', text: 'const a = 2;', newNo: 2 },
      { type: 'add', text: 'const b = 3;', newNo: 3 },
      { type: 'context', text: 'export { a };', oldNo: 3, newNo: 4 },
    ]);
    expect(h2!.section).toBe('function tail() {');
    expect(h2!.oldStart).toBe(10);
    expect(h2!.newStart).toBe(11);
    expect(h2!.lines[0]).toEqual({ type: 'del', text: '  return a;', oldNo: 10 });
    expect(h2!.lines[1]).toEqual({ type: 'add', text: '  return b;', newNo: 11 });
    expect(h2!.lines[3]).toEqual({ type: 'note', text: 'No newline at end of file' });
  });

  it('reads a bare hunk with omitted counts and CRLF line ends', () => {
    const d = parseFileDiff('@@ -5 +5 @@\r\n-old\r\n+new\r\n');
    expect(d.hunks).toHaveLength(1);
    expect(d.hunks[0]!.oldLines).toBe(1);
    expect(d.hunks[0]!.newLines).toBe(1);
    expect(d.hunks[0]!.lines.map((l) => l.text)).toEqual(['old', 'new']);
  });

  it('has no hunks for a diff without @@ headers, and never throws on junk', () => {
    const d = parseFileDiff('Binary files a/x.png and b/x.png differ');
    expect(d.hasHunks).toBe(false);
    expect(d.preamble).toEqual(['Binary files a/x.png and b/x.png differ']);
    expect(parseFileDiff('').hunks).toEqual([]);
    expect(() => parseFileDiff('@@ nonsense @@\n+\u0000\n')).not.toThrow();
  });

  it('keeps an empty line inside a hunk as an empty context line', () => {
    const d = parseFileDiff('@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n');
    expect(d.hunks[0]!.lines[1]).toEqual({ type: 'context', text: '', oldNo: 2, newNo: 2 });
  });

  it('counts three hunks in a longer diff', () => {
    const d = parseFileDiff('@@ -1 +1 @@\n-a\n+b\n@@ -5 +5 @@\n-c\n+d\n@@ -9 +9 @@\n-e\n+f\n');
    expect(d.hunks.map((h) => [h.index, h.oldStart])).toEqual([[1, 1], [2, 5], [3, 9]]);
  });
});

describe('hunk targets', () => {
  it('round-trips path#hunk-N, including paths with # in them', () => {
    expect(hunkTarget('src/surface.rs', 4)).toBe('src/surface.rs#hunk-4');
    expect(parseHunkTarget('src/surface.rs#hunk-4')).toEqual({ path: 'src/surface.rs', index: 4 });
    expect(parseHunkTarget('a#b.ts#hunk-12')).toEqual({ path: 'a#b.ts', index: 12 });
    expect(parseHunkTarget('a.ts#hunk-0')).toBeUndefined();
    expect(parseHunkTarget('a.ts')).toBeUndefined();
  });
});

describe('languageForPath', () => {
  it('picks a highlight.js language by extension', () => {
    expect(languageForPath('src/a.tsx')).toBe('typescript');
    expect(languageForPath('x/y/Z.PY')).toBe('python');
    expect(languageForPath('Dockerfile')).toBe('dockerfile');
    expect(languageForPath('notes.unknownext')).toBeUndefined();
    expect(languageForPath('README')).toBeUndefined();
  });
});
