/**
 * Panes out of view are not drawn (issue 38, item 2; docs/spec/window.md, "Panes out of view"):
 * a window whose page is hidden, or whose pane is too small to read, receives no byte of the
 * pane's output while it is so (counted by its terminal: every output event for the pane,
 * written or dropped) and no redraw; shown again, it draws the pane at once, its screen and its
 * whole history cell by cell as a reference xterm fed the same bytes. A second window of the
 * same pane, in view, types the floods and reads them all meanwhile.
 *
 * Headless Chromium never hides a page by itself (a minimized window, a second tab brought to
 * the front, Page.setWebLifecycleState: all leave `document.visibilityState` 'visible'), so the
 * test sets it as the browser does for a minimized window, and sends `visibilitychange`.
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
/** The second window on the same pane, always in view: it types and reads the floods. */
let other: TdPage;

const VIEWPORT = { width: 1280, height: 800 };

interface Stats { written: number; dropped: number; syncs: number; view: string; shows: number; partial: boolean }

windowForFile((w) => ({ serve, browser, win } = w), { theme: 'dark', viewport: VIEWPORT });

beforeAll(async () => {
  dir = tempDir('view');
  fs.writeFileSync(path.join(dir, 'a.txt'), colourLines(2_000, { seed: 7, prefix: 'A' }).join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'b.txt'), colourLines(2_000, { seed: 8, prefix: 'B' }).join('\n') + '\n');
  other = await openWindow(browser, serve, { theme: 'dark', viewport: VIEWPORT });
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Characters of the pane's output that reached its terminal in the page (drawn or dropped). */
const received = (s: Stats): number => s.written + s.dropped;

/** The page hidden (as for a minimized window) or shown again. */
function setHidden(w: TdPage, hidden: boolean): Promise<void> {
  return w.page.evaluate((h) => {
    if (h) {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
    } else {
      delete (document as unknown as Record<string, unknown>).visibilityState;
      delete (document as unknown as Record<string, unknown>).hidden;
    }
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

/**
 * Out of view (its terminal told the core, and the core answered: no output comes after that
 * answer on the ordered socket), the other window floods the pane with `file`; the window
 * out of view receives nothing and redraws nothing meanwhile.
 */
async function floodWhileOutOfView(id: string, file: string, done: string): Promise<void> {
  await win.waitFor(async () => (await stats<Stats>(win, id)).view === 'hidden', 'the core to know the pane is out of view');
  const before = await stats<Stats>(win, id);
  await other.focusKeyboard(id);
  await other.page.keyboard.type(`cat ${path.join(dir, file)}; echo ${done}-$((6*7))`);
  await other.page.keyboard.press('Enter');
  await other.waitForText(id, new RegExp(`^${done}-42$`, 'm'), 120_000, 5);
  await other.waitForPrompt(id);
  const after = await stats<Stats>(win, id);
  expect(received(after), 'characters of the pane\'s output that reached the window out of view').toBe(received(before));
  expect(after.syncs, 'snapshots asked for while out of view').toBe(before.syncs);
  expect(after.view).toBe('hidden');
}

describe('a pane out of view', () => {
  it('on a hidden page gets no byte of a flood, and shown again shows its screen and whole history exactly', async () => {
    const [id] = (await win.paneIds()) as [string];
    await win.waitForPrompt(id);
    await other.waitForPrompt(id);
    await setHidden(win, true);
    await floodWhileOutOfView(id, 'a.txt', 'a-done');
    await setHidden(win, false);
    // Drawn at once: the snapshot asked for as the page is shown, not at the next redraw.
    await win.waitFor(async () => (await stats<Stats>(win, id)).shows === 1, 'the redraw on being shown');
    await win.waitForText(id, /^a-done-42$/m, 20_000, 5);
    await win.waitForPrompt(id);
    (await expectHistoryExact(win, id, fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'A')).term.dispose();
    // In view again, it is sent the pane's output as it comes.
    const before = received(await stats<Stats>(win, id));
    await other.typeLine(id, 'echo live-$((6*7))');
    await win.waitForText(id, /^live-42$/m);
    expect(received(await stats<Stats>(win, id))).toBeGreaterThan(before);
  }, 300_000);

  it('too small to read gets no byte of a flood, and enlarged shows its screen and whole history exactly', async () => {
    const [id] = (await win.paneIds()) as [string];
    const { shows } = await stats<Stats>(win, id);
    // A window too short for 3 rows of the pane: 2 rows (the first height that fits them; a pane
    // of 1 row is checked by main/panes/screen-history.test.ts).
    for (let height = 80; ; height += 4) {
      await win.page.setViewportSize({ width: VIEWPORT.width, height });
      await win.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      const rows = (await win.size(id))!.rows;
      if (rows === 2) break;
      expect(rows, `the pane's rows at a window ${height} px tall`).toBeLessThan(2);
    }
    await floodWhileOutOfView(id, 'b.txt', 'b-done');
    await win.page.setViewportSize(VIEWPORT);
    await win.waitFor(async () => (await stats<Stats>(win, id)).shows === shows + 1, 'the redraw on being enlarged');
    await win.waitForText(id, /^b-done-42$/m, 20_000, 5);
    (await expectHistoryExact(win, id, fs.readFileSync(path.join(dir, 'b.txt'), 'utf8'), 'B')).term.dispose();
  }, 300_000);
});
