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
 * where it has a background), wide characters' placeholders skipped. It handles the lines
 * the addon handles without its special cases, and says `undefined` for the others, which
 * the archive then gives the addon: a row whose padding has a background, a wrap the text
 * could not have made by itself, and cells with extended attributes (underline styles and
 * colours, hyperlinks), which the public API reads differently. A line longer than the
 * screen is written as any other (it once went to the addon, whose wrap at a change of
 * background goes up a row, which a screen of one row does not have: issue 38).
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

/** Empty cells as the addon writes them before a style change or a character: an erase where they have a background, and a move. */
function putNulls(nulls: number, bg: number): void {
  if (nulls === 0) return;
  if (colour(bg) !== 0) {
    put(27);
    put(91);
    putNum(nulls);
    put(88);
  }
  put(27);
  put(91);
  putNum(nulls);
  put(67);
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
          putNulls(nulls, wbg);
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
      putNulls(nulls, wbg);
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
      // A wrap the text makes by itself: the row full to its last cell, the next row's first
      // a character (its style is written before it, so the wrap that prints it fills a row a
      // replay scrolls in with its background, as the pane's own wrap did), or an empty cell
      // of the same background. (The addon, given a background change at a wrap, writes a
      // character and erases it before the style changes: the row a replay scrolls in then
      // keeps the old background past what is drawn, issue 38.)
      const next = lines.get(y + 1);
      if (!next || !next.isWrapped) return undefined;
      // The cell a wide character did not fit in, at the row's end: xterm leaves it empty in
      // the character's style and wraps. Writing the character there does the same again.
      const lastAt = (cols - 1) * 3;
      const leftover = (nulls === 1 || (nulls === 0 && drawnTo === cols - 1)) && trimmed === cols - 1 && d[lastAt] === 1 << WIDTH_SHIFT && next._data[0]! >>> WIDTH_SHIFT === 2 &&
        d[lastAt + 1] === next._data[1] && d[lastAt + 2] === next._data[2];
      if (leftover) {
        nulls = 0;
        continue;
      }
      if (nulls > 0 || trimmed < cols) return undefined;
      const last = d[(cols - 1) * 3]!;
      if (!(last & (CODEPOINT | COMBINED)) && last >>> WIDTH_SHIFT !== 0) return undefined;
      const first = next._data[0]!;
      const firstIsChar = first & COMBINED ? !!next._combined[0] : (first & CODEPOINT) !== 0;
      if (!firstIsChar && colour(d[(cols - 1) * 3 + 2]!) !== colour(next._data[2]!)) return undefined;
    } else {
      // The padding after what is drawn (default background): the addon's style change at its first cell.
      let x = drawnTo;
      while (x < cols && d[x * 3]! >>> WIDTH_SHIFT === 0) x++;
      if (x < cols && colour(d[x * 3 + 2]!) !== colour(wbg)) {
        putNulls(nulls, wbg);
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
      if (nulls > 0 && colour(wbg) !== 0) {
        put(27);
        put(91);
        putNum(nulls);
        put(88);
      }
      // A row the line wrapped onto in a background (its first cell's): where a replay's wrap
      // scrolls (a snapshot replays from the bottom of its screen), xterm fills the new row
      // with that background, though the row here kept the default after what is drawn (it
      // wrapped onto a blank row). Past what is drawn, erased in the default style.
      if (y > start && drawnTo < cols && colour(d[2]!) !== 0) {
        // (A move over the empty cells left, already erased in their background above.)
        putNulls(nulls, 0);
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

