/**
 * A pane's whole history in the page, cell by cell against a reference xterm fed the same bytes
 * (issue 38): the files the tests `cat`, the page's rows, scrolling to the top as a person does
 * (which fetches the history a snapshot left out), and the comparison. Used by
 * e2e/history-exact.e2e.ts and e2e/view.e2e.ts.
 */
import { expect } from 'vitest';
import { reference, rng } from '../main/panes/screen-testing.ts';
import type { TdPage } from './harness.ts';

const WIDE = ['世界', '漢字', 'ｗｉｄｅ'];

/**
 * A file's lines: each starts `<prefix><n>:`, then colours (16, 256, truecolor, bold, italic,
 * underline, inverse), wide characters and text (15% long enough to wrap), and ends in the
 * default style; `needle` is put at the end of the sixth.
 */
export function colourLines(count: number, opts: { seed?: number; prefix?: string; needle?: string } = {}): string[] {
  const r = rng(opts.seed ?? 38);
  const n = (m: number) => Math.floor(r() * m);
  const sgr = (): string => [`\x1b[${30 + n(8)}m`, `\x1b[${100 + n(8)}m`, `\x1b[38;5;${n(256)}m`, `\x1b[48;2;${n(256)};${n(256)};${n(256)}m`, `\x1b[${[1, 3, 4, 7][n(4)]}m`, '\x1b[0m'][n(6)]!;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = `${opts.prefix ?? 'L'}${i}:`;
    const len = r() < 0.15 ? 100 + n(200) : n(70);
    while (s.length < len) {
      if (r() < 0.2) s += sgr();
      s += r() < 0.05 ? WIDE[n(WIDE.length)] : String.fromCharCode(97 + n(26)) + (r() < 0.2 ? ' ' : '');
    }
    if (i === 5 && opts.needle) s += ` ${opts.needle}`;
    out.push(`${s}\x1b[0m`);
  }
  return out;
}

/** Every row of the active buffer as a string of its cells (characters, width, colour modes and values, attributes), '~' first for a wrapped row. Runs in the page too (stringified). */
export function cellsOf(term: unknown): string[] {
  type Cell = { getChars(): string; getWidth(): number; getFgColorMode(): number; getFgColor(): number; getBgColorMode(): number; getBgColor(): number; isBold(): number; isItalic(): number; isUnderline(): number; isInverse(): number };
  type Line = { isWrapped: boolean; length: number; getCell(x: number, c: Cell): Cell };
  const b = (term as { buffer: { active: { length: number; getLine(y: number): Line; getNullCell(): Cell } } }).buffer.active;
  const cell = b.getNullCell();
  const rows: string[] = [];
  for (let y = 0; y < b.length; y++) {
    const line = b.getLine(y);
    let row = line.isWrapped ? '~' : '';
    for (let x = 0; x < line.length; x++) {
      line.getCell(x, cell);
      const p = (m: number) => (m === 0 ? 'd' : m === 50_331_648 ? 'rgb' : 'p');
      const flags = [cell.isBold(), cell.isItalic(), cell.isUnderline(), cell.isInverse()].map((f) => (f ? 1 : 0)).join('');
      row += cell.getChars() || cell.getWidth() !== 1 ? `${cell.getChars()}${cell.getWidth()}[${p(cell.getFgColorMode())}:${cell.getFgColor()}/${p(cell.getBgColorMode())}:${cell.getBgColor()}/${flags}]` : `.[${p(cell.getBgColorMode())}:${cell.getBgColor()}]`;
    }
    rows.push(row);
  }
  return rows;
}

type Td = { __td: { term(id: string): { buffer: { active: { viewportY: number } }; cols: number }; stats(id: string): { partial: boolean } } };

/** The pane's terminal's stats in the page (TerminalSession.stats). */
export function stats<T = Record<string, unknown>>(w: TdPage, paneId: string): Promise<T> {
  return w.page.evaluate((p) => (window as unknown as { __td: { stats(id: string): unknown } }).__td.stats(p), paneId) as Promise<T>;
}

/**
 * Scroll the pane to the top as a person does (Shift+PageUp), until the view has stayed at line
 * 0 for three presses (`whole`: with the history no longer partial, all of it fetched).
 */
export async function scrollToTop(w: TdPage, paneId: string, opts: { whole?: boolean } = {}): Promise<void> {
  await w.focusKeyboard(paneId);
  let steady = 0;
  while (steady < 3) {
    await w.page.keyboard.press('Shift+PageUp');
    const top = await w.page.evaluate((p) => (window as unknown as Td).__td.term(p).buffer.active.viewportY, paneId);
    const partial = opts.whole && (await w.page.evaluate((p) => (window as unknown as Td).__td.stats(p).partial, paneId));
    steady = top === 0 && !partial ? steady + 1 : 0;
  }
}

/**
 * Scrolled to the top (the rest of the history fetched, the view kept on its line, then up to
 * its top), the page holds the file's lines (each starting `<prefix><n>:`, `cat` into the pane)
 * row for row and cell for cell as a reference xterm of the pane's width fed the same bytes
 * does. Returns that reference (dispose its term).
 */
export async function expectHistoryExact(w: TdPage, paneId: string, file: string, prefix = 'L'): Promise<ReturnType<typeof reference>> {
  await scrollToTop(w, paneId);
  await w.waitFor(async () => !(await stats<{ partial: boolean }>(w, paneId)).partial, 'the whole history fetched');
  await scrollToTop(w, paneId);
  const cols = await w.page.evaluate((p) => (window as unknown as Td).__td.term(p).cols, paneId);
  const page = await w.page.evaluate(`(${cellsOf.toString()})(window.__td.term(${JSON.stringify(paneId)}))`) as string[];
  // The reference: the same bytes (the tty turns LF into CR LF) in a terminal of the pane's width.
  const ref = reference(cols, 50, 100_000);
  try {
    ref.write(file.replaceAll('\n', '\r\n'));
    const want = cellsOf(ref.term).slice(0, ref.term.buffer.active.baseY + ref.term.buffer.active.cursorY);
    const start = page.findIndex((row) => row.startsWith(`${prefix}1[`) && row.includes(':1[') && !row.startsWith('~'));
    expect(start, 'the file\'s first line in the page').toBeGreaterThanOrEqual(0);
    const got = page.slice(start, start + want.length);
    const diff = got.findIndex((row, i) => row !== want[i]);
    expect({ diff, got: got[diff], want: want[diff] }).toEqual({ diff: -1, got: undefined, want: undefined });
  } catch (e) {
    ref.term.dispose();
    throw e;
  }
  return ref;
}
