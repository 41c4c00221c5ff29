/**
 * What the headless screen's tests share (main/panes/screen.test.ts, line-encode.test.ts):
 * a seeded random source, a reference terminal that parses each write before it returns,
 * and a terminal's cells written out row by row to compare.
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { mendEraseAbove } from '../../common/xterm-erase.ts';

type Term = InstanceType<typeof headless.Terminal>;

/** A small seeded PRNG (mulberry32): each failing stream can be replayed by its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A reference terminal that parses each write before it returns (xterm's own synchronous
 * write), with xterm's erase above mended as the screen's and the window's are
 * (common/xterm-erase.ts: xterm's own unwrapped a row of the history, which one depending on
 * how many rows its buffer holds).
 */
export function reference(cols: number, rows: number, scrollback: number): { term: Term; ser: InstanceType<typeof serialize.SerializeAddon>; write(data: string): void } {
  const term = new headless.Terminal({ cols, rows, scrollback, allowProposedApi: true, logLevel: 'off' });
  mendEraseAbove(term);
  const ser = new serialize.SerializeAddon();
  term.loadAddon(ser);
  const core = (term as unknown as { _core: { writeSync(data: string): void } })._core;
  return { term, ser, write: (data) => data && core.writeSync(data) };
}

/**
 * Every row of `term`'s active buffer as a string: a wrapped row starts with '~', each cell
 * is its characters (a wide character's second half too) with its colours and flags; an
 * empty cell is '.' (trailing ones dropped), or with `emptyCells` written like the others
 * (width and background included).
 */
export function cellRows(term: Term, emptyCells = false): string[] {
  return eachRow(term, (cell) => {
    const chars = cell.getChars();
    if (!emptyCells && !chars && cell.getWidth() !== 0) return '.';
    const flags = [cell.isBold(), cell.isUnderline(), cell.isInverse(), cell.isItalic(), cell.isDim(), ...(emptyCells ? [cell.isBlink(), cell.isInvisible(), cell.isStrikethrough(), cell.isOverline()] : [])];
    return `${emptyCells ? `${chars || '.'}${cell.getWidth()}` : chars}[${cell.getFgColorMode()}:${cell.getFgColor()}/${cell.getBgColorMode()}:${cell.getBgColor()}/${flags.map(Number).join('')}]`;
  }).map((row) => (emptyCells ? row : row.replace(/\.+$/, '')));
}

type Cell = ReturnType<Term['buffer']['active']['getNullCell']>;

/** Every row of `term`'s active buffer: '~' first for a wrapped row, then each cell as `cellText` writes it. */
function eachRow(term: Term, cellText: (cell: Cell, x: number, y: number, lineLength: number) => string): string[] {
  const b = term.buffer.active;
  const cell = b.getNullCell();
  const out: string[] = [];
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y)!;
    let row = line.isWrapped ? '~' : '';
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      row += cellText(cell, x, y, line.length);
    }
    out.push(row);
  }
  return out;
}

/* Random streams and a terminal's visible cells (main/panes/screen-history.test.ts, main/service/resume-history.test.ts). */

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

/** An SGR of the kinds programs use: 16, 256 and truecolor colours, attributes set and reset. */
function sgr(r: () => number): string {
  const k = r();
  const n = (m: number) => Math.floor(r() * m);
  if (k < 0.15) return `\x1b[${pick(r, [30, 40, 90, 100]) + n(8)}m`;
  if (k < 0.3) return `\x1b[${pick(r, [38, 48])};5;${n(256)}m`;
  if (k < 0.45) return `\x1b[${pick(r, [38, 48])};2;${n(256)};${n(256)};${n(256)}m`;
  if (k < 0.7) return `\x1b[${pick(r, [1, 3, 4, 7, 22, 23, 24, 27, 39, 49])}m`;
  if (k < 0.8) return `\x1b[1;3;4;7;38;5;${n(256)};48;2;${n(256)};${n(256)};${n(256)}m`;
  return pick(r, ['\x1b[0m', '\x1b[m']);
}

