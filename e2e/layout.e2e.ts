/**
 * Where new panes go (issue 35, item 12): six new panes in a 1600 × 900 window, made as a
 * person makes them (new pane, Split right on the focused pane, + Agent's way), each get at
 * least 40 columns and 8 rows; then the benches open with a card on each, and the window is
 * kept as screenshots in light and dark (e2e/artifacts/layout-*.png).
 * The real serve shell, real bash in real PTYs, Debian's Chromium, the real keyboard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { dropSurface, launchBrowser, openWindow, paneFolder, startServe, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;

const VIEWPORT = { width: 1600, height: 900 };

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: 'dark', viewport: VIEWPORT });
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

async function sizes(w: TdPage): Promise<Array<{ id: string; cols: number; rows: number }>> {
  const out = [];
  for (const id of await w.paneIds()) {
    const s = await w.size(id);
    out.push({ id, cols: s?.cols ?? 0, rows: s?.rows ?? 0 });
  }
  return out;
}

describe('new panes where there is room', () => {
  it('gives each of six new panes at least 40 columns and 8 rows, and looks right with the benches open', async () => {
    const [first] = await win.paneIds();
    await win.waitForPrompt(first!);
    for (let i = 1; i <= 6; i++) {
      const focused = (await win.focused())!;
      if (i % 2 === 0) {
        // Split right on the focused pane, again and again: what used to halve it each time.
        await win.header(focused).getByRole('button', { name: 'Split right' }).click();
      } else {
        await win.focusKeyboard(focused);
        await win.page.keyboard.press('Control+Shift+T');
      }
      await win.waitFor(async () => (await win.paneIds()).length === i + 1, `${i + 1} panes`);
    }
    const ids = await win.paneIds();
    for (const id of ids) await win.waitForPrompt(id);
    let last: unknown;
    await win.waitFor(async () => {
      const s = await sizes(win);
      last = s;
      return s.every((p) => p.cols >= 40 && p.rows >= 8);
    }, 'every pane at least 40 × 8').catch((e: Error) => {
      throw new Error(`${e.message}: ${JSON.stringify(last)}`);
    });
    // And the shells see it too.
    for (const id of ids) expect((await win.waitForPtySize(id)).cols).toBeGreaterThanOrEqual(40);
    expect(win.errors).toEqual([]);

    // In this window an eighth pane would fit (below the tall one); in a smaller one (the window tells the
    // core its size, layout.area) there is no room, and the window says so in one sentence.
    await win.page.setViewportSize({ width: 1000, height: 700 });
    const notice = win.page.locator('.notice', { hasText: 'there is no room for another pane' });
    let tries = 0;
    while ((await notice.count()) === 0) {
      expect(++tries).toBeLessThan(10);
      const before = (await win.paneIds()).length;
      await win.focusKeyboard((await win.focused())!);
      await win.page.keyboard.press('Control+Shift+T');
      await win.waitFor(async () => (await notice.count()) > 0 || (await win.paneIds()).length > before, 'a new pane or a notice');
    }
    expect(await notice.first().textContent()).toMatch(/^Opening a new pane failed: there is no room for another pane: each pane keeps at least 40 columns and 8 rows \(\d+ × \d+ px here\), so close a pane or make the window bigger/);
    // (A press before the window's new size reached the core made a pane; those go again.)
    for (const id of await win.paneIds()) if (!ids.includes(id)) await win.header(id).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === ids.length, 'the first seven panes again');
    await win.page.setViewportSize(VIEWPORT);
    await win.page.evaluate(() => {
      const st = (window as unknown as { __td: { store: { getState(): { notices: Array<{ id: number }>; dismissNotice(id: number): void } } } }).__td.store.getState();
      for (const n of st.notices) st.dismissNotice(n.id);
    });


    // Benches open, each with a card, as agents use them.
    for (const [i, id] of ids.entries()) {
      const folder = await paneFolder(win, serve, id);
      dropSurface(folder, {
        id: `d${i}`,
        kind: 'decision',
        title: 'Decide the cache policy',
        model: {
          question: 'LRU or TTL?',
          options: [{ name: 'LRU', recommended: true, case: '3× fewer misses.' }, { name: 'TTL', case: 'Simple.' }],
        },
      });
      await win.header(id).getByRole('button', { name: 'Open bench' }).click();
    }
    await win.waitFor(async () => (await win.page.locator('.pane-bench').count()) === ids.length, 'every bench open');
    await win.waitFor(async () => (await win.page.getByText('Decide the cache policy').count()) >= ids.length, 'a card on every bench');
    await win.screenshot('layout-7-panes-benches-dark');
    await win.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { setThemeOverride(t: string): void } } } }).__td.store.getState().setThemeOverride('light'));
    await win.waitFor(() => win.page.evaluate(() => document.documentElement.dataset.theme === 'light'), 'the light theme');
    await win.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await win.screenshot('layout-7-panes-benches-light');
    // A narrow pane puts its bench below its terminal: the terminal keeps its columns and at least 8 rows.
    await win.waitFor(async () => (await sizes(win)).every((p) => p.cols >= 40 && p.rows >= 8), 'every terminal at least 40 × 8 with its bench open');
    // And the cards' titles are whole.
    const titles = await win.page.locator('.tdb-title').evaluateAll((els) => els.map((e) => e.scrollWidth <= e.clientWidth + 1));
    expect(titles.length).toBe(ids.length);
    expect(titles.every(Boolean)).toBe(true);

    // A short window: the benches sit beside the terminals again, and a narrow card's title wraps rather than ending in "…".
    await win.page.setViewportSize({ width: 1600, height: 600 });
    await win.waitFor(() => win.page.evaluate(() => getComputedStyle(document.querySelector('.pane-body')!).flexDirection === 'row'), 'the benches beside the terminals');
    await win.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await win.screenshot('layout-7-panes-benches-short-light');
    const whole = await win.page.locator('.tdb-title').evaluateAll((els) => els.map((e) => e.scrollHeight <= e.clientHeight + 1 && e.scrollWidth <= e.clientWidth + 1));
    expect(whole.every(Boolean)).toBe(true);
  });
});
