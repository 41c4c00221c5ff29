/**
 * One logical line of a headless screen's buffer as the escape sequences that draw it
 * again, and its text, read straight from xterm's cells (issue 11: the scrollback archive's
 * cost). The serialize addon does the same through xterm's public cell API, one call per
 * cell and every cell of the row, padding included: ~70 µs a line, 0.7 s for the 10,000
 * lines a flood leaves. This reads the packed cells (three 32-bit words each: content,
 * foreground, background) up to the row's last character and builds each string once.
 *
 * It writes what the addon writes for the same cells: the same SGR differences in the same
 * order from the same starting style, a run of empty cells as a cursor move (and an erase
 * where it has a background), wide characters' placeholders skipped. A wrap the text could
 * not have made by itself (a row ending in empty cells, or a next row starting with one) it
 * makes as the addon does not, exactly and without leaving the row (issue 38): see the end
 * of encodeLine. It says `undefined` (the archive then gives the line to the addon) for a
 * row missing or not wrapped where the line says so, and a screen under 3 columns. A line
 * longer than the screen is written as any other (it once went to the addon, whose wrap at
 * a change of background goes up a row, which a screen of one row does not have: issue 38).
 */

/** The parts of @xterm/headless 6.0.0's BufferLine read here (not public API: checked by line-encode.test.ts). */
export interface CellLine {
  readonly length: number;
  isWrapped: boolean;
  _data: Uint32Array;
  _combined: Record<number, string>;
  _extendedAttrs: Record<number, { underlineStyle: number } | undefined>;
  getTrimmedLength(): number;
  getNoBgTrimmedLength(): number;
}

/** xterm's cell layout (src/common/buffer/Constants.ts). */
const CODEPOINT = 0x1fffff;
const COMBINED = 0x200000;
const WIDTH_SHIFT = 22;
const CM_MASK = 0x3000000;
const CM_RGB = 0x3000000;
const FG_INVERSE = 0x4000000;
const FG_BOLD = 0x8000000;
const FG_UNDERLINE = 0x10000000;
const FG_BLINK = 0x20000000;
const FG_INVISIBLE = 0x40000000;
const FG_STRIKETHROUGH = 0x80000000;
const BG_ITALIC = 0x4000000;
const BG_DIM = 0x8000000;
const BG_EXTENDED = 0x10000000;
const BG_OVERLINE = 0x40000000;

/**
 * A string as one flat sequence of characters: V8 keeps a concatenation as a tree of its
 * pieces (~30 bytes a piece) until it is read. Copied through UTF-8 where that is exact, or
 * through JSON where the string holds a lone surrogate (which UTF-8 cannot carry).
 */
export function flat(s: string): string {
  return s.length === 0 ? s : s.isWellFormed() ? Buffer.from(s, 'utf8').toString('utf8') : (JSON.parse(JSON.stringify(s)) as string);
}

/** A colour as the addon compares it: its mode and the bits that mode reads (a palette colour keeps stale RGB bits above its index). */
function colour(word: number): number {
  const mode = word & CM_MASK;
  return mode === 0 ? 0 : mode === CM_RGB ? word & 0x3ffffff : mode | (word & 0xff);
}

const FG_FLAGS = FG_INVERSE | FG_BOLD | FG_BLINK | FG_INVISIBLE | FG_STRIKETHROUGH;
const BG_FLAGS = BG_ITALIC | BG_DIM | BG_OVERLINE;

/** Flags in the addon's order: [word (0 fg, 1 bg), bit, on, off]. */
const FLAGS: ReadonlyArray<readonly [0 | 1, number, number, number]> = [
  [0, FG_INVERSE, 7, 27], [0, FG_BOLD, 1, 22], [0, FG_UNDERLINE, 4, 24], [1, BG_OVERLINE, 53, 55], [0, FG_BLINK, 5, 25],
  [0, FG_INVISIBLE, 8, 28], [1, BG_ITALIC, 3, 23], [1, BG_DIM, 2, 22], [0, FG_STRIKETHROUGH, 9, 29],
];

/**
 * The line being written, as UTF-16 code units (a string made once from them is flat, where
 * one built a character at a time is a rope of small pieces), and its text beside it.
 */
class CodeUnits {
  private units = new Uint16Array(4096);
  length = 0;

  put(code: number): void {
    if (this.length === this.units.length) {
      const bigger = new Uint16Array(this.units.length * 2);
      bigger.set(this.units);
      this.units = bigger;
    }
    this.units[this.length++] = code;
  }

