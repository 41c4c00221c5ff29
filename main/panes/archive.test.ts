/**
 * The archive's runs (lines kept as the one string they came in, Archive.addRun): what a
 * snapshot replays of them, their text, the scrollback limit cutting one, and a resize
 * reflowing them, each against the lines themselves or a real @xterm/headless.
 */
import { describe, expect, it } from 'vitest';
import headless from '@xterm/headless';
import { Archive, forOneRow, snapshotOf } from './archive.ts';
import { reference, visibleCells } from './screen-testing.ts';

const LINES = ['first', '\x1b[31mred\x1b[0m and plain', '', 'a line of twenty-two.', '\x1b[1;4mbold\x1b[m', 'last'];
const run = (lines: string[]): string => lines.map((l) => `${l}\r\n`).join('');
const texts = (lines: string[]): string[] => lines.map((l) => l.replace(/\x1b\[[0-9;:]*m/g, ''));

/** A terminal of `cols` and `rows` fed `data`: its buffer's lines as text, blank screen rows left out. */
function shown(data: string, cols: number, rows: number): Promise<string[]> {
  const term = new headless.Terminal({ cols, rows, scrollback: 1_000, allowProposedApi: true, logLevel: 'off' });
  return new Promise((resolve) =>
    term.write(data, () => {
      const buf = term.buffer.normal;
      const out: string[] = [];
      for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)!.translateToString(true));
      term.dispose();
      resolve(out.slice(0, buf.baseY));
    }),
  );
}

describe('the archive keeps a flood\'s lines as runs', () => {
  it('replays exactly the rows asked for, across runs, as the lines one by one would be replayed', async () => {
    const a = new Archive();
    a.addRun(run(LINES.slice(0, 2)), 2);
    a.addRun(run(LINES.slice(2)), 4);
    expect(a.rows).toBe(6);
    // The last three: the second run's last three lines, each with a reset before its CR LF, then a blank screen of 3 rows and the cursor home.
    expect(a.replay(3, 3)).toBe(`${LINES.slice(3).join('\x1b[0m\r\n')}\x1b[0m\r\n\n\n\x1b[H`);
    // Five: the first run's last line too.
    expect(a.replay(5, 2)).toBe(`${LINES.slice(1).join('\x1b[0m\r\n')}\x1b[0m\r\n\n\x1b[H`);
    expect(a.replay(99, 2)).toBe(`${LINES.join('\x1b[0m\r\n')}\x1b[0m\r\n\n\x1b[H`);
    // What a window replaying them holds.
    expect(await shown(a.replay(4, 3), 30, 3)).toEqual(texts(LINES.slice(2)));
    expect(a.text()).toEqual(texts(LINES));
  });

  it('cuts the oldest lines off a run when the scrollback is full, and drops whole runs', () => {
    const a = new Archive();
    a.addRun(run(LINES.slice(0, 3)), 3);
    a.addRun(run(LINES.slice(3)), 3);
    a.trim(5, 30);
    expect(a.rows).toBe(5);
    expect(a.text()).toEqual(texts(LINES.slice(1)));
    a.trim(2, 30);
    expect(a.rows).toBe(2);
    expect(a.text()).toEqual(texts(LINES.slice(4)));
    expect(a.replay(2, 1)).toBe(`${LINES.slice(4).join('\x1b[0m\r\n')}\x1b[0m\r\n\x1b[H`);
    a.trim(0, 30);
    expect(a.rows).toBe(0);
    expect(a.replay(5, 1)).toBe('');
  });

  it('reflows a run\'s lines to a narrower width as xterm reflows them', async () => {
    const a = new Archive();
    a.addRun(run(LINES), LINES.length);
    a.reflow(30, 10);
    // Not yet: the lines are reflowed as they are needed (issue 38, item 4).
    expect(a.reflowing).toBe(true);
    expect(a.rows).toBe(LINES.length);
    a.finish();
    expect(a.reflowing).toBe(false);
    // 'red and plain' (13) and 'a line of twenty-two.' (21) wrap: 2 and 3 rows.
    expect(a.rows).toBe(LINES.length + 1 + 2);
    expect(a.text()).toEqual(texts(LINES));
    const rows = await shown(a.replay(a.rows, 2), 10, 2);
    expect(rows).toEqual(['first', 'red and pl', 'ain', '', 'a line of ', 'twenty-two', '.', 'bold', 'last']);
  });

  it('reflows only the newest lines a snapshot asks for, newest first, the rest when needed, to the same end', async () => {
    const a = new Archive();
    a.addRun(run(LINES), LINES.length);
    const eager = new Archive();
    eager.addRun(run(LINES), LINES.length);
    a.reflow(30, 10);
    eager.reflow(30, 10);
    eager.finish();
    // The last two lines ('bold', 'last'): reflowed alone, the older ones left at the old width.
    const tail = await shown(a.replay(2, 2), 10, 2);
    expect(tail).toEqual(['bold', 'last']);
    expect(a.reflowing).toBe(true);
    // A second resize finishes the first, then waits too; every line goes through both widths.
    a.reflow(10, 12);
    eager.reflow(10, 12);
    eager.finish();
    expect(a.text()).toEqual(eager.text());
    expect(a.rows).toBe(eager.rows);
    expect(await shown(a.replay(a.rows, 2), 12, 2)).toEqual(await shown(eager.replay(eager.rows, 2), 12, 2));
  });
});

