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
import { colourLines, expectHistoryExact, stats } from './history.ts';
import type { Browser } from 'playwright-core';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let dir: string;

const LINES = 3_000;
const NEEDLE = 'zebraneedle';

windowForFile((w) => ({ serve, browser, win } = w));

beforeAll(() => {
  dir = tempDir('history-exact');
  fs.writeFileSync(path.join(dir, 'colours.txt'), colourLines(LINES, { needle: NEEDLE }).join('\n') + '\n');
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

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
    await win.waitFor(async () => (await stats<{ syncs: number }>(win, id!)).syncs > 0, 'the fresh window\'s first snapshot');
    expect((await stats<{ partial: boolean }>(win, id!)).partial, 'the first snapshot left older lines out').toBe(true);
    // No visible jump: the view at the top of the partial history asks for the rest, and once it
    // is drawn above, the view still shows the same line at its top (not the history's first).
    type Viewed = { buffer: { active: { viewportY: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } }; scrollToTop(): void };
    const topLine = (scroll: boolean) => win.page.evaluate(([p, s]) => {
      const t = (window as unknown as { __td: { term(id: string): Viewed } }).__td.term(p as string);
      if (s) t.scrollToTop();
      const b = t.buffer.active;
      return { y: b.viewportY, text: b.getLine(b.viewportY)?.translateToString(true) ?? '' };
    }, [id!, scroll] as const);
    const before = await topLine(true);
    expect(before.y).toBe(0);
    await win.waitFor(async () => !(await stats<{ partial: boolean }>(win, id!)).partial, 'the rest of the history, asked for at the top');
    const after = await topLine(false);
    expect(after.y, 'older lines above the view').toBeGreaterThan(0);
    expect(after.text, 'the same line at the view\'s top').toBe(before.text);
    // Scrolled to the top as a person does, the rest of the history arrives; then every row is the reference's.
    const ref = await expectHistoryExact(win, id!, fs.readFileSync(path.join(dir, 'colours.txt'), 'utf8'));
    try {
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