  /** What was put, as a string (in pieces small enough for fromCharCode's arguments); empty after. */
  take(): string {
    const n = this.length;
    this.length = 0;
    if (n <= 8192) return String.fromCharCode.apply(null, this.units.subarray(0, n) as unknown as number[]);
    const parts: string[] = [];
    for (let i = 0; i < n; i += 8192) parts.push(String.fromCharCode.apply(null, this.units.subarray(i, Math.min(n, i + 8192)) as unknown as number[]));
    return flat(parts.join(''));
  }
}

const out = new CodeUnits();
const txt = new CodeUnits();

function put(code: number): void {
  out.put(code);
}

function putText(code: number): void {
  txt.put(code);
}

function putNum(n: number): void {
  if (n >= 10) putNum(Math.floor(n / 10));
  put(48 + (n % 10));
}

/** A cell's underline as the addon's isUnderline() gives it: 1 for an extended style (a hyperlink's dashed one too), else the flag's bit. */
export function underlineAt(line: CellLine, x: number, fg: number, bg: number): number {
  return bg & BG_EXTENDED && (line._extendedAttrs[x]?.underlineStyle ?? 0) !== 0 ? 1 : fg & FG_UNDERLINE;
}

/** Attributes' underline as the addon's isUnderline() gives it (xterm's AttributeData: fg, bg, extended). */
export function attrUnderline(fg: number, bg: number, extended: { underlineStyle: number } | undefined): number {
  return bg & BG_EXTENDED && (extended?.underlineStyle ?? 0) !== 0 ? 1 : fg & FG_UNDERLINE;
}

/** The SGR that takes the style (wfg, wbg, wul) to (fg, bg, ul), as the addon writes it ('' when nothing differs). */
export function sgrBetween(wfg: number, wbg: number, wul: number, fg: number, bg: number, ul: number): string {
  out.length = 0;
  putSgr(fg, bg, ul, wfg, wbg, wul);
  return out.take();
}

/** A cell's characters (none for an empty cell). */
export function cellChars(line: CellLine, x: number): string {
  const content = line._data[x * 3]!;
  if (content & COMBINED) return line._combined[x] ?? '';
  const cp = content & CODEPOINT;
  return cp ? String.fromCodePoint(cp) : '';
}

