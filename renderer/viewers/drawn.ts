/**
 * Diagrams already drawn in this window, kept so a card that mounts again (a shelf
 * switched away and back, the viewer opened large) shows its drawing at once, at its
 * final height, instead of "Drawing…" and a jump when Mermaid is done. Keyed by format,
 * theme and source; the least recently used go first past 48 drawings or 8 MiB of SVG.
 */
const MAX_ENTRIES = 48;
const MAX_CHARS = 8 * 1024 * 1024;

const drawn = new Map<string, string>();
let chars = 0;

function keyOf(format: string, theme: string, source: string): string {
  return `${format.toLowerCase()}\u0000${theme}\u0000${source}`;
}

/** The sanitized SVG drawn before for this diagram, if it is still kept. */
export function drawnBefore(format: string, theme: string, source: string): string | null {
  const key = keyOf(format, theme, source);
  const svg = drawn.get(key);
  if (svg === undefined) return null;
  drawn.delete(key);
  drawn.set(key, svg);
  return svg;
}

/** Keep a sanitized drawing; one larger than the whole budget is not kept. */
export function keepDrawn(format: string, theme: string, source: string, svg: string): void {
  const key = keyOf(format, theme, source);
  const old = drawn.get(key);
  if (old !== undefined) {
    drawn.delete(key);
    chars -= old.length + key.length;
  }
  const size = svg.length + key.length;
  if (size > MAX_CHARS) return;
  drawn.set(key, svg);
  chars += size;
  for (const [k, v] of drawn) {
    if (drawn.size <= MAX_ENTRIES && chars <= MAX_CHARS) break;
    drawn.delete(k);
    chars -= v.length + k.length;
  }
}

/** How many drawings and characters are kept (for tests). */
export function drawnKept(): { entries: number; chars: number } {
  return { entries: drawn.size, chars };
}
