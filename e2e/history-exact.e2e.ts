/**
 * The history a real pane's window holds is exact (issue 38): after a `cat` of 3,000 lines of
 * colours (16, 256, truecolor, bold, italic, underline, inverse), wide characters and long
 * lines that wrap, scrolled to the top (which fetches the history the first snapshot left
 * out), the page's xterm holds every row as @xterm/headless fed the same bytes does, cell by
 * cell; copying all of it gives the reference's text; and the find bar finds a word that is
 * only in the oldest lines.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWindow, tempDir, type Serve, type TdPage } from './harness.ts';
import { windowForFile } from './fixture.ts';
import { reference, rng } from '../main/panes/screen-testing.ts';
import type { Browser } from 'playwright-core';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let dir: string;

const LINES = 3_000;
const NEEDLE = 'zebraneedle';
const WIDE = ['世界', '漢字', 'ｗｉｄｅ'];

/** The file's lines: each starts `L<n>:`, then colours and text, and ends in the default style. */
function lines(): string[] {
  const r = rng(38);
  const n = (m: number) => Math.floor(r() * m);
  const sgr = (): string => [`\x1b[${30 + n(8)}m`, `\x1b[${100 + n(8)}m`, `\x1b[38;5;${n(256)}m`, `\x1b[48;2;${n(256)};${n(256)};${n(256)}m`, `\x1b[${[1, 3, 4, 7][n(4)]}m`, '\x1b[0m'][n(6)]!;
  const out: string[] = [];
  for (let i = 0; i < LINES; i++) {
    let s = `L${i}:`;
    const len = r() < 0.15 ? 100 + n(200) : n(70);
    while (s.length < len) {
      if (r() < 0.2) s += sgr();
      s += r() < 0.05 ? WIDE[n(WIDE.length)] : String.fromCharCode(97 + n(26)) + (r() < 0.2 ? ' ' : '');
    }
    if (i === 5) s += ` ${NEEDLE}`;
    out.push(`${s}\x1b[0m`);
  }
  return out;
}

windowForFile((w) => ({ serve, browser, win } = w));

beforeAll(() => {
  dir = tempDir('history-exact');
  fs.writeFileSync(path.join(dir, 'colours.txt'), lines().join('\n') + '\n');
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Every row of the active buffer as a string of its cells (characters, width, colour modes and values, attributes), '~' first for a wrapped row. */
function cellsOf(term: unknown): string[] {
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

type Td = { term(id: string): unknown };

describe('a pane\'s history in the page', () => {
  it('after a cat of 3,000 coloured lines, scrolled to the top, is the reference\'s cell by cell; copy gives its text and find reaches its oldest lines', async () => {
    const [id] = await win.paneIds();
    await win.waitForPrompt(id!);
    await win.typeLine(id!, `cat ${path.join(dir, 'colours.txt')}; echo cat-done-$((1))`);
    await win.waitForText(id!, /^cat-done-1$/m, 120_000, 5);
    await win.waitForPrompt(id!);
    // A fresh window to the pane: its first snapshot holds the screen and a little history
    // (SNAPSHOT_SCROLLBACK), the rest comes from the service (its archive's lines and its
    // buffer's) when the view reaches the top.
    const first = win;
    win = await openWindow(browser, serve, { theme: 'dark' });
    await win.drawn();
    await first.page.context().close();
    const stats = (w: TdPage) => w.page.evaluate((p) => (window as unknown as { __td: { stats(id: string): { partial: boolean; syncs: number } } }).__td.stats(p), id!);
    await win.waitFor(async () => (await stats(win)).syncs > 0, 'the fresh window\'s first snapshot');
    expect((await stats(win)).partial, 'the first snapshot left older lines out').toBe(true);
    // Scroll to the top as a person does, until the view has stayed at line 0 for three presses.
    await win.focusKeyboard(id!);
    const toTop = async () => {
      let steady = 0;
      while (steady < 3) {
        await win.page.keyboard.press('Shift+PageUp');
        const top = await win.page.evaluate((p) => (window as unknown as { __td: { term(id: string): { buffer: { active: { viewportY: number } } } } }).__td.term(p).buffer.active.viewportY, id!);
        steady = top === 0 ? steady + 1 : 0;
      }
    };
    await toTop();
    // The rest of the history arrives, the view kept on the same line; then up to its top.
    await win.waitFor(async () => !(await stats(win)).partial, 'the whole history fetched');
    await toTop();
    const cols = await win.page.evaluate((p) => (window as unknown as { __td: { term(id: string): { cols: number } } }).__td.term(p).cols, id!);
    const page = await win.page.evaluate(`(${cellsOf.toString()})(window.__td.term(${JSON.stringify(id)}))`) as string[];
    // The reference: the same bytes (the tty turns LF into CR LF) in a terminal of the pane's width.
    const ref = reference(cols, 50, 100_000);
    try {
      ref.write(fs.readFileSync(path.join(dir, 'colours.txt'), 'utf8').replaceAll('\n', '\r\n'));
      const want = cellsOf(ref.term).slice(0, ref.term.buffer.active.baseY + ref.term.buffer.active.cursorY);
      const start = page.findIndex((row) => row.startsWith('L1[') && row.includes(':1[') && !row.startsWith('~'));
      expect(start, 'the file\'s first line in the page').toBeGreaterThanOrEqual(0);
      const got = page.slice(start, start + want.length);
      const diff = got.findIndex((row, i) => row !== want[i]);
      expect({ diff, got: got[diff], want: want[diff] }).toEqual({ diff: -1, got: undefined, want: undefined });
      // Copy: all of it selected, the reference's text is in what is copied, line for line.
      const text = await win.page.evaluate((p) => {
        const t = (window as unknown as { __td: { term(id: string): { selectAll(): void; getSelection(): string; clearSelection(): void } } }).__td.term(p);
        t.selectAll();
        const s = t.getSelection();
        t.clearSelection();
        return s;
      }, id!);
      const refLines: string[] = [];
      const b = ref.term.buffer.active;
      for (let y = 0; y < b.baseY + b.cursorY; y++) {
        const l = b.getLine(y)!;
        if (l.isWrapped) refLines[refLines.length - 1] += l.translateToString(true);
        else refLines.push(l.translateToString(true));
      }
      expect(refLines.length).toBe(LINES);
      expect(text.includes(refLines.join('\n'))).toBe(true);
    } finally {
      ref.term.dispose();
    }
    // Find: a word only in the sixth of the 3,000 lines, found from the bottom.
    await win.page.evaluate((p) => (window as unknown as { __td: { term(id: string): { scrollToBottom(): void } } }).__td.term(p).scrollToBottom(), id!);
    await win.focusKeyboard(id!);
    await win.page.keyboard.press('Control+Shift+L');
    const input = win.page.locator('.find-bar input');
    await input.waitFor();
    await input.fill(NEEDLE);
    await input.press('Enter');
    await win.waitFor(async () => (await win.page.locator('.find-count').textContent()) === '1 of 1', 'the find bar finds the word once');
    const selection = await win.page.evaluate((p) => (window as unknown as { __td: { term(id: string): { getSelection(): string } } }).__td.term(p).getSelection(), id!);
    expect(selection).toBe(NEEDLE);
  }, 300_000);
});
