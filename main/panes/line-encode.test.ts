/**
 * The archive's line encoder against xterm's serialize addon: for every logical line of
 * terminals fed random coloured output (palette, 256 and RGB colours, every flag, wide and
 * combining characters, tabs and cursor moves leaving empty cells, erases with a
 * background, long wrapped lines, hyperlinks and underline styles), what the encoder
 * writes draws the same cells as what the addon writes, and its text is xterm's.
 */
import { describe, expect, it } from 'vitest';
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { normalBuffer, withoutNullMoves } from './archive.ts';
import { encodeLine } from './line-encode.ts';

type Term = InstanceType<typeof headless.Terminal>;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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

function terminal(cols: number, rows: number): { term: Term; ser: InstanceType<typeof serialize.SerializeAddon>; write(d: string): void } {
  const term = new headless.Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true, logLevel: 'off' });
  const ser = new serialize.SerializeAddon();
  term.loadAddon(ser);
  const core = (term as unknown as { _core: { writeSync(d: string): void } })._core;
  return { term, ser, write: (d) => core.writeSync(d) };
}

/** Every cell a replay of `data` (from the top-left of a blank terminal) draws: characters, width, colours and flags, empty cells' background too. */
function drawn(data: string, cols: number): string[] {
  const { term, write } = terminal(cols, 50);
  try {
    write(data);
    const b = term.buffer.normal;
    const cell = b.getNullCell();
    const rows: string[] = [];
    for (let y = 0; y < b.length; y++) {
      const line = b.getLine(y)!;
      let row = line.isWrapped ? '~' : '';
      for (let x = 0; x < line.length; x++) {
        line.getCell(x, cell);
        row += `${cell.getChars() || '.'}${cell.getWidth()}[${cell.getFgColorMode()}:${cell.getFgColor()}/${cell.getBgColorMode()}:${cell.getBgColor()}/${[cell.isBold(), cell.isDim(), cell.isItalic(), cell.isUnderline(), cell.isBlink(), cell.isInverse(), cell.isInvisible(), cell.isStrikethrough(), cell.isOverline()].map(Number).join('')}]`;
      }
      rows.push(row);
    }
    return rows;
  } finally {
    term.dispose();
  }
}

describe('encodeLine', () => {
  it('draws every logical line as the serialize addon does, and gives xterm\'s text, across 16 random streams', () => {
    let fast = 0;
    let lines = 0;
    for (let seed = 1; seed <= 16; seed++) {
      const cols = 20 + (seed % 5) * 17;
      const { term, ser, write } = terminal(cols, 10);
      try {
        write(output(seed));
        const buf = term.buffer.normal;
        const cells = normalBuffer(term).lines;
        for (let y = 0; y < buf.length; ) {
          let last = y;
          while (last + 1 < buf.length && buf.getLine(last + 1)!.isWrapped) last++;
          lines++;
          const got = encodeLine(cells, y, last, term.rows);
          if (got) {
            fast++;
            const addon = withoutNullMoves(ser.serialize({ range: { start: y, end: last }, excludeModes: true, excludeAltBuffer: true }));
            expect(drawn(got.data, cols), `seed ${seed}, rows ${y}-${last}: ${JSON.stringify(got.data)} against ${JSON.stringify(addon)}`).toEqual(drawn(addon, cols));
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
  }, 120_000);

  it('writes an erase with a background and a hyperlink\'s cells, and gives up, for the addon, on a wrap the text could not make and on a line longer than the screen', () => {
    const { term, write } = terminal(10, 4);
    try {
      // Row 0: red to the end (an erase). Row 1: a hyperlink. Rows 2-3: a wrapped line whose first row is then cut short. Rows 4-8: 45 characters.
      write('\x1b[41mred\x1b[K\x1b[0m\r\n\x1b]8;;http://x.test/\x07link\x1b]8;;\x07\r\nabcdefghijk\x1b[A\x1b[8G\x1b[K\x1b[B\r\n' + 'x'.repeat(45) + '\r\n');
      const cells = normalBuffer(term).lines;
      expect(encodeLine(cells, 0, 0, 4)).toEqual({ data: '\x1b[41mred\x1b[7X', text: 'red' });
      // xterm gives a hyperlink's cells a dashed underline, which the addon writes as an underline: so does the encoder.
      expect(encodeLine(cells, 1, 1, 4)).toEqual({ data: '\x1b[4mlink', text: 'link' });
      expect(term.buffer.normal.getLine(3)!.isWrapped).toBe(true);
      expect(encodeLine(cells, 2, 3, 4)).toBeUndefined();
      expect(term.buffer.normal.getLine(8)!.isWrapped).toBe(true);
      expect(encodeLine(cells, 4, 8, 4)).toBeUndefined();
      expect(encodeLine(cells, 4, 8, 24)).toEqual({ data: 'x'.repeat(45), text: 'x'.repeat(45) });
    } finally {
      term.dispose();
    }
  });
});
