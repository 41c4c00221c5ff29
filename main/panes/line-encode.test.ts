/**
 * The archive's line encoder against xterm's serialize addon: for every logical line of
 * terminals fed random coloured output (palette, 256 and RGB colours, every flag, wide and
 * combining characters, tabs and cursor moves leaving empty cells, erases with a
 * background, long wrapped lines, hyperlinks and underline styles, resizes), what the encoder
 * writes draws the same cells as what the addon writes, and its text is xterm's.
 */
import { describe, expect, it } from 'vitest';
import { normalBuffer, withoutNullMoves } from './archive.ts';
import { encodeLine } from './line-encode.ts';
import { cellRows, reference, rng } from './screen-testing.ts';

const STYLES = [
  '\x1b[0m', '\x1b[m', '\x1b[31m', '\x1b[91m', '\x1b[42m', '\x1b[103m', '\x1b[38;5;200m', '\x1b[48;5;17m', '\x1b[38;2;10;20;30m', '\x1b[48;2;200;0;9m',
  '\x1b[1m', '\x1b[2m', '\x1b[22m', '\x1b[3m', '\x1b[23m', '\x1b[4m', '\x1b[24m', '\x1b[5m', '\x1b[7m', '\x1b[27m', '\x1b[8m', '\x1b[28m', '\x1b[9m', '\x1b[53m',
  '\x1b[55m', '\x1b[39m', '\x1b[49m', '\x1b[1;2m',
];
/** Rarer: what the encoder hands to the addon (extended attributes) or leaves empty cells behind. */
const RARE = ['\x1b[4:3m', '\x1b[58;5;3m', '\x1b]8;;http://x.test/\x07', '\x1b]8;;\x07', '\t', '\x1b[3C', '\x1b[2X', '\x1b[K', '\x1b[1K', '\r'];
const TEXT = ['a', 'b', 'word', ' ', '世', '界', '😀', 'e\u0301', 'ü', '─', '  '];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function output(seed: number): string {
  const r = rng(seed);
  let s = '';
  for (let i = 0; i < 160; i++) {
    const len = r() < 0.1 ? 150 + Math.floor(r() * 200) : Math.floor(r() * 70);
    let line = '';
    while (line.length < len) {
      const k = r();
      line += k < 0.25 ? pick(r, STYLES) : k < 0.29 ? pick(r, RARE) : pick(r, TEXT);
    }
    s += line + (r() < 0.6 ? '\x1b[0m' : '') + (r() < 0.8 ? '\r\n' : '\n');
  }
  return s;
}

/** A terminal that parses each write before it returns, with room for every row. */
function terminal(cols: number, rows: number): ReturnType<typeof reference> {
  return reference(cols, rows, 100_000);
}

/** Every cell a replay of `data` (from the top-left of a blank terminal) draws: characters, width, colours and flags, empty cells' too. */
function drawn(data: string, cols: number): string[] {
  const { term, write } = terminal(cols, 50);
  try {
    write(data);
    return cellRows(term, true);
  } finally {
    term.dispose();
  }
}

/** What the serialize addon writes for rows [start, end], as the archive asks it (take in archive.ts). */
function addonRows(ser: ReturnType<typeof reference>['ser'], start: number, end = start): string {
  return withoutNullMoves(ser.serialize({ range: { start, end }, excludeModes: true, excludeAltBuffer: true }));
}

/**
 * Rows [start, end] of `term`'s buffer: '~' first for a wrapped row; each cell its characters,
 * width, colours and flags but bold and dim, an empty one its width and background.
 */
function shown(term: ReturnType<typeof reference>['term'], start: number, end: number): string[] {
  const b = term.buffer.normal;
  const out: string[] = [];
  for (let y = start; y <= end; y++) {
    const line = b.getLine(y)!;
    let row = line.isWrapped ? '~' : '';
    for (let x = 0; x < line.length; x++) {
      const c = line.getCell(x)!;
      const bg = `${c.getBgColorMode()}:${c.getBgColor()}`;
      if (!c.getChars() && c.getWidth() === 1) row += `.[${bg}]`;
      else row += `${c.getChars()}${c.getWidth()}[${c.getFgColorMode()}:${c.getFgColor()}/${bg}/${[c.isUnderline(), c.isInverse(), c.isItalic(), c.isBlink(), c.isInvisible(), c.isStrikethrough(), c.isOverline()].map((f) => (f ? 1 : 0)).join('')}]`;
    }
    out.push(row);
  }
  return out;
}

/** Whether the logical line of rows [start, end] has a wrap the text could not make by itself: a row ending in empty cells, or the next one starting with one. */
function madeWrap(buf: ReturnType<typeof reference>['term']['buffer']['normal'], start: number, end: number, cols: number): boolean {
  for (let y = start; y < end; y++) {
    const row = buf.getLine(y)!;
    const last = row.getCell(cols - 1)!;
    const lastEmpty = !last.getChars() && last.getWidth() === 1;
    const wideBefore = row.getCell(cols - 2)?.getWidth() === 2;
    if ((lastEmpty && !wideBefore) || !buf.getLine(y + 1)!.getCell(0)!.getChars()) return true;
  }
  return false;
}

