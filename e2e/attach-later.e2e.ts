/**
 * A window attaching makes its focused pane's terminal first and the others' once that one has
 * drawn (issue 38, item 4: TerminalRegistry.opening). A pane made live later has exactly its
 * screen and history: the lines and colours its program wrote, the newest few screens with the
 * first snapshot, every line once the person scrolls to the top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;

const LINES = 400;
/** Pane k's line i, as printf writes it (its colour: 31 + i % 6). */
const lineOf = (k: number, i: number): string => `pane-${k} line ${String(i).padStart(4, '0')} ${'abcdefghij'.repeat(2)}`;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

type Cell = { getFgColor(): number; isFgPalette(): boolean };
type Line = { translateToString(t?: boolean): string; getCell(x: number): Cell | undefined };
type Buf = { length: number; viewportY: number; getLine(y: number): Line | undefined };
type Td = { term(id: string): { rows: number; buffer: { active: Buf } } | null; stats(id: string): { partial: boolean } | null };

/** The pane's buffer in the page: each line's text and the palette colour of its first cell (-1: default). */
function buffer(w: TdPage, paneId: string): Promise<Array<{ text: string; fg: number }>> {
  return w.page.evaluate((id) => {
    const b = (window as unknown as { __td: Td }).__td.term(id)!.buffer.active;
    const out: Array<{ text: string; fg: number }> = [];
    for (let y = 0; y < b.length; y++) {
      const line = b.getLine(y);
      const cell = line?.getCell(0);
      out.push({ text: line?.translateToString(true) ?? '', fg: cell && cell.isFgPalette() ? cell.getFgColor() : -1 });
    }
    return out;
  }, paneId);
}

/** Pane k's lines in the buffer must be exactly its program's, from `from` to the last, each in its colour. */
function expectLines(lines: Array<{ text: string; fg: number }>, k: number, from: number, what: string): void {
  const at = lines.findIndex((l) => l.text === lineOf(k, from));
  expect(at, `${what}: pane-${k} line ${from} in the buffer`).toBeGreaterThanOrEqual(0);
  for (let i = from; i <= LINES; i++) {
    const l = lines[at + i - from]!;
    expect(l.text, `${what}: the line after pane-${k} line ${i - 1}`).toBe(lineOf(k, i));
    expect(l.fg, `${what}: the colour of pane-${k} line ${i}`).toBe(1 + (i % 6));
  }
}

describe('a pane made live after the focused one', () => {
  it('opens the focused pane\'s terminal first, and each other pane has exactly its screen and its whole history', async () => {
    const a = await openWindow(browser, serve, { theme: 'dark' });
    const [first] = await a.paneIds();
    await a.header(first!).getByRole('button', { name: 'Split right' }).click();
    await a.waitFor(async () => (await a.paneIds()).length === 2, 'two panes');
    const [, second] = await a.paneIds();
    await a.header(second!).getByRole('button', { name: 'Split down' }).click();
    await a.waitFor(async () => (await a.paneIds()).length === 3, 'three panes');
    const ids = await a.paneIds();
    for (const id of ids) await a.waitForPrompt(id);
    for (const [k, id] of ids.entries()) {
      await a.typeLine(id, `for i in $(seq 1 ${LINES}); do printf '\\033[3%dm%s\\033[0m\\n' $((1 + i % 6)) "pane-${k} line $(printf %04d $i) ${'abcdefghij'.repeat(2)}"; done; echo done-$((${k} + 1))`);
    }
    for (const [k, id] of ids.entries()) await a.waitForText(id, new RegExp(`^done-${k + 1}$`, 'm'), 60_000);
    for (const id of ids) await a.waitForPrompt(id);
    await a.close();

    // A fresh window: the focused pane's terminal is opened first, the others after it.
    const b = await openWindow(browser, serve, { theme: 'dark' });
    const focused = await b.focused();
    expect(ids).toContain(focused);
    const opened = await b.page.evaluate(() => performance.getEntriesByName('td:terminal-open').map((m) => (m as PerformanceMark).detail as string));
    expect(opened[0], 'the first terminal opened').toBe(focused);
    expect([...opened].sort()).toEqual([...ids].sort());
    for (const [k, id] of ids.entries()) {
      await b.waitFor(() => b.page.evaluate((p) => (window as unknown as { __td: { live(id: string): boolean } }).__td.live(p), id), `pane-${k} live`);
      await b.waitForPrompt(id);
      // The first snapshot: the newest lines, exact, and the history marked partial (the rest comes on scrolling up).
      const before = await buffer(b, id);
      expect(await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.stats(p)!.partial, id), `pane-${k}: partial history first`).toBe(true);
      const oldest = before.map((l) => /^pane-\d line (\d{4}) /.exec(l.text)).find((m) => m);
      expect(oldest, `pane-${k}: its lines in the first snapshot`).toBeTruthy();
      expectLines(before, k, Number(oldest![1]), `pane-${k} first snapshot`);
      // Scrolled to the top as a person does: the whole history, every line once, in its colour.
      await b.focusKeyboard(id);
      let steady = 0;
      while (steady < 3) {
        await b.page.keyboard.press('Shift+PageUp');
        const top = await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.term(p)!.buffer.active.viewportY, id);
        const partial = await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.stats(p)!.partial, id);
        steady = top === 0 && !partial ? steady + 1 : 0;
      }
      const all = await buffer(b, id);
      expectLines(all, k, 1, `pane-${k} whole history`);
      expect(all.filter((l) => l.text === lineOf(k, 1)).length, `pane-${k}: line 1 once`).toBe(1);
    }
    expect(b.errors).toEqual([]);
    await b.close();
  }, 240_000);
});
