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
 * could not have made by itself, a line longer than a screen, and cells with extended
 * attributes (underline styles and colours, hyperlinks), which the public API reads
 * differently.
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

/** SGR parameters for a colour (38/48 base), as the addon writes them. */
function pushColour(out: number[], word: number, base: 30 | 40): void {
  const mode = word & CM_MASK;
  if (mode === CM_RGB) out.push(base + 8, 2, (word >>> 16) & 0xff, (word >>> 8) & 0xff, word & 0xff);
  else if (mode !== 0) {
    const c = word & 0xff;
    if (c >= 16) out.push(base + 8, 5, c);
    else out.push(c & 8 ? base + 60 + (c & 7) : base + (c & 7));
  } else out.push(base + 9);
}

/** Flags in the addon's order: [word (0 fg, 1 bg), bit, on, off]. */
const FLAGS: ReadonlyArray<readonly [0 | 1, number, number, number]> = [
  [0, FG_INVERSE, 7, 27], [0, FG_BOLD, 1, 22], [0, FG_UNDERLINE, 4, 24], [1, BG_OVERLINE, 53, 55], [0, FG_BLINK, 5, 25],
  [0, FG_INVISIBLE, 8, 28], [1, BG_ITALIC, 3, 23], [1, BG_DIM, 2, 22], [0, FG_STRIKETHROUGH, 9, 29],
];

/** A cell's style as the addon compares it: foreground and background words, and underline (its isUnderline(): 1 for an extended style, else the flag's bit). */
interface Style {
  fg: number;
  bg: number;
  ul: number;
}

const DEFAULT: Style = { fg: 0, bg: 0, ul: 0 };

function styleAt(line: CellLine, x: number): Style {
  const d = line._data;
  const fg = d[x * 3 + 1]!;
  const bg = d[x * 3 + 2]!;
  const ul = bg & BG_EXTENDED && (line._extendedAttrs[x]?.underlineStyle ?? 0) !== 0 ? 1 : fg & FG_UNDERLINE;
  return { fg, bg, ul };
}

/** The SGR that takes the style `was` to `now`, as the addon's _diffStyle writes it; '' when nothing differs. */
function sgr(now: Style, was: Style): string {
  const { fg, bg } = now;
  const fgChanged = colour(fg) !== colour(was.fg);
  const bgChanged = colour(bg) !== colour(was.bg);
  const flagsChanged = (fg & FG_FLAGS) !== (was.fg & FG_FLAGS) || (bg & BG_FLAGS) !== (was.bg & BG_FLAGS) || now.ul !== was.ul;
  if (!fgChanged && !bgChanged && !flagsChanged) return '';
  const p: number[] = [];
  if (fg === 0 && bg === 0) {
    if (was.fg !== 0 || was.bg !== 0) p.push(0);
  } else {
    if (fgChanged) pushColour(p, fg, 30);
    if (bgChanged) pushColour(p, bg, 40);
    if (flagsChanged) {
      for (const [which, bit, on, off] of FLAGS) {
        if (bit === FG_UNDERLINE) {
          if (now.ul !== was.ul) p.push(now.ul ? on : off);
          continue;
        }
        const v = (which === 0 ? fg : bg) & bit;
        if (v !== ((which === 0 ? was.fg : was.bg) & bit)) p.push(v ? on : off);
      }
    }
  }
  return `\x1b[${p.join(';')}m`;
}

/** A character cell's characters ('' for an empty one). */
function chars(line: CellLine, x: number, content: number): string {
  if (content & COMBINED) return line._combined[x] ?? '';
  const cp = content & CODEPOINT;
  return cp === 0 ? '' : String.fromCodePoint(cp);
}

/**
 * Rows [start, end] of `lines` (a logical line: the first not wrapped, the others wrapped
 * from it) as escape sequences from the default style at the top-left, and their text
 * (each row to its last character, empty cells as spaces); undefined where the addon must.
 */
export function encodeLine(lines: { get(i: number): CellLine | undefined }, start: number, end: number, screenRows: number): { data: string; text: string } | undefined {
  if (end - start >= screenRows) return undefined;
  let data = '';
  let text = '';
  // The style the addon last wrote (its _cursorStyle), and the empty cells it has not written yet.
  let was = DEFAULT;
  for (let y = start; y <= end; y++) {
    const line = lines.get(y);
    if (!line) return undefined;
    const d = line._data;
    const cols = line.length;
    const trimmed = line.getTrimmedLength();
    // Empty cells with a background after the last character are drawn too (an erase).
    const drawnTo = Math.max(trimmed, line.getNoBgTrimmedLength());
    let nulls = 0;
    let row = '';
    for (let x = 0; x < drawnTo; x++) {
      const content = d[x * 3]!;
      const width = content >>> WIDTH_SHIFT;
      if (width === 0) {
        // Not written by the addon; in the text, a space unless it is a wide character's second half.
        if (x < trimmed && (x === 0 || d[(x - 1) * 3]! >>> WIDTH_SHIFT !== 2)) text += ' ';
        continue;
      }
      const ch = chars(line, x, content);
      if (ch === '') {
        if (colour(d[x * 3 + 2]!) !== colour(was.bg)) {
          row += flushNulls(nulls, was.bg);
          nulls = 0;
          const now = styleAt(line, x);
          row += sgr(now, was);
          was = now;
        }
        nulls += width;
        if (x < trimmed) text += ' ';
        continue;
      }
      const now = styleAt(line, x);
      const style = sgr(now, was);
      if (style) {
        row += flushNulls(nulls, was.bg);
        nulls = 0;
        row += style;
        was = now;
      }
      if (nulls > 0) {
        row += flushNulls(nulls, was.bg);
        nulls = 0;
      }
      row += ch;
      text += ch;
    }
    if (y < end) {
      // A wrap the text makes by itself: the row full to its last cell, the next row's first of the same background.
      const next = lines.get(y + 1);
      if (!next || !next.isWrapped || nulls > 0 || trimmed < cols) return undefined;
      const last = d[(cols - 1) * 3]!;
      if (!(last & (CODEPOINT | COMBINED)) && last >>> WIDTH_SHIFT !== 0) return undefined;
      if (colour(d[(cols - 1) * 3 + 2]!) !== colour(next._data[2]!)) return undefined;
    } else {
      // The padding after what is drawn (default background): the addon's style change at its first cell.
      let x = drawnTo;
      while (x < cols && d[x * 3]! >>> WIDTH_SHIFT === 0) x++;
      if (x < cols && colour(d[x * 3 + 2]!) !== colour(was.bg)) {
        row += flushNulls(nulls, was.bg);
        nulls = 0;
        const now = styleAt(line, x);
        row += sgr(now, was);
        was = now;
      }
      // Empty cells with a background up to the row's end: an erase.
      if (nulls > 0 && colour(was.bg) !== 0) row += `\x1b[${nulls}X`;
    }
    data += row;
  }
  return { data: flat(data), text: flat(text) };
}

/** Empty cells as the addon writes them before a style change or a character: an erase where they have a background, and a move. */
function flushNulls(nulls: number, bg: number): string {
  if (nulls === 0) return '';
  return colour(bg) !== 0 ? `\x1b[${nulls}X\x1b[${nulls}C` : `\x1b[${nulls}C`;
}
