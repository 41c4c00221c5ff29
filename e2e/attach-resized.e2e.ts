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
import { launchBrowser, openWindow, startServe, type Serve } from './harness.ts';
import { expectPaneLines, fillThreePanes, lineOf, paneLines } from './filled-panes.ts';
import { scrollToTop } from './history.ts';

let serve: Serve;
let browser: Browser;

const LINES = 300;
/** 96 characters a line: wider than any pane here. */
const REPEAT = 8;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

type Stats = { partial: boolean; syncs: number; snapshotCols: number; snapshotRows: number };
type Td = { term(id: string): { cols: number; rows: number } | null; stats(id: string): Stats | null; live(id: string): boolean };

describe('the first window after the panes were made at another size', () => {
  it('asks each pane\'s snapshot at the size its terminal fits to: drawn once at that size, every line exact', async () => {
    const a = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1400, height: 900 } });
    const ids = await fillThreePanes(a, LINES, REPEAT);
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
      const got = await paneLines(b, id);
      expect(t.stats.partial, `pane-${k}: partial history first`).toBe(true);
      const oldest = got.map((l) => /^pane-\d line (\d{4}) /.exec(l.text)).find((m) => m);
      expect(oldest, `pane-${k}: its lines in the first snapshot`).toBeTruthy();
      expectPaneLines(got, { k, from: Number(oldest![1]), count: LINES, repeat: REPEAT, cols: t.cols }, `pane-${k} first snapshot`);
      await scrollToTop(b, id, { whole: true });
      const all = await paneLines(b, id);
      expectPaneLines(all, { k, from: 1, count: LINES, repeat: REPEAT, cols: t.cols }, `pane-${k} whole history`);
      expect(all.filter((l) => l.text === lineOf(k, 1, REPEAT)).length, `pane-${k}: line 1 once`).toBe(1);
    }
    expect(b.errors).toEqual([]);
    await b.close();
  }, 240_000);
});
