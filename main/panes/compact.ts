/**
 * What lets a pane's headless screen skip most of a flood without changing what it
 * ends up showing (main/panes/screen.ts). Pure functions over output text.
 *
 * "Plain" output is printable text, tab, CR, LF and SGR sequences (`ESC [ 0-9;: m`, colours
 * and styles): from the parser's ground state it changes nothing but the screen's cells,
 * the cursor and the current attributes. A plain run with K line feeds after a CR LF (K at
 * least the scrollback plus twice the rows) rebuilds every line of the buffer from
 * scratch, so what came before that CR LF only matters through the attributes it left
 * set: it can be replaced by its SGR sequences since the last reset, and a CR.
 * Whether the screen is in a state where that holds (parser in ground, scroll region the
 * whole screen) is the caller's to check before it cuts.
 */

/**
 * Anything that is not plain: ESC that does not start a complete SGR, C0 controls other
 * than tab, LF and CR, DEL, C1 controls, and lone surrogates (a pair is one printable).
 */
const NOT_PLAIN = /\x1b(?!\[[0-9;:]*m)|[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Where the plain tail of `text` starts: just after its last character that is not plain (0 when all of it is). */
export function plainTailStart(text: string): number {
  NOT_PLAIN.lastIndex = 0;
  let start = 0;
  for (let m = NOT_PLAIN.exec(text); m; m = NOT_PLAIN.exec(text)) start = m.index + m[0].length;
  return start;
}

/** Line feeds in `text` from `from`. */
export function countLineFeeds(text: string, from = 0): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** An SGR that starts with a reset (no parameter, or 0 first): nothing set before it survives it. */
const RESET_SGR = /^\x1b\[0*(?:m|;)/;
/** Give up on a cut when the attributes in force would take more SGRs than this to replay. */
const MAX_REPLAY = 4096;

/**
 * The SGR sequences of plain `text` that decide the attributes in force at its end: those
 * from the last one that begins with a reset. Undefined when there are more than MAX_REPLAY.
 */
export function attributesAtEnd(text: string): string | undefined {
  const kept: string[] = [];
  for (let esc = text.lastIndexOf('\x1b'); esc >= 0; esc = esc > 0 ? text.lastIndexOf('\x1b', esc - 1) : -1) {
    const end = text.indexOf('m', esc);
    const sgr = text.slice(esc, end + 1);
    kept.push(sgr);
    if (RESET_SGR.test(sgr)) break;
    if (kept.length > MAX_REPLAY) return undefined;
  }
  return kept.reverse().join('');
}

/** Just after the last CR LF in `text` (-1 when it has none): where a line starts with the cursor at column 0. */
export function afterLastCrLf(text: string): number {
  const i = text.lastIndexOf('\r\n');
  return i < 0 ? -1 : i + 2;
}

/** Longest replay of attributes kept; a cut that would need more is not made. */
const MAX_HEAD = 16 * 1024;

/**
 * The attributes in force after `head` then `more` (both SGR sequences of plain output):
 * `more` alone when it starts with a reset. Undefined when that would be too long to keep.
 */
export function foldAttributes(head: string, more: string): string | undefined {
  const out = RESET_SGR.test(more) ? more : head + more;
  return out.length > MAX_HEAD ? undefined : out;
}

/** Printable ASCII and SGR sequences, nothing else (a line without its CR LF). */
const DIRECT = /^(?:[\x20-\x7e]|\x1b\[[0-9;:]*m)*$/;
const SGR = /\x1b\[[0-9;:]*m/g;

/**
 * The text of a line a screen's archive can hold as it came, without a parser
 * (main/panes/screen.ts, Screen.takeDirect); undefined when it cannot. `line` (without its
 * CR LF) must be printable ASCII and SGR sequences, at most `cols` characters shown (one
 * row, no wrap), and leave the default attributes set: no SGR, or a reset last. Written
 * from column 0 of a blank row with the default attributes, such a line makes exactly the
 * cells its own bytes make when a window replays them, and the row after it is blank.
 */
export function directLineText(line: string, cols: number): string | undefined {
  if (!DIRECT.test(line)) return undefined;
  const esc = line.lastIndexOf('\x1b');
  if (esc < 0) return line.length <= cols ? line : undefined;
  const last = line.slice(esc, line.indexOf('m', esc) + 1);
  if (last !== '\x1b[0m' && last !== '\x1b[m') return undefined;
  const text = line.replace(SGR, '');
  return text.length <= cols ? text : undefined;
}

/** A digit, ':' or ';'. */
const isSgrParameter = (c: number): boolean => (c >= 0x30 && c <= 0x39) || c === 0x3a || c === 0x3b;

/**
 * Whether `text` from `start` to `end` (a line without its CR LF) is a line directLineText
 * takes, read where it lies: no copy of it, no text made (a flood's catch-up checks ~10,000
 * lines a turn; the archive makes a line's text only when it is read).
 */
export function isDirectLine(text: string, start: number, end: number, cols: number): boolean {
  let shown = 0;
  let lastSgr = -1;
  let lastSgrEnd = -1;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      shown++;
      continue;
    }
    // Anything else must start an SGR: ESC [ parameters m.
    if (c !== 0x1b || i + 1 >= end || text.charCodeAt(i + 1) !== 0x5b) return false;
    let j = i + 2;
    while (j < end && isSgrParameter(text.charCodeAt(j))) j++;
    if (j >= end || text.charCodeAt(j) !== 0x6d) return false;
    lastSgr = i;
    lastSgrEnd = j;
    i = j;
  }
  if (shown > cols) return false;
  if (lastSgr < 0) return true;
  // The last SGR resets: ESC [ m or ESC [ 0 m.
  const length = lastSgrEnd - lastSgr + 1;
  return length === 3 || (length === 4 && text.charCodeAt(lastSgr + 2) === 0x30);
}
