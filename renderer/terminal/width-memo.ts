/**
 * One memo of glyph widths for every terminal of the window (issue 38, item 4).
 *
 * xterm's DOM renderer measures each character it draws once per terminal (its WidthCache:
 * 32 copies in a span, then the span's offsetWidth, which lays out the whole page when anything
 * in it changed since). A window attaching to 32 panes measured the same ~60 characters in each
 * terminal, each time a layout of a page that had just grown by a terminal's rows: in the
 * page's profile, the largest share of the long task that makes the terminals. A width depends
 * only on the font, its size and weights, the variant (bold, italic), the character and the
 * device pixel ratio: measured once here, shared by every terminal.
 *
 * xterm keeps WidthCache to itself; the memo is put on its prototype, reached through the
 * first opened terminal's renderer. Where that path is not there (another xterm), nothing
 * changes: each terminal measures as before.
 */
import type { Terminal } from '@xterm/xterm';

/** At most this many widths are kept; past it the memo starts again (a page of many scripts' characters). */
const MAX_WIDTHS = 20_000;

interface WidthCacheLike {
  _font: string;
  _fontSize: number;
  _weight: unknown;
  _weightBold: unknown;
  _measure(c: string, variant: number): number;
}

const widths = new Map<string, number>();
let patched: object | undefined;

/** The key of one measured width: everything the measure depends on. */
export function widthKey(font: string, fontSize: number, weight: unknown, weightBold: unknown, variant: number, dpr: number, c: string): string {
  return `${font}\u0000${fontSize}\u0000${String(weight)}\u0000${String(weightBold)}\u0000${variant}\u0000${dpr}\u0000${c}`;
}

/** A width from the memo, else measured by `measure` and kept (only a real one: 0 is a span not laid out yet). */
export function memoWidth(key: string, measure: () => number): number {
  const known = widths.get(key);
  if (known !== undefined) return known;
  const w = measure();
  if (w > 0) {
    if (widths.size >= MAX_WIDTHS) widths.clear();
    widths.set(key, w);
  }
  return w;
}

/** Forget every width (a font finished loading: the widths measured with its fallback are wrong now). */
export function forgetWidths(): void {
  widths.clear();
}

/** Make every DOM-rendered terminal of this page share the widths it measures (once; call after `term.open`). */
export function shareWidths(term: Terminal): void {
  if (patched) return;
  const cache = (term as unknown as { _core?: { _renderService?: { _renderer?: { value?: { _widthCache?: WidthCacheLike } } } } })
    ._core?._renderService?._renderer?.value?._widthCache;
  const proto = cache ? (Object.getPrototypeOf(cache) as WidthCacheLike) : undefined;
  if (!proto || typeof proto._measure !== 'function' || typeof cache!._font !== 'string') return;
  patched = proto;
  const measure = proto._measure;
  proto._measure = function (this: WidthCacheLike, c: string, variant: number): number {
    const key = widthKey(this._font, this._fontSize, this._weight, this._weightBold, variant, window.devicePixelRatio, c);
    return memoWidth(key, () => measure.call(this, c, variant));
  };
  document.fonts?.addEventListener?.('loadingdone', forgetWidths);
}
