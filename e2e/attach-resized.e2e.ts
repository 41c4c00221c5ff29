/**
 * The first window after the panes were made at another size (issue 38, item 4): each pane's
 * snapshot is asked at the size its terminal fits to in this window, read from the door's first
 * paint (renderer/early.ts, `firstPaintSize`), so the core resizes the pane and answers at that
 * size: the terminal draws it once (no snapshot at the old size reflowed in the page, no second
 * ask), and the pane's lines are exact: text, colours and wrapping at the new width, the whole
 * history once the person scrolls to the top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;

const LINES = 300;
/** Pane k's line i, as printf writes it (its colour: 31 + i % 6): 96 characters, wider than any pane here. */
const lineOf = (k: number, i: number): string => `pane-${k} line ${String(i).padStart(4, '0')} ${'abcdefghij'.repeat(8)}`;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

type Cell = { getFgColor(): number; isFgPalette(): boolean };
type Line = { isWrapped: boolean; translateToString(t?: boolean): string; getCell(x: number): Cell | undefined };
type Buf = { length: number; viewportY: number; getLine(y: number): Line | undefined };
type Stats = { partial: boolean; syncs: number; snapshotCols: number; snapshotRows: number };
type Td = { term(id: string): { cols: number; rows: number; buffer: { active: Buf } } | null; stats(id: string): Stats | null; live(id: string): boolean };

/** The pane's lines in the page, wrapped rows joined: each line's text, the palette colour of its first cell (-1: default), and how many rows it took. */
function lines(w: TdPage, paneId: string): Promise<Array<{ text: string; fg: number; rows: number }>> {
  return w.page.evaluate((id) => {
    const b = (window as unknown as { __td: Td }).__td.term(id)!.buffer.active;
    const out: Array<{ text: string; fg: number; rows: number }> = [];
    for (let y = 0; y < b.length; y++) {
      const line = b.getLine(y);
      const text = line?.translateToString(true) ?? '';
      if (line?.isWrapped && out.length) {
        const last = out[out.length - 1]!;
        last.text += text;
        last.rows++;
        continue;
      }
      const cell = line?.getCell(0);
      out.push({ text, fg: cell && cell.isFgPalette() ? cell.getFgColor() : -1, rows: 1 });
    }
    return out;
  }, paneId);
}

/** Pane k's lines must be exactly its program's from `from` to the last, each in its colour, wrapped at `cols`. */
function expectLines(got: Array<{ text: string; fg: number; rows: number }>, k: number, from: number, cols: number, what: string): void {
  const at = got.findIndex((l) => l.text === lineOf(k, from));
  expect(at, `${what}: pane-${k} line ${from} in the buffer`).toBeGreaterThanOrEqual(0);
  for (let i = from; i <= LINES; i++) {
    const l = got[at + i - from]!;
    expect(l.text, `${what}: the line after pane-${k} line ${i - 1}`).toBe(lineOf(k, i));
    expect(l.fg, `${what}: the colour of pane-${k} line ${i}`).toBe(1 + (i % 6));
    expect(l.rows, `${what}: the rows pane-${k} line ${i} wraps onto at ${cols} columns`).toBe(Math.ceil(lineOf(k, i).length / cols));
  }
}

describe('the first window after the panes were made at another size', () => {
  it('asks each pane\'s snapshot at the size its terminal fits to: drawn once at that size, every line exact', async () => {
    const a = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1400, height: 900 } });
    const [first] = await a.paneIds();
    await a.header(first!).getByRole('button', { name: 'Split right' }).click();
    await a.waitFor(async () => (await a.paneIds()).length === 2, 'two panes');
    const [, second] = await a.paneIds();
    await a.header(second!).getByRole('button', { name: 'Split down' }).click();
    await a.waitFor(async () => (await a.paneIds()).length === 3, 'three panes');
    const ids = await a.paneIds();
    for (const id of ids) await a.waitForPrompt(id);
    for (const [k, id] of ids.entries()) {
      await a.typeLine(id, `for i in $(seq 1 ${LINES}); do printf '\\033[3%dm%s\\033[0m\\n' $((1 + i % 6)) "pane-${k} line $(printf %04d $i) ${'abcdefghij'.repeat(8)}"; done; echo done-$((${k} + 1))`);
    }
    for (const [k, id] of ids.entries()) await a.waitForText(id, new RegExp(`^done-${k + 1}$`, 'm'), 60_000);
    for (const id of ids) await a.waitForPrompt(id);
    const before = await a.page.evaluate((list) => list.map((id) => {
      const t = (window as unknown as { __td: Td }).__td.term(id)!;
      return { cols: t.cols, rows: t.rows };
    }), ids);
    await a.close();

    // A smaller window: every pane fits to another size than the core has it at.
    const b = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 960, height: 640 } });
    for (const [k, id] of ids.entries()) {
      await b.waitFor(() => b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.live(p), id), `pane-${k} live`);
      await b.waitForPrompt(id);
      const t = await b.page.evaluate((p) => {
        const td = (window as unknown as { __td: Td }).__td;
        const term = td.term(p)!;
        return { cols: term.cols, rows: term.rows, stats: td.stats(p)! };
      }, id);
      expect(t.cols === before[k]!.cols && t.rows === before[k]!.rows, `pane-${k}: a size other than the first window's`).toBe(false);
      // Asked once, answered at the size the terminal fits to (the first paint said it right).
      expect({ cols: t.stats.snapshotCols, rows: t.stats.snapshotRows }, `pane-${k}: its snapshot's size`).toEqual({ cols: t.cols, rows: t.rows });
      expect(t.stats.syncs, `pane-${k}: snapshots asked`).toBe(1);
      // The newest lines, exact at the new width; the rest when scrolled to the top.
      const got = await lines(b, id);
      expect(t.stats.partial, `pane-${k}: partial history first`).toBe(true);
      const oldest = got.map((l) => /^pane-\d line (\d{4}) /.exec(l.text)).find((m) => m);
      expect(oldest, `pane-${k}: its lines in the first snapshot`).toBeTruthy();
      expectLines(got, k, Number(oldest![1]), t.cols, `pane-${k} first snapshot`);
      await b.focusKeyboard(id);
      let steady = 0;
      while (steady < 3) {
        await b.page.keyboard.press('Shift+PageUp');
        const top = await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.term(p)!.buffer.active.viewportY, id);
        const partial = await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.stats(p)!.partial, id);
        steady = top === 0 && !partial ? steady + 1 : 0;
      }
      const all = await lines(b, id);
      expectLines(all, k, 1, t.cols, `pane-${k} whole history`);
      expect(all.filter((l) => l.text === lineOf(k, 1)).length, `pane-${k}: line 1 once`).toBe(1);
    }
    expect(b.errors).toEqual([]);
    await b.close();
  }, 240_000);
});