describe('encodeLine', () => {
  it('draws every logical line as the serialize addon does, and gives xterm\'s text, across 16 random streams', () => {
    let fast = 0;
    let lines = 0;
    let made = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const cols = 20 + (seed % 5) * 17;
      const { term, ser, write } = terminal(cols, 10);
      try {
        // Halfway, a narrower then a wider width: xterm's reflow leaves cells the text could not (a wide character's second half overwritten).
        const out = output(seed);
        write(out.slice(0, out.length / 2));
        term.resize(cols - 7, 10);
        write(out.slice(out.length / 2, (3 * out.length) / 4));
        term.resize(cols, 10);
        write(out.slice((3 * out.length) / 4));
        const buf = term.buffer.normal;
        const cells = normalBuffer(term).lines;
        for (let y = 0; y < buf.length; ) {
          let last = y;
          while (last + 1 < buf.length && buf.getLine(last + 1)!.isWrapped) last++;
          lines++;
          const got = encodeLine(cells, y, last);
          if (got) {
            fast++;
            const addon = addonRows(ser, y, last);
            // Where a wide character did not fit at a row's end, the cell it left is drawn as the
            // pane's own (the attributes in force then, which the addon's erase does not keep).
            const want = drawn(addon, cols);
            const mine = drawn(got.data, cols);
            const own = cellRows(term, true);
            for (let k = 0; k < last - y; k++) {
              if (buf.getLine(y + k + 1)!.getCell(0)!.getWidth() !== 2 || buf.getLine(y + k)!.getCell(cols - 1)!.getChars()) continue;
              const cell = (row: string) => row.match(/(?:[^\]]*\])/g)!;
              const at = cell(own[y + k]!).length - 1;
              const w = cell(want[k]!);
              w[at] = cell(own[y + k]!)[at]!.replace(/^~/, '');
              want[k] = w.join('');
            }
            // A wrap after a row ending in empty cells, or onto a row starting with one, the
            // encoder makes (the addon's is not exact there: its erase or move at the wrap acts
            // on the row's last column, its wrap fills the new row with the old background):
            // those lines are compared with the terminal's own cells, as the screen's tests
            // compare them (an empty cell its width and background: an erase keeps no more;
            // bold and dim as a cell's two flags, which the addon's SGR 22 turns off together).
            if (!madeWrap(buf, y, last, cols)) expect(mine, `seed ${seed}, rows ${y}-${last}: ${JSON.stringify(got.data)} against ${JSON.stringify(addon)}`).toEqual(want);
            else {
              made++;
              const replay = terminal(cols, 50);
              try {
                replay.write(got.data);
                expect(shown(replay.term, 0, last - y), `seed ${seed}, rows ${y}-${last}: ${JSON.stringify(got.data)}`).toEqual(shown(term, y, last));
              } finally {
                replay.term.dispose();
              }
            }
            let text = '';
            for (let k = y; k <= last; k++) text += buf.getLine(k)!.translateToString(true);
            expect(got.text).toBe(text);
            expect(got.data.isWellFormed() || !text.isWellFormed()).toBe(true);
          }
          y = last + 1;
        }
      } finally {
        term.dispose();
      }
    }
    // Most lines take the encoder's way (the rest the addon's): a change that gave up on all of them would fail here.
    expect(fast / lines).toBeGreaterThan(0.6);
    // Not vacuous: wraps the encoder makes were met.
    expect(made).toBeGreaterThan(10);
  }, 120_000);

  it('keeps a wrapped line\'s empty tail in the default background where its replay scrolls at the wrap (which fills the new row with the background then in use)', () => {
    // Printed after a clear, above the bottom row: the wrap moves to a blank row, whose tail
    // stays default. A snapshot replays lines from the bottom of its screen, where the same
    // wrap scrolls, and xterm fills the new row with the current background (BCE).
    const { term, write } = terminal(10, 5);
    try {
      write('\x1b[44mabcdefghijkl\x1b[0m\r\n\x1b[41mxyz\x1b[K\x1b[0m\r\n');
      const cells = normalBuffer(term).lines;
      const got = encodeLine(cells, 0, 1)!;
      expect(got.text).toBe('abcdefghijkl');
      const mine = encodeLine(cells, 2, 2)!;
      const want = cellRows(term, true).slice(0, 3);
      for (const rows of [1, 2, 50]) {
        const replay = reference(10, rows, 100);
        try {
          replay.write(`${got.data}\x1b[0m\r\n${mine.data}\x1b[0m\r\n`);
          expect({ rows, cells: cellRows(replay.term, true).slice(0, 3) }).toEqual({ rows, cells: want });
        } finally {
          replay.term.dispose();
        }
      }
    } finally {
      term.dispose();
    }
  });

  it('writes a line longer than the screen, which draws the same from the bottom of a screen of 1, 2 or 50 rows (the addon\'s wrap at a change of background goes up a row, which one row does not have)', () => {
    // A pane of 2 rows: a line of 4 rows, the background changing at each wrap and a wide character that does not fit.
    const { term, write } = terminal(10, 2);
    try {
      write('x\r\n\x1b[44mabcdefghij\x1b[0mklmnopq\x1b[45mrs\x1b[46m世界\x1b[0muv\x1b[41mwxyz\x1b[0m!\r\n');
      const cells = normalBuffer(term).lines;
      expect(term.buffer.normal.getLine(4)!.isWrapped).toBe(true);
      const line = encodeLine(cells, 1, 4)!;
      expect(line.text).toBe(`abcdefghijklmnopqrs世界uvwxyz!`);
      const want = cellRows(term, true).slice(1, 5);
      for (const rows of [1, 2, 50]) {
        const replay = reference(10, rows, 100);
        try {
          replay.write(`x\x1b[0m\r\n${line.data}\x1b[0m\r\n`);
          expect({ rows, cells: cellRows(replay.term, true).slice(1, 5) }).toEqual({ rows, cells: want });
        } finally {
          replay.term.dispose();
        }
      }
    } finally {
      term.dispose();
    }
  });

  it('keeps a wide character at the row\'s end whose second cell is an empty one with a background (where the addon\'s range wipes it)', () => {
    const { term, ser, write } = terminal(5, 4);
    try {
      write('\x1b[44mabc世\x1b[0m\r\n');
      const cells = normalBuffer(term).lines;
      // Its placeholder an empty cell of width 1 in the same colour, as a random stream of erases and wide characters left one.
      cells.get(0)!._data[4 * 3] = 1 << 22;
      const got = encodeLine(cells, 0, 0)!;
      expect(got.text).toBe('abc世');
      const rows = (data: string) => drawn(data, 5)[0];
      const addon = addonRows(ser, 0);
      expect(rows(got.data)).toEqual(rows(addon.replace('\x1b[1X', '')));
      // (The addon's range writes an erase of that cell after the character, which wipes it: the encoder does not.)
      expect(addon).toContain('世\x1b[1X');
    } finally {
      term.dispose();
    }
  });

  it('reads its text as xterm does where a wide character\'s second half was overwritten (a reflow leaves such cells)', () => {
    const { term, ser, write } = terminal(5, 4);
    try {
      write('O世界');
      const cells = normalBuffer(term).lines;
      // The cell after 界 (its second half) holding an 'i' of width 1, as a resize left one in a random stream.
      cells.get(0)!._data[4 * 3] = (1 << 22) | 0x69;
      const got = encodeLine(cells, 0, 0)!;
      expect(got.text).toBe(term.buffer.normal.getLine(0)!.translateToString(true));
      expect(drawn(got.data, 5)).toEqual(drawn(addonRows(ser, 0), 5));
    } finally {
      term.dispose();
    }
  });

  it('writes an erase with a background and a hyperlink\'s cells, and makes a wrap the text could not (a row cut short before it)', () => {
    const { term, write } = terminal(10, 4);
    try {
      // Row 0: red to the end (an erase). Row 1: a hyperlink. Rows 2-3: a wrapped line whose first row is then cut short. Rows 4-8: 45 characters.
      write('\x1b[41mred\x1b[K\x1b[0m\r\n\x1b]8;;http://x.test/\x07link\x1b]8;;\x07\r\nabcdefghijk\x1b[A\x1b[8G\x1b[K\x1b[B\r\n' + 'x'.repeat(45) + '\r\n');
      const cells = normalBuffer(term).lines;
      expect(encodeLine(cells, 0, 0)).toEqual({ data: '\x1b[41mred\x1b[7X', text: 'red' });
      // xterm gives a hyperlink's cells a dashed underline, which the addon writes as an underline: so does the encoder.
      expect(encodeLine(cells, 1, 1)).toEqual({ data: '\x1b[4mlink', text: 'link' });
      expect(term.buffer.normal.getLine(3)!.isWrapped).toBe(true);
      // (Made: a wide character in the last column, which xterm wraps, then erased with the new row.)
      const made = encodeLine(cells, 2, 3)!;
      expect(made).toEqual({ data: 'abcdefg\x1b[2C世\x1b[2D\x1b[10Xk', text: 'abcdefgk' });
      expect(drawn(made.data, 10).slice(0, 2)).toEqual(cellRows(term, true).slice(2, 4));
      expect(term.buffer.normal.getLine(8)!.isWrapped).toBe(true);
      // A line longer than the screen: written as any other.
      expect(encodeLine(cells, 4, 8)).toEqual({ data: 'x'.repeat(45), text: 'x'.repeat(45) });
    } finally {
      term.dispose();
    }
  });
});
