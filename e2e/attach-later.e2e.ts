/**
 * A window attaching makes its focused pane's terminal first and the others' once that one has
 * drawn (issue 38, item 4: TerminalRegistry.opening). A pane made live later has exactly its
 * screen and history: the lines and colours its program wrote, the newest few screens with the
 * first snapshot, every line once the person scrolls to the top.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWindow, startServe, type Serve } from './harness.ts';
import { expectPaneLines, fillThreePanes, lineOf, paneLines } from './filled-panes.ts';
import { scrollToTop } from './history.ts';

let serve: Serve;
let browser: Browser;

const LINES = 400;
const REPEAT = 2;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

type Td = { stats(id: string): { partial: boolean } | null };

describe('a pane made live after the focused one', () => {
  it('opens the focused pane\'s terminal first, and each other pane has exactly its screen and its whole history', async () => {
    const a = await openWindow(browser, serve, { theme: 'dark' });
    const ids = await fillThreePanes(a, LINES, REPEAT);
    await a.close();

    // A fresh window: the focused pane's terminal is opened first, the others after it. On every
    // frame until the first paint has gone, each pane of the window is checked: its header held in
    // React's first render (an empty bar: panes/reveal.ts) only while its part of the first paint
    // still shows over it.
    const b = await openWindow(browser, serve, {
      theme: 'dark',
      beforeLoad: async (page) => void await page.addInitScript(() => {
        const w = window as unknown as { __headers: { held: number; bare: string[]; done: boolean } };
        w.__headers = { held: 0, bare: [], done: false };
        const check = (): void => {
          const fp = document.getElementById('td-first-paint');
          const panes = [...document.querySelectorAll<HTMLElement>('#root .pane[data-pane-id]')];
          let titled = 0;
          for (const pane of panes) {
            const id = pane.dataset.paneId!;
            if (pane.querySelector('.pane-header .pane-title')) {
              titled++;
              continue;
            }
            w.__headers.held++;
            const part = fp ? [...fp.querySelectorAll<HTMLElement>('.pane[data-first-paint-pane]')].find((el) => el.dataset.firstPaintPane === id) : undefined;
            if ((!part || part.classList.contains('first-paint-gone')) && !w.__headers.bare.includes(id)) w.__headers.bare.push(id);
          }
          if (!fp && panes.length > 0 && titled === panes.length) w.__headers.done = true;
          else requestAnimationFrame(check);
        };
        requestAnimationFrame(check);
      }),
    });
    await b.waitFor(() => b.page.evaluate(() => (window as unknown as { __headers: { done: boolean } }).__headers.done), 'the first paint gone, every header in');
    const headers = await b.page.evaluate(() => (window as unknown as { __headers: { held: number; bare: string[] } }).__headers);
    expect(headers.bare, 'panes shown with a held header, their first paint gone').toEqual([]);
    expect(headers.held, 'frames with a pane\'s header held (the first render in pieces)').toBeGreaterThan(0);
    const focused = await b.focused();
    expect(ids).toContain(focused);
    const opened = await b.page.evaluate(() => performance.getEntriesByName('td:terminal-open').map((m) => (m as PerformanceMark).detail as string));
    expect(opened[0], 'the first terminal opened').toBe(focused);
    expect([...opened].sort()).toEqual([...ids].sort());
    for (const [k, id] of ids.entries()) {
      await b.waitFor(() => b.page.evaluate((p) => (window as unknown as { __td: { live(id: string): boolean } }).__td.live(p), id), `pane-${k} live`);
      await b.waitForPrompt(id);
      // The first snapshot: the newest lines, exact, and the history marked partial (the rest comes on scrolling up).
      const before = await paneLines(b, id);
      expect(await b.page.evaluate((p) => (window as unknown as { __td: Td }).__td.stats(p)!.partial, id), `pane-${k}: partial history first`).toBe(true);
      const oldest = before.map((l) => /^pane-\d line (\d{4}) /.exec(l.text)).find((m) => m);
      expect(oldest, `pane-${k}: its lines in the first snapshot`).toBeTruthy();
      expectPaneLines(before, { k, from: Number(oldest![1]), count: LINES, repeat: REPEAT }, `pane-${k} first snapshot`);
      // Scrolled to the top as a person does: the whole history, every line once, in its colour.
      await scrollToTop(b, id, { whole: true });
      const all = await paneLines(b, id);
      expectPaneLines(all, { k, from: 1, count: LINES, repeat: REPEAT }, `pane-${k} whole history`);
      expect(all.filter((l) => l.text === lineOf(k, 1, REPEAT)).length, `pane-${k}: line 1 once`).toBe(1);
    }
    expect(b.errors).toEqual([]);
    await b.close();
  }, 240_000);
});