describe('a snapshot mends the serialize addon', () => {
  it('puts the cursor back where it is when a row above it was written to its last column (the addon\'s move came a column short)', () => {
    const { term, ser, write } = reference(10, 4, 100);
    try {
      // A row written to its end, then a line feed alone: the cursor on the next row, in the last column.
      write('abcdefghij\nx\x1b[2;5H');
      const at = (data: string) => {
        const w = reference(10, 4, 100);
        try {
          w.write(data);
          return [w.term.buffer.active.cursorX, w.term.buffer.active.cursorY];
        } finally {
          w.term.dispose();
        }
      };
      expect(at(snapshotOf(term, ser, 100))).toEqual([4, 1]);
      write('\x1b[3;10H');
      expect(at(snapshotOf(term, ser, 100))).toEqual([9, 2]);
      // (The addon's own: a column short.)
      expect(at(ser.serialize({ scrollback: 100 }))).toEqual([8, 2]);
      // At the end of a row written to its last column (a pending wrap), as the addon leaves it: the next character wraps.
      write('\x1b[4;1H0123456789');
      const w = reference(10, 4, 100);
      try {
        w.write(`${snapshotOf(term, ser, 100)}Z`);
        expect(w.term.buffer.active.getLine(w.term.buffer.active.baseY + 3)!.translateToString(true)).toBe('Z');
      } finally {
        w.term.dispose();
      }
    } finally {
      term.dispose();
    }
  });

  it('draws, on a screen of one row, a wrap after empty cells as a taller screen draws it (the addon goes up a row to erase, which one row does not have)', () => {
    // A wide character that does not fit (its cell left empty in a colour), and a row cut short by an erase before the wrap;
    // a wrapped row erased whole (the addon's moves of 0 columns dropped).
    const inputs = ['\x1b[41mabcdefghi\x1b[42m世界\x1b[0mxy\x1b[44mz\r\n\x1b[43m0123456789ab\x1b[0m\x1b[1A\x1b[6G\x1b[K\x1b[1B\r\n\x1b[45mone\x1b[1;3mtwo', '\x1b[44mabcdefghijklmnopqrst\x1b[1;4m\x1b[2Kuv\x1b[0mw'];
    for (const [input, rows] of inputs.flatMap((i) => [[i, 1], [i, 2]] as const)) {
      const { term, ser, write } = reference(10, rows, 100);
      try {
        write(input);
        const want = visibleCells(term, true, true);
        const raw = snapshotOf(term, ser, 100);
        // The attributes in force (xterm's, not public API), which the snapshot puts back too.
        const inForce = (t: typeof term) => (t as unknown as { _core: { _inputHandler: { _curAttrData: { fg: number; bg: number } } } })._core._inputHandler._curAttrData;
        const replay = (data: string) => {
          const w = reference(10, rows, 100);
          try {
            w.write(data);
            return { cells: visibleCells(w.term, true, true), x: w.term.buffer.active.cursorX, attrs: { ...inForce(w.term) } };
          } finally {
            w.term.dispose();
          }
        };
        const attrs = inForce(term);
        const got = replay(rows === 1 ? forOneRow(raw, 10) : raw);
        expect({ rows, cells: got.cells, x: got.x, fg: got.attrs.fg, bg: got.attrs.bg }).toEqual({ rows, cells: want, x: term.buffer.active.cursorX, fg: attrs.fg, bg: attrs.bg });
        // The addon's own, on one row: a dash left in the row above and a background painted at the end of the row below.
        if (rows === 1) {
          expect(raw).toContain(input === inputs[1] ? '\x1b[A\x1b[10X\x1b[B' : '\x1b[A\x1b[9C\x1b[1X');
          expect(replay(raw).cells).not.toEqual(want);
        }
      } finally {
        term.dispose();
      }
    }
  });
});
