/**
 * A headless screen's oldest scrollback, kept as text (issue 11: memory). xterm keeps 12
 * bytes a cell, so 10,000 lines of 120 columns hold ~14 MiB whatever the lines say; the
 * screen keeps only its newest rows in xterm's buffer and moves older ones here, each
 * logical line (a row and the rows it wrapped into) serialized on its own from xterm's
 * cells (main/panes/line-encode.ts, or the serialize addon), or kept as it came where the
 * screen knows that replays to the same cells (addRun: a run of such lines kept as the one
 * string they came in, its lines' text made when read), with its text beside it: a few
 * bytes a character.
 *
 * What the archive holds is exactly what the buffer held: a snapshot replays it before the
 * buffer's own rows; its text leads the screen's; when the pane's width changes, its long
 * lines are drawn at the old width and reflowed by xterm as the buffer's are; and when the
 * scrollback is full, its oldest rows go first, a wrapped line losing its first rows as the
 * buffer would.
 */
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { directLineText } from './compact.ts';
import { attrUnderline, cellChars, encodeLine, flat, sgrBetween, underlineAt, type CellLine } from './line-encode.ts';

type Term = InstanceType<typeof headless.Terminal>;
type Serializer = InstanceType<typeof serialize.SerializeAddon>;

/** Rows drawn again at a time when the width changes. */
const REFLOW_BATCH_ROWS = 2_000;

/** A logical line: its serialization (from default attributes, at the top-left), its text, its rows. */
interface Line {
  data: string;
  text: string;
  rows: number;
}

/**
 * Lines of one row each that the screen took as they came (Screen.takeDirect: printable ASCII
 * and SGRs, ending in the default attributes), kept as the one string they came in, each
 * line followed by its CR LF: `count` of them. A flood's catch-up adds ~10,000 lines twice a
 * second and the next one drops them all: as a run they are one string, never split into a
 * line object and two strings each (for `yes`, ~40 bytes a one-byte line) that old
 * collections then have to find. A run is split into lines only where they are read one by
 * one: a resize's reflow, allText; a snapshot and the scrollback limit cut it where needed.
 */
interface Run {
  run: string;
  count: number;
}

type Entry = Line | Run;

const isRun = (e: Entry): e is Run => (e as Run).run !== undefined;
const rowsOf = (e: Entry): number => (isRun(e) ? e.count : e.rows);

/** Where the last `k` lines of a run start (0: all of them). */
function tailStart(run: string, k: number): number {
  let at = run.length - 1;
  for (let j = 0; j < k && at >= 0; j++) at = run.lastIndexOf('\n', at - 1);
  return at + 1;
}

/** A run without its first `k` lines. */
function dropRunLines(e: Run, k: number): Run {
  let at = 0;
  for (let j = 0; j < k; j++) at = e.run.indexOf('\n', at) + 1;
  return { run: e.run.slice(at), count: e.count - k };
}

/** A run's lines as archived lines (their text without the SGRs). */
function splitRun(e: Run): Line[] {
  const out: Line[] = [];
  for (let at = 0; at < e.run.length; ) {
    const lf = e.run.indexOf('\n', at);
    const data = e.run.slice(at, lf - 1);
    out.push({ data, text: directLineText(data, Infinity) ?? data, rows: 1 });
    at = lf + 1;
  }
  return out;
}

/**
 * The serialize addon (0.14) writes a move of 0 columns where a wrapped line's first row is
 * empty, which a terminal reads as a move of one (CSI 0 C is CSI 1 C), leaving a '-' of its
 * wrapping trick on the screen. A move of 0 is no move: this drops them.
 */