const WIDE = ['世界', '漢字', '😀', 'ｗｉｄｅ', 'e\u0301', 'ü'];
const MOVES = ['\x1b[2A', '\x1b[3C', '\x1b[1;1H', '\x1b[5;10H', '\x1b[B', '\x1b[4D', '\r', '\b', '\t'];
const CLEARS = ['\x1b[K', '\x1b[1K', '\x1b[2K', '\x1b[J', '\x1b[1J', '\x1b[2J', '\x1b[3X'];

/** A line of text with colours and wide characters, perhaps longer than the screen is wide. */
export function textLine(r: () => number, cols: number): string {
  const long = r() < 0.2;
  const n = Math.floor(r() * (long ? cols * 3 : cols));
  let s = '';
  for (let len = 0; len < n; len++) {
    if (r() < 0.15) s += sgr(r);
    if (r() < 0.05) s += pick(r, WIDE);
    else s += String.fromCharCode(33 + Math.floor(r() * 94));
    if (r() < 0.1) s += ' ';
  }
  return s;
}

/** A stream of at least `lines` lines: text, and now and then a cursor move or a clear (often with a colour set). */
export function stream(r: () => number, cols: number, lines: number, moves: boolean): string {
  let out = '';
  for (let i = 0; i < lines; i++) {
    const k = r();
    if (moves && k < 0.05) out += pick(r, MOVES);
    else if (moves && k < 0.1) out += (r() < 0.5 ? sgr(r) : '') + pick(r, CLEARS);
    else if (k < 0.1) out += (r() < 0.5 ? sgr(r) : '') + '\x1b[K';
    out += textLine(r, cols) + (r() < 0.93 ? '\r\n' : r() < 0.5 ? '\n' : '');
  }
  return out;
}

/**
 * Every row as a string: '~' first for a wrapped row; each cell its characters, width,
 * colour modes and values and attributes. An empty cell is what shows of it: its width and
 * background (its foreground too when inverse, which paints with it); the foreground and the
 * other attributes of a cell with nothing in it draw nothing (xterm leaves such a cell with
 * the attributes in force where a wide character did not fit at a row's end). A palette
 * colour is its index, whichever SGR set it: the serialize addon writes 38;5;n under 16 as
 * the 16-colour SGR, which xterm draws the same (the window never brightens bold:
 * drawBoldTextInBrightColors is off).
 */
const mode = (m: number): string => (m === 0 ? 'd' : m === 50_331_648 ? 'rgb' : 'p');

export function visibleCells(term: Term, emptyBg = true, screenBg = false): string[] {
  const b = term.buffer.active;
  return eachRow(term, (cell, x, y, lineLength) => {
    const chars = cell.getChars();
    const bg = `${mode(cell.getBgColorMode())}:${cell.getBgColor()}`;
    if (!chars && cell.getWidth() === 1) {
      // (The cell a wide character did not fit in, at a row's end: the addon writes it back
      // as an erase, which keeps its background and not its inverse.)
      const leftover = x === lineLength - 1 && b.getLine(y + 1)?.isWrapped && b.getLine(y + 1)?.getCell(0)?.getWidth() === 2;
      return !emptyBg || (y >= b.baseY && !screenBg) ? '.' : cell.isInverse() && !leftover ? `.[${mode(cell.getFgColorMode())}:${cell.getFgColor()}/${bg}/i]` : `.[${bg}]`;
    }
    const flags = [cell.isBold(), cell.isItalic(), cell.isUnderline(), cell.isInverse(), cell.isDim(), cell.isBlink(), cell.isInvisible(), cell.isStrikethrough(), cell.isOverline()];
    return `${chars}${cell.getWidth()}[${mode(cell.getFgColorMode())}:${cell.getFgColor()}/${bg}/${flags.map((f) => (f ? 1 : 0)).join('')}]`;
  });
}
