import { describe, expect, it } from 'vitest';
import { afterLastCrLf, attributesAtEnd, countLineFeeds, directLineText, foldAttributes, isDirectLine, plainTailStart } from './compact.ts';

describe('plain output', () => {
  it('finds where the plain tail starts: after the last thing that is not text, tab, CR, LF or a complete SGR', () => {
    expect(plainTailStart('abc\r\n\x1b[31mred\x1b[0m\tx')).toBe(0);
    expect(plainTailStart('ab\x1b[2Jcd')).toBe(3); // the ESC of a clear is not plain; its "[2J" then reads as text after it
    expect(plainTailStart('ab\x07cd')).toBe(3);
    expect(plainTailStart('a\x1b]0;t\x07b')).toBe(7);
    expect(plainTailStart('x\x1b[38;5')).toBe(2); // an SGR cut in two is not plain until it is whole
    expect(plainTailStart('é 世界 😀')).toBe(0);
    expect(plainTailStart('a\ud83db')).toBe(2); // a lone surrogate
    expect(plainTailStart('\udc00b')).toBe(1);
    expect(plainTailStart('a\x9bb')).toBe(2); // C1 CSI
    expect(plainTailStart('a\x7fb')).toBe(2);
  });

  it('counts line feeds', () => {
    expect(countLineFeeds('a\nb\r\nc')).toBe(2);
    expect(countLineFeeds('a\nb\nc', 2)).toBe(1);
    expect(countLineFeeds('')).toBe(0);
  });

  it('keeps the SGRs that decide the attributes at the end: from the last reset on', () => {
    expect(attributesAtEnd('a\x1b[31mb\x1b[0mc\x1b[1;4md\x1b[38;5;3me')).toBe('\x1b[0m\x1b[1;4m\x1b[38;5;3m');
    expect(attributesAtEnd('\x1b[32mx\x1b[0;41my')).toBe('\x1b[0;41m');
    expect(attributesAtEnd('\x1b[32mx\x1b[my\x1b[7m')).toBe('\x1b[m\x1b[7m');
    expect(attributesAtEnd('\x1b[32mx\x1b[1m')).toBe('\x1b[32m\x1b[1m');
    expect(attributesAtEnd('plain')).toBe('');
    expect(attributesAtEnd('\x1b[1m'.repeat(5000))).toBeUndefined();
  });

  it('finds where the last line starts after a CR LF', () => {
    expect(afterLastCrLf('a\r\nb\r\ncd')).toBe(6);
    expect(afterLastCrLf('a\r\nb\nc')).toBe(3);
    expect(afterLastCrLf('a\nb')).toBe(-1);
  });

  it('folds attributes: a reset forgets what came before', () => {
    expect(foldAttributes('\x1b[31m', '\x1b[1m')).toBe('\x1b[31m\x1b[1m');
    expect(foldAttributes('\x1b[31m', '\x1b[0m\x1b[1m')).toBe('\x1b[0m\x1b[1m');
    expect(foldAttributes('', '')).toBe('');
    expect(foldAttributes('\x1b[1m'.repeat(5000), '\x1b[2m')).toBeUndefined();
  });
});

describe('lines the archive can hold as they came (directLineText)', () => {
  it('gives the text of printable ASCII and SGRs that end in the default attributes, at most a row wide', () => {
    expect(directLineText('plain words  ', 20)).toBe('plain words  ');
    expect(directLineText('', 20)).toBe('');
    expect(directLineText('\x1b[38;5;123mconst\x1b[0m x = \x1b[33m"s"\x1b[m;', 20)).toBe('const x = "s";');
    expect(directLineText('\x1b[4:3mcurly\x1b[0m', 5)).toBe('curly');
    // Exactly a row wide is one row; one more would wrap.
    expect(directLineText('x'.repeat(20), 20)).toBe('x'.repeat(20));
    expect(directLineText('x'.repeat(21), 20)).toBeUndefined();
    expect(directLineText('\x1b[1m' + 'x'.repeat(21) + '\x1b[0m', 20)).toBeUndefined();
  });

  it('refuses what a parser must see: attributes left set, other escapes, controls, tabs, wide or non-ASCII characters', () => {
    for (const line of [
      '\x1b[41mred to the end',
      '\x1b[0;1mbold left set',
      'reset then \x1b[0m\x1b[1mbold',
      '\x1b[2Kerased',
      '\x1b]8;;http://x.test/\x07link\x1b]8;;\x07',
      'a\tb',
      'cr \rover',
      'bell\x07',
      'wide 世界',
      'caf\u00e9',
      'emoji \ud83d\ude00',
      '\x1b[',
    ]) expect({ line, text: directLineText(line, 80) }).toEqual({ line, text: undefined });
  });

  it('isDirectLine says what directLineText says, of a line read where it lies in a longer string', () => {
    const pieces = ['a', 'Z', ' ', '~', '0', ';', 'm', '[', '\x1b[0m', '\x1b[m', '\x1b[1m', '\x1b[38;5;12m', '\x1b[4:3m', '\x1b[00m', '\x1b[', '\x1b[1', '\x1b', '\x1b]0;t\x07', '\t', '\x7f', '\u00e9', '\u4e16', '\r', '\x1b[2K'];
    let seed = 7;
    const next = (n: number): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648), seed % n);
    let direct = 0;
    for (let k = 0; k < 20_000; k++) {
      let line = '';
      for (let n = next(12); n > 0; n--) line += pieces[next(pieces.length)]!;
      const cols = 1 + next(12);
      const before = 'x\x1b[1'.slice(0, next(7));
      const after = '\x1b[0m~'.slice(0, next(7));
      const want = directLineText(line, cols) !== undefined;
      direct += want ? 1 : 0;
      expect({ line, cols, got: isDirectLine(before + line + after, before.length, before.length + line.length, cols) }).toEqual({ line, cols, got: want });
    }
    // Both kinds came up often.
    expect(direct).toBeGreaterThan(1_000);
    expect(direct).toBeLessThan(19_000);
  });
});