export function withoutNullMoves(serialized: string): string {
  return serialized.includes('\x1b[0') ? serialized.replace(/\x1b\[0[CD]/g, '') : serialized;
}

/**
 * The serialize addon's snapshot of `term` (its screen and `scrollback` rows, the alternate
 * screen if in use, then the modes), mended (withoutNullMoves), with the cursor put where it
 * is by an absolute move before the modes. The addon moves it from the end of what it wrote,
 * counting from past the last column when that ends a row, where xterm counts from the last
 * column: a cursor left on a row below one written to its end came back a column short
 * (issue 38). At the row's end itself (xterm's pending wrap, which no move can make), the
 * addon's own way stands.
 */
export function snapshotOf(term: Term, ser: Serializer, scrollback: number): string {
  const b = term.buffer.active;
  const cursor = b.cursorX < term.cols ? `\x1b[${b.cursorY + 1};${b.cursorX + 1}H` : pendingWrap(term);
  const normal = normalBuffer(term);
  const alt = (term as unknown as { _core: { _bufferService: { buffers: { alt: { lines: BufferView['lines'] } } } } })._core._bufferService.buffers.alt;
  const from = Math.max(0, term.buffer.normal.length - term.rows - scrollback);
  const data = withWholeWideChars([[normal.lines, from, normal.lines.length - 1], ...(b.type === 'alternate' ? [[alt.lines, 0, alt.lines.length - 1] as const] : [])], () => ser.serialize({ scrollback, excludeModes: true }));
  return withoutNullMoves(data) + cursor + modesOf(term);
}

/**
 * A snapshot of `term`'s buffer (its screen and `scrollback` rows) as a screen with an
 * archive serves it after the archive's lines (Screen.serialize): the rows of history above
 * the line the screen's first row belongs to read from the cells, a line at a time, as the
 * archive's are (replayRows: line-encode.ts, which makes a wrap the addon's does not draw
 * back, issue 38); the screen, and a line wrapped onto it, the serialize addon's, with its
 * cursor and modes (snapshotOf).
 */
export function bufferSnapshot(term: Term, ser: Serializer, scrollback: number): string {
  const base = term.buffer.normal.baseY;
  const start = Math.max(0, base - scrollback);
  const from = Math.max(start, lineStart(term, base));
  return (from > start ? replayRows(term, ser, start, from - 1, term.rows) : '') + snapshotOf(term, ser, base - from);
}

/** xterm's cell layout: a cell's width above its content's bits (src/common/buffer/Constants.ts). */
const WIDTH_SHIFT = 22;

/**
 * `f` (a serialization) run while each wide character whose second cell xterm made an empty
 * cell of width 1 has its placeholder back, as a replay of the character makes it; the cells
 * are put back as they were after. xterm (6.0.0) leaves such a cell with autowrap off: a
 * wide character that does not fit in the last column is dropped, and the print's end then
 * empties the placeholder right of the cursor, the wide character before's. The serialize
 * addon counts that cell as an empty one: at a row's end it erases it where it thinks its
 * background differs (its model of the background a scroll fills rows with; on a screen of
 * one row, from the second row on), from the column past the wide character, which xterm
 * reads as the last column: the erase wiped the wide character the pane still shows (issue
 * 38, archive seeds 227 and 682). The archive's line encoder skips such a cell (line-encode.ts).
 */
export function withWholeWideChars<T>(ranges: ReadonlyArray<readonly [BufferView['lines'], number, number]>, f: () => T): T {
  const mended: Array<[Uint32Array, number]> = [];
  for (const [lines, start, end] of ranges) {
    for (let y = start; y <= end; y++) {
      const line = lines.get(y);
      if (!line) continue;
      const d = line._data;
      for (let x = 1; x < line.length; x++) {
        if (d[x * 3] === 1 << WIDTH_SHIFT && d[(x - 1) * 3]! >>> WIDTH_SHIFT === 2) {
          mended.push([d, x * 3]);
          d[x * 3] = 0;
        }
      }
    }
  }
  try {
    return f();
  } finally {
    for (const [d, at] of mended) d[at] = 1 << WIDTH_SHIFT;
  }
}

/**
 * The cursor past the last column (xterm's pending wrap: a row written to its end, the next
 * character goes to the next row) as a replay makes it: the row's last character written
 * again where it is, in its own attributes, then the attributes in force put back. The
 * addon moves the cursor back from where its rows end, and a move stops at the last column:
 * below such a row with rows after it, the next character a window was sent overwrote the
 * row's last one where the pane wrote it on the next row (issue 38, archive seed 3388). Where
 * that cell is empty (nothing to write again) the addon's own way stands.
 */
function pendingWrap(term: Term): string {
  const core = (term as unknown as { _core: { _bufferService: { buffer: { lines: BufferView['lines']; ybase: number; y: number } }; _inputHandler: { _curAttrData: { fg: number; bg: number; extended?: { underlineStyle: number } } } } })._core;
  const buf = core._bufferService.buffer;
  const line = buf.lines.get(buf.ybase + buf.y);
  if (!line) return '';
  const d = line._data;
  let x = term.cols - 1;
  // The second cell of a wide character: the character is written from its first.
  if (x > 0 && d[x * 3]! >>> WIDTH_SHIFT === 0 && d[(x - 1) * 3]! >>> WIDTH_SHIFT === 2) x--;
  const chars = cellChars(line, x);
  if (!chars) return '';
  const fg = d[x * 3 + 1]!;
  const bg = d[x * 3 + 2]!;
  const ul = underlineAt(line, x, fg, bg);
  const cur = core._inputHandler._curAttrData;
  const curUl = attrUnderline(cur.fg, cur.bg, cur.extended);
  return `\x1b[${term.buffer.active.cursorY + 1};${x + 1}H${sgrBetween(cur.fg, cur.bg, curUl, fg, bg, ul)}${chars}${sgrBetween(fg, bg, ul, cur.fg, cur.bg, curUl)}`;
}

/** The modes as the serialize addon (0.14) writes them at a snapshot's end. */
function modesOf(term: Term): string {
  const m = term.modes;
  let s = '';
  if (m.applicationCursorKeysMode) s += '\x1b[?1h';
  if (m.applicationKeypadMode) s += '\x1b[?66h';
  if (m.bracketedPasteMode) s += '\x1b[?2004h';
  if (m.insertMode) s += '\x1b[4h';
  if (m.originMode) s += '\x1b[?6h';
  if (m.reverseWraparoundMode) s += '\x1b[?45h';
  if (m.sendFocusMode) s += '\x1b[?1004h';
  if (m.wraparoundMode === false) s += '\x1b[?7l';
  const mouse: Record<string, string> = { x10: '\x1b[?9h', vt200: '\x1b[?1000h', drag: '\x1b[?1002h', any: '\x1b[?1003h' };
  return s + (mouse[m.mouseTrackingMode] ?? '');
}

/**
 * The serialize addon's wrap of a row whose last `n` cells are empty (the cell a wide
 * character did not fit in, an erase) onto the next row: `n + 1` dashes (the last one wraps),
 * CSI 1 D, CSI 1 X (that one erased), then CSI A, CSI cols-n C, CSI n X, CSI cols-n D, CSI B
 * (up to erase the others, and back; a row with nothing on it has moves of 0, which
 * withoutNullMoves drops). Groups: the dashes, the three counts.
 */
const DASH_WRAP = /(-+)\x1b\[1D\x1b\[1X\x1b\[A(?:\x1b\[(\d+)C)?\x1b\[(\d+)X(?:\x1b\[(\d+)D)?\x1b\[B|\x1b\[([0-9;]*)m/g;

/** SGR attributes the addon writes, as on and off codes (22 turns both bold and dim off). */
const SGR_FLAGS: ReadonlyArray<readonly [number, number]> = [[1, 22], [2, 22], [3, 23], [4, 24], [5, 25], [7, 27], [8, 28], [9, 29], [53, 55]];

/**
 * A snapshot for a screen of one row (issue 38): the addon's wrap of a row that ends in empty
 * cells (DASH_WRAP) goes up a row to erase its dashes, and a screen of one row has no row
 * above the cursor: the dashes stayed in the row above (scrolled out) and the erase painted
 * the end of the row below with the background in force. Here the empty cells are erased
 * first, where the cursor is, and the wrap is made by a wide character written in the last
 * column, which does not fit there: xterm moves it to the next row, marks that row wrapped
 * and empties the cell it left with the attributes in force, which are made the erase's for
 * it (the background only); the wide character is erased as the dash was, and the
 * attributes put back as they were (followed through every SGR before). The same cells as
 * the addon's sequence makes on a taller screen, drawn without leaving the row.
 */
export function forOneRow(serialized: string, cols: number): string {
  if (!serialized.includes('\x1b[A')) return serialized;
  let fg = '';
  let bg = '';
  const on = new Set<number>();
  return serialized.replace(DASH_WRAP, (whole, dashes: string | undefined, right: string | undefined, erase: string, left: string | undefined, sgr: string | undefined) => {
    if (dashes === undefined) {
      const ps = (sgr ?? '').split(';').map((p) => (p === '' ? 0 : Number(p)));
      for (let i = 0; i < ps.length; i++) {
        const p = ps[i]!;
        if (p === 0) {
          fg = bg = '';
          on.clear();
        } else if (p === 38 || p === 48) {
          const n = ps[i + 1] === 5 ? 3 : ps[i + 1] === 2 ? 5 : 1;
          const colour = ps.slice(i, i + n).join(';');
          if (p === 38) fg = colour;
          else bg = colour;
          i += n - 1;
        } else if ((p >= 30 && p <= 37) || (p >= 90 && p <= 97)) fg = String(p);
        else if ((p >= 40 && p <= 47) || (p >= 100 && p <= 107)) bg = String(p);
        else if (p === 39) fg = '';
        else if (p === 49) bg = '';
        else {
          for (const [set, reset] of SGR_FLAGS) {
            if (p === set) on.add(set);
            else if (p === reset) on.delete(set);
          }
        }
      }
      return whole;
    }
    const n = Number(erase);
    if (dashes.length < n + 1 || Number(right ?? 0) !== cols - n || Number(left ?? 0) !== cols - n) return whole;
    const attrs = ['0', fg, bg, ...on].filter((a) => a !== '').join(';');
    return `${dashes.slice(0, dashes.length - n - 1)}\x1b[${n}X${n > 1 ? `\x1b[${n - 1}C` : ''}\x1b[0${bg ? `;${bg}` : ''}m世\x1b[2D\x1b[2X\x1b[${attrs}m`;
  });
}

/**
 * Serialization of rows [start, end] of `term`'s normal buffer, and their text (wrapped rows
 * joined): read from the cells (main/panes/line-encode.ts), or by the serialize addon where
 * the line needs its special cases.
 */
function take(term: Term, ser: Serializer, start: number, end: number): Line {
  const fast = encodeLine(normalBuffer(term).lines, start, end);
  if (fast) return { data: fast.data, text: fast.text, rows: end - start + 1 };
  const data = withoutNullMoves(withWholeWideChars([[normalBuffer(term).lines, start, end]], () => ser.serialize({ range: { start, end }, excludeModes: true, excludeAltBuffer: true })));
  const buf = term.buffer.normal;
  let text = '';
  for (let y = start; y <= end; y++) text += buf.getLine(y)?.translateToString(true) ?? '';
  // Both were built a piece at a time (a rope of small strings, ~30 bytes a piece): kept for
  // long, they are flattened into one string each.
  return { data: flat(data), text: flat(text), rows: end - start + 1 };
}

/**
 * A scratch terminal of `cols` holding `lines` from its first row, each ended as a snapshot
 * ends it, the cursor on the row after the last; `scrollback` rows of room.
 */
function render(lines: Line[], cols: number, scrollback: number): { term: Term; ser: Serializer } {
  const term = new headless.Terminal({ cols, rows: 2, scrollback, allowProposedApi: true, logLevel: 'off' });
  const ser = new serialize.SerializeAddon();
  term.loadAddon(ser);
  (term as unknown as { _core: { writeSync(d: string): void } })._core.writeSync(lines.map((l) => `${l.data}\x1b[0m\r\n`).join(''));
  return { term, ser };
}

/** The last row `render` drew (the row above the cursor's). */
function lastRendered(term: Term): number {
  const buf = term.buffer.normal;
  return buf.baseY + buf.cursorY - 1;
}

/** Rows [start, end] of the normal buffer, one logical line at a time, onto `into`; the rows taken. */
function takeLines(term: Term, ser: Serializer, start: number, end: number, into: Entry[]): number {
  const lines = normalBuffer(term).lines;
  let rows = 0;
  for (let y = start; y <= end; ) {
    let last = y;
    while (last + 1 <= end && lines.get(last + 1)?.isWrapped) last++;
    const line = take(term, ser, y, last);
    into.push(line);
    rows += line.rows;
    y = last + 1;
  }
  return rows;
}

/** Rows of the normal buffer that start a logical line (not wrapped from the row before), from `from` down. */
export function lineStart(term: Term, from: number): number {
  const lines = normalBuffer(term).lines;
  let y = from;
  while (y > 0 && lines.get(y)?.isWrapped) y--;
  return y;
}

/** The parts of @xterm/headless 6.0.0's normal buffer the archive uses (not public API: checked by screen.test.ts). */
interface BufferView {
  lines: { length: number; get(index: number): CellLine | undefined; trimStart(count: number): void; set(index: number, value: unknown): void; onTrim(listener: (count: number) => void): { dispose(): void } };
  ybase: number;
  ydisp: number;
  /** Where DECSC saved the cursor's row: an index into the lines (screen row + ybase), not a screen row. */
  savedY: number;
  /** Markers on the lines (a prompt's, a hyperlink's), each at an index into the lines. */
  markers: Array<{ line: number; isDisposed: boolean }>;
}

/** The normal buffer's internals, or an error saying what the archive needs. */
export function normalBuffer(term: Term): BufferView {
  const b = (term as unknown as { _core?: { _bufferService?: { buffers?: { normal?: Partial<BufferView> } } } })._core?._bufferService?.buffers?.normal;
  if (!b || typeof b.lines?.trimStart !== 'function' || typeof b.lines.get !== 'function' || typeof b.lines.set !== 'function' || typeof b.lines.onTrim !== 'function' || typeof b.ybase !== 'number' || typeof b.ydisp !== 'number' || typeof b.savedY !== 'number' || !Array.isArray(b.markers)) {
    throw new Error('@xterm/headless has no normal buffer with lines.get, trimStart, set and onTrim, ybase, ydisp, savedY and markers, which the scrollback archive reads and trims with: install the version package.json pins (6.0.0) or adapt main/panes/archive.ts.');
  }
  return b as BufferView;
}

/**
 * Drop the normal buffer's top `count` rows, as xterm does when its scrollback shrinks
 * (markers on them are disposed, the others move up), without the resize that setting the
 * option runs (which would reset the scroll region, tab stops and a pending wrap).
 */
export function dropTop(term: Term, count: number): void {
  if (count <= 0) return;
  const b = normalBuffer(term);
  // The list only moves its start past them: let go of the rows (their cells) too.
  for (let y = 0; y < count; y++) b.lines.set(y, undefined);
  b.lines.trimStart(count);
  b.ybase = Math.max(0, b.ybase - count);
  b.ydisp = Math.max(0, b.ydisp - count);
  // Still the same row on the screen (it may now be above the buffer's top, as it would be above the screen's).
  b.savedY -= count;
}

/**
 * Lines' serializations (each from the default attributes, at the top-left) as a snapshot's
 * start: replayed from a blank terminal of `screenRows` rows, they end in its scrollback
 * with the screen blank and the cursor at its top-left, where the buffer's own
 * serialization starts ('' for none).
 */
function replayOf(lines: string[], screenRows: number): string {
  if (lines.length === 0) return '';
  return `${lines.join('\x1b[0m\r\n')}\x1b[0m\r\n${'\n'.repeat(Math.max(0, screenRows - 1))}\x1b[H`;
}

/**
 * Rows [start, end] of the normal buffer (whole lines, but for a first row wrapped from one
 * above it), as a snapshot's start, as Archive.replay writes the archive's lines: each line
 * read from the cells (take), a few times quicker than the serialize addon, which writes
 * every cell through xterm's public API (a window left behind a flood redraws from a
 * snapshot of 100 such rows twice a second).
 */
export function replayRows(term: Term, ser: Serializer, start: number, end: number, screenRows: number): string {
  const lines: Entry[] = [];
  takeLines(term, ser, start, end, lines);
  return replayOf(lines.map((l) => (l as Line).data), screenRows);
}

export class Archive {
  private lines: Entry[] = [];
  private total = 0;

  /** Rows held (as they would sit in the buffer, at the width they were last reflowed to). */
  get rows(): number {
    return this.total;
  }

  /**
   * Move the buffer's top rows here: those above `keep` rows of scrollback, at most `most`
   * (cut where a logical line starts; a line longer than that goes whole). Returns whether
   * rows are left to move.
   */
  moveFrom(term: Term, ser: Serializer, keep: number, most: number): boolean {
    const buf = term.buffer.normal;
    const above = buf.baseY - keep;
    if (above <= 0) return false;
    let cut = lineStart(term, Math.min(above, most));
    if (cut <= 0) {
      // The first line is longer than `most` rows: all of it, if it ends above the rows kept.
      cut = 1;
      while (cut < above && buf.getLine(cut)?.isWrapped) cut++;
      if (buf.getLine(cut)?.isWrapped) return false;
    }
    this.total += takeLines(term, ser, 0, cut - 1, this.lines);
    dropTop(term, cut);
    return cut < above && lineStart(term, buf.baseY - keep) > 0;
  }

  /** Rows [start, end] of the buffer (whole lines) copied here, left where they are. */
  copyFrom(term: Term, ser: Serializer, start: number, end: number): void {
    if (end >= start) this.total += takeLines(term, ser, start, end, this.lines);
  }

  /**
   * `count` lines of one row each, as they came, each followed by its CR LF: a line's own
   * bytes are printable characters and SGRs, the default attributes set at its end
   * (main/panes/compact.ts, isDirectLine). Kept as a run (see Run).
   */
  addRun(run: string, count: number): void {
    if (count <= 0) return;
    this.lines.push({ run, count });
    this.total += count;
  }

  /** Drop the oldest rows until at most `max` are held (the scrollback is full); a wrapped line loses its first rows. */
  trim(max: number, cols: number): void {
    // The oldest rows are counted at the width they are reflowed to: the trim waits for it.
    if (this.reflowing) return;
    let over = this.total - Math.max(0, max);
    let drop = 0;
    while (over > 0 && drop < this.lines.length) {
      const e = this.lines[drop]!;
      const rows = rowsOf(e);
      if (rows <= over) {
        over -= rows;
        this.total -= rows;
        drop++;
        continue;
      }
      // A run loses its first lines (one row each); a wrapped line its first rows, below.
      if (isRun(e)) {
        this.lines[drop] = dropRunLines(e, over);
        this.total -= over;
        over = 0;
      }
      break;
    }
    if (drop > 0) this.lines = this.lines.slice(drop);
    if (over > 0 && this.lines.length > 0) {
      const first = this.lines[0] as Line;
      const { term, ser } = render([first], cols, first.rows + 4);
      try {
        this.lines[0] = take(term, ser, over, Math.max(over, lastRendered(term)));
      } finally {
        term.dispose();
      }
      this.total -= over;
    }
  }

  /**
   * The first `staleEnd` entries are still at the width `staleFrom` and are to be reflowed to
   * `staleTo` (reflow): their rows, counted at the old width, are `staleRows`. They are
   * reflowed newest first, a batch at a time (step), as a snapshot needs them (replay) or in
   * the screen's quiet turns; all at once where everything is read (text, a second resize).
   */
  private staleEnd = 0;
  private staleFrom = 0;
  private staleTo = 0;
  private staleRows = 0;

  /** Whether some lines are still at a width the pane had before (reflow). */
  get reflowing(): boolean {
    return this.staleEnd > 0;
  }

  /**
   * The width changed from `from` to `to`: the lines are to be drawn again at the old width
   * and reflowed by xterm as it reflows the buffer, a batch at a time (see staleEnd): a
   * resize no longer reflows 10,000 lines before the pane's screen can be drawn (issue 38,
   * item 4). Lines added from now on are at the new width.
   */
  reflow(from: number, to: number): void {
    if (from === to || this.lines.length === 0) return;
    // A second resize before the first is done: the first is finished (the lines go through every width, as the buffer's do).
    this.finish();
    this.staleEnd = this.lines.length;
    this.staleFrom = from;
    this.staleTo = to;
    this.staleRows = this.total;
  }

  /** Reflow the newest batch of the lines still at the old width; whether any are left. */
  step(batchRows = REFLOW_BATCH_ROWS): boolean {
    if (this.staleEnd === 0) return false;
    let start = this.staleEnd;
    let rows = 0;
    while (start > 0 && (start === this.staleEnd || rows < batchRows)) {
      const e = this.lines[start - 1]!;
      const need = batchRows - rows;
      if (isRun(e) && e.count > need) {
        // A run longer than the batch (a flood's lines come in runs of thousands): its last lines apart.
        const at = tailStart(e.run, need);
        this.lines.splice(start - 1, 1, { run: e.run.slice(0, at), count: e.count - need }, { run: e.run.slice(at), count: need });
        start++;
        this.staleEnd++;
      }
      rows += rowsOf(this.lines[--start]!);
    }
    const lines = this.lines.slice(start, this.staleEnd).flatMap((e) => (isRun(e) ? splitRun(e) : [e]));
    const out: Entry[] = [];
    const { term, ser } = render(lines as Line[], this.staleFrom, rows * Math.ceil(this.staleFrom / this.staleTo) + 4);
    let taken: number;
    try {
      term.resize(this.staleTo, 2);
      taken = takeLines(term, ser, 0, lastRendered(term), out);
    } finally {
      term.dispose();
    }
    this.lines.splice(start, this.staleEnd - start, ...out);
    this.total += taken - rows;
    this.staleRows -= rows;
    this.staleEnd = start;
    return start > 0;
  }

  /** Reflow every line still at the old width. */
  finish(): void {
    while (this.step());
  }

  /**
   * The last `rows` rows (whole lines: a few more at most), as a snapshot's start: replayed
   * from a blank terminal of `screenRows` rows, they end in its scrollback with the screen
   * blank and the cursor at its top-left, where the buffer's own serialization starts.
   */
  replay(rows: number, screenRows: number): string {
    // The rows asked for at the pane's width: the newest lines still at the old one reflowed first (a few more than asked: a narrower width makes more rows of them).
    while (this.reflowing && this.total - this.staleRows < rows) this.step(Math.min(REFLOW_BATCH_ROWS, rows - (this.total - this.staleRows) + 1));
    // Newest first: whole lines, and of a run only the lines asked for.
    const parts: string[] = [];
    for (let i = this.lines.length - 1, n = 0; i >= 0 && n < rows; i--) {
      const e = this.lines[i]!;
      if (!isRun(e)) {
        parts.push(e.data);
        n += e.rows;
        continue;
      }
      const k = Math.min(e.count, rows - n);
      // Its lines as the others are joined: each line's own bytes, then a reset and CR LF.
      parts.push(e.run.slice(tailStart(e.run, k), e.run.length - 2).replaceAll('\r\n', '\x1b[0m\r\n'));
      n += k;
    }
    return replayOf(parts.reverse(), screenRows);
  }

  /** Every line's text, oldest first. */
  text(): string[] {
    this.finish();
    return this.lines.flatMap((e) => (isRun(e) ? splitRun(e).map((l) => l.text) : [e.text]));
  }

  clear(): void {
    this.lines = [];
    this.total = 0;
    this.staleEnd = 0;
    this.staleRows = 0;
  }
}