/** SGR parameters for a colour (38/48 base), as the addon writes them; `first` when none came before. */
function putColour(word: number, base: 30 | 40, first: boolean): void {
  if (!first) put(59);
  const mode = word & CM_MASK;
  if (mode === CM_RGB) {
    putNum(base + 8);
    put(59);
    put(50);
    for (const c of [(word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff]) {
      put(59);
      putNum(c);
    }
  } else if (mode !== 0) {
    const c = word & 0xff;
    if (c >= 16) {
      putNum(base + 8);
      put(59);
      put(53);
      put(59);
      putNum(c);
    } else putNum(c & 8 ? base + 60 + (c & 7) : base + (c & 7));
  } else putNum(base + 9);
}

/**
 * The SGR that takes the style (wfg, wbg, wul) to (fg, bg, ul), as the addon's _diffStyle
 * writes it; whether anything differed (then it was written).
 */
function putSgr(fg: number, bg: number, ul: number, wfg: number, wbg: number, wul: number): boolean {
  const fgChanged = colour(fg) !== colour(wfg);
  const bgChanged = colour(bg) !== colour(wbg);
  const flagsChanged = (fg & FG_FLAGS) !== (wfg & FG_FLAGS) || (bg & BG_FLAGS) !== (wbg & BG_FLAGS) || ul !== wul;
  if (!fgChanged && !bgChanged && !flagsChanged) return false;
  put(27);
  put(91);
  let first = true;
  if (fg === 0 && bg === 0) {
    if (wfg !== 0 || wbg !== 0) {
      put(48);
      first = false;
    }
  } else {
    if (fgChanged) {
      putColour(fg, 30, first);
      first = false;
    }
    if (bgChanged) {
      putColour(bg, 40, first);
      first = false;
    }
    if (flagsChanged) {
      for (const [which, bit, on, off] of FLAGS) {
        let now: number;
        let was: number;
        if (bit === FG_UNDERLINE) {
          now = ul;
          was = wul;
        } else {
          now = (which === 0 ? fg : bg) & bit;
          was = (which === 0 ? wfg : wbg) & bit;
        }
        if (now === was) continue;
        if (!first) put(59);
        putNum(now ? on : off);
        first = false;
      }
    }
  }
  put(109);
  return true;
}

/** A character cell's characters (not an empty one's) onto the line, and its text when `inText`. */
function putChars(line: CellLine, x: number, content: number, inText: boolean): void {
  if (content & COMBINED) {
    const s = line._combined[x]!;
    for (let i = 0; i < s.length; i++) {
      put(s.charCodeAt(i));
      if (inText) putText(s.charCodeAt(i));
    }
    return;
  }
  const cp = content & CODEPOINT;
  if (cp > 0xffff) {
    const hi = 0xd800 + ((cp - 0x10000) >> 10);
    const lo = 0xdc00 + ((cp - 0x10000) & 0x3ff);
    put(hi);
    put(lo);
    if (inText) {
      putText(hi);
      putText(lo);
    }
  } else {
    put(cp);
    if (inText) putText(cp);
  }
}

/** A CSI sequence with one number: ESC [ n final. */
function putCsi(n: number, final: number): void {
  put(27);
  put(91);
  putNum(n);
  put(final);
}

/**
 * Empty cells before a style change or a character: an erase where they have a background,
 * or where a replay may have filled the row with one (`fill`, see encodeLine), and a move.
 */
function putNulls(nulls: number, bg: number, fill: number): void {
  if (nulls === 0) return;
  if (colour(bg) !== 0 || fill !== 0) putCsi(nulls, 88);
  putCsi(nulls, 67);
}

/**
 * Rows [start, end] of `lines` (a logical line: the first not wrapped, the others wrapped
 * from it) as escape sequences from the default style at the top-left, and their text
 * (each row to its last character, empty cells as spaces); undefined where the addon must.
 */
export function encodeLine(lines: { get(i: number): CellLine | undefined }, start: number, end: number): { data: string; text: string } | undefined {
  out.length = 0;
  txt.length = 0;
  // The style the addon last wrote (its _cursorStyle).
  let wfg = 0;
  let wbg = 0;
  let wul = 0;
  // The background (a colour) a replay may have filled the row being written with: the
  // default on the line's first row (a blank one) and on a row a made wrap erased; on a row
  // the text wrapped onto, its first character's where the replay's wrap scrolled (xterm
  // fills a row its wrap scrolls in with the background in force), else the default.
  let fill = 0;
  for (let y = start; y <= end; y++) {
    const line = lines.get(y);
    if (!line) return undefined;
    const d = line._data;
    const cols = line.length;
    const trimmed = line.getTrimmedLength();
    // Empty cells with a background after the last character are drawn too (an erase).
    const drawnTo = Math.max(trimmed, line.getNoBgTrimmedLength());
    // Empty cells not written yet.
    let nulls = 0;
    // The text reads as xterm's translateToString does: a cell, then the one its width leads to.
    let textAt = 0;
    for (let x = 0; x < drawnTo; x++) {
      const content = d[x * 3]!;
      const width = content >>> WIDTH_SHIFT;
      const inText = x === textAt && x < trimmed;
      if (inText) textAt = x + (width || 1);
      if (width === 0) {
        // Not written by the addon; in the text, what xterm reads there (a space).
        if (inText) putText(32);
        continue;
      }
      const fg = d[x * 3 + 1]!;
      const bg = d[x * 3 + 2]!;
      if (content & COMBINED ? !line._combined[x] : !(content & CODEPOINT)) {
        // An empty cell: a style change only when its background differs.
        if (colour(bg) !== colour(wbg)) {
          putNulls(nulls, wbg, fill);
          nulls = 0;
          const ul = underlineAt(line, x, fg, bg);
          putSgr(fg, bg, ul, wfg, wbg, wul);
          wfg = fg;
          wbg = bg;
          wul = ul;
        }
        nulls += width;
        if (inText) putText(32);
        continue;
      }
      const ul = underlineAt(line, x, fg, bg);
      // The empty cells before it, in the style before it; then its style, if that changed.
      putNulls(nulls, wbg, fill);
      nulls = 0;
      if (putSgr(fg, bg, ul, wfg, wbg, wul)) {
        wfg = fg;
        wbg = bg;
        wul = ul;
      }
      putChars(line, x, content, inText);
      // A wide character covers the next cell when that is its placeholder (skipped above) or
      // an empty one of width 1, where something cut the pair: an erase of that cell written
      // after the character would wipe it with the character, as the addon's range does (the
      // addon's whole buffer keeps it). A character there is written, as the addon writes it.
      if (width === 2 && x + 1 < drawnTo && d[(x + 1) * 3]! === 1 << WIDTH_SHIFT) x++;
    }
    if (y < end) {
      const next = lines.get(y + 1);
      if (!next || !next.isWrapped) return undefined;
      // The cell a wide character did not fit in, at the row's end: xterm leaves it empty in
      // the character's style and wraps. Writing the character there does the same again.
      const lastAt = (cols - 1) * 3;
      const leftover = (nulls === 1 || (nulls === 0 && drawnTo === cols - 1)) && trimmed === cols - 1 && d[lastAt] === 1 << WIDTH_SHIFT && next._data[0]! >>> WIDTH_SHIFT === 2 &&
        d[lastAt + 1] === next._data[1] && d[lastAt + 2] === next._data[2];
      if (leftover) {
        nulls = 0;
        fill = colour(next._data[2]!);
        continue;
      }
      const first = next._data[0]!;
      const firstIsChar = first & COMBINED ? !!next._combined[0] : (first & CODEPOINT) !== 0;
      // Written to its last column, the cursor is past it (xterm's pending wrap).
      const pending = nulls === 0 && trimmed === cols;
      // A wrap the text makes by itself: the next row's first character (its style written
      // before it, so a row the wrap scrolls in is filled with its background) wraps.
      if (pending && firstIsChar) {
        fill = colour(next._data[2]!);
        continue;
      }
      // Any other wrap is made (issue 38, seeds 730, 1025, 2274, 2744 and 3920): a row that
      // ends in empty cells, or a next row that starts with one. A move or an erase there
      // would act on the row's last column (xterm keeps a pending wrap's cursor on it), and
      // the serialize addon's wrap (a dash written past the end and erased, after going up a
      // row to erase the row's empty end) fills the new row with the old background. Here,
      // where the row ends in empty cells, a wide character is written in its last column in
      // that cell's own attributes: it does not fit, so xterm wraps it to the next row and
      // leaves the cell empty in those attributes; after a row written to its end, a
      // character wraps by itself. Either is then erased with the whole new row, in the
      // default style, whatever a replay's wrap filled it with. Never above the cursor's row.
      if (cols < 3) return undefined;
      if (pending) {
        if (putSgr(0, 0, 0, wfg, wbg, wul)) wfg = wbg = wul = 0;
        put(45);
        putCsi(1, 68);
      } else {
        const k = cols - drawnTo;
        if (k === 0) putNulls(nulls - 1, wbg, fill);
        else {
          putNulls(nulls, wbg, fill);
          // The empty cells past what is drawn, but the last: the default background.
          if (k > 1) {
            if (fill !== 0) {
              if (putSgr(0, 0, 0, wfg, wbg, wul)) wfg = wbg = wul = 0;
              putCsi(k - 1, 88);
            }
            putCsi(k - 1, 67);
          }
        }
        const fg = d[lastAt + 1]!;
        const bg = d[lastAt + 2]!;
        const ul = underlineAt(line, cols - 1, fg, bg);
        if (putSgr(fg, bg, ul, wfg, wbg, wul)) {
          wfg = fg;
          wbg = bg;
          wul = ul;
        }
        // 世, then back over it.
        put(0x4e16);
        putCsi(2, 68);
        if (putSgr(0, 0, 0, wfg, wbg, wul)) wfg = wbg = wul = 0;
      }
      putCsi(cols, 88);
      nulls = 0;
      fill = 0;
    } else {
      // The padding after what is drawn (default background): the addon's style change at its first cell.
      let x = drawnTo;
      while (x < cols && d[x * 3]! >>> WIDTH_SHIFT === 0) x++;
      if (x < cols && colour(d[x * 3 + 2]!) !== colour(wbg)) {
        putNulls(nulls, wbg, fill);
        nulls = 0;
        const fg = d[x * 3 + 1]!;
        const bg = d[x * 3 + 2]!;
        const ul = underlineAt(line, x, fg, bg);
        putSgr(fg, bg, ul, wfg, wbg, wul);
        wfg = fg;
        wbg = bg;
        wul = ul;
      }
      // Empty cells with a background up to the row's end: an erase.
      if (nulls > 0 && colour(wbg) !== 0) putCsi(nulls, 88);
      // A row the line wrapped onto in a background (its first character's): where a
      // replay's wrap scrolls (a snapshot replays from the bottom of its screen), xterm fills
      // the new row with that background, though the row here kept the default after what is
      // drawn (it wrapped onto a blank row). Past what is drawn, erased in the default style.
      if (fill !== 0 && drawnTo < cols) {
        // (A move over the empty cells left, already erased in their background above.)
        if (nulls > 0) putCsi(nulls, 67);
        put(27);
        put(91);
        put(48);
        put(109);
        put(27);
        put(91);
        put(75);
        wfg = 0;
        wbg = 0;
        wul = 0;
      }
    }
  }
  return { data: out.take(), text: txt.take() };
}

