/**
 * What lets a pane's headless screen skip most of a flood without changing what it
 * ends up showing (main/panes/screen.ts). Pure functions over output text.
 *
 * "Plain" output is printable text, tab, CR, LF and SGR sequences (`ESC [ 0-9;: m`, colours
 * and styles): from the parser's ground state it changes nothing but the screen's cells,
 * the cursor and the current attributes. A plain run whose last K line feeds (K at least
 * the scrollback plus twice the rows) follow a CR LF rebuilds every line of the buffer
 * from scratch, so what came before that CR LF only matters through the attributes it
 * left set: it can be replaced by its SGR sequences since the last reset, and a CR.
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

/**
 * Where plain `text` can be cut: the end of the CR LF that has at least `keep` line feeds
 * after it (searching back over at most `slack` more for a LF with CR before it).
 * -1 when there is no such point.
 */
export function cutPoint(text: string, keep: number, slack = 64): number {
  let lf = text.length;
  for (let n = 0; n < keep; n++) {
    lf = lf > 0 ? text.lastIndexOf('\n', lf - 1) : -1;
    if (lf < 0) return -1;
  }
  for (let tries = 0; tries <= slack; tries++) {
    lf = lf > 0 ? text.lastIndexOf('\n', lf - 1) : -1;
    if (lf < 0) return -1;
    if (lf > 0 && text.charCodeAt(lf - 1) === 13) return lf + 1;
  }
  return -1;
}

/**
 * A plain queue kept as chunks (each with its line feeds counted), shortened: when it has
 * a cut point, every chunk before it is dropped and the chunk it falls in starts with the
 * attributes in force there and a CR. Only the chunks after the cut are joined, so the
 * work is about the kept lines, not the queue. Undefined when it cannot be shortened.
 */
export function compactChunks(chunks: readonly string[], lines: readonly number[], keep: number): { chunks: string[]; lines: number[] } | undefined {
  // The first chunk from the end whose line feeds, with those after it, pass `keep` (and some slack for a CR LF).
  let after = 0;
  let c = chunks.length - 1;
  for (; c >= 0; c--) {
    after += lines[c]!;
    if (after > keep + 64) break;
  }
  if (c <= 0) {
    // Nothing to drop before the chunk the cut is in: cut within everything, joined.
    c = 0;
  }
  const tail = chunks.slice(c).join('');
  const cut = cutPoint(tail, keep);
  if (cut <= 0) return undefined;
  // The attributes in force at the cut: the SGRs from the last reset before it, looking back over the chunks dropped.
  let attrs = attributesAtEnd(tail.slice(0, cut));
  if (attrs === undefined) return undefined;
  for (let k = c - 1; k >= 0 && !RESET_SGR.test(attrs); k--) {
    const more = attributesAtEnd(chunks[k]!);
    if (more === undefined) return undefined;
    attrs = more + attrs;
    if (attrs.length > MAX_REPLAY * 16) return undefined;
  }
  const kept = attrs + '\r' + tail.slice(cut);
  return { chunks: [kept], lines: [countLineFeeds(kept)] };
}

/** compactChunks for one string (tests, and a queue of one chunk). */
export function compactPlain(text: string, keep: number): string {
  return compactChunks([text], [countLineFeeds(text)], keep)?.chunks[0] ?? text;
}
