/**
 * The window end to end: the real serve shell (child process, real PTYs running
 * bash), the built renderer in Debian's Chromium, the real keyboard and mouse.
 * Screenshots of the window in light and dark go to e2e/artifacts/ on every run.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Layout } from '../preload/contract.ts';
import { loseWebglContext, openWindow, type Serve, type TdPage } from './harness.ts';
import { windowForFile } from './fixture.ts';
import type { Browser, WebSocketRoute } from 'playwright-core';

let serve: Serve;
let browser: Browser;
let win: TdPage;

windowForFile((w) => ({ serve, browser, win } = w));

function sizesOf(layout: Layout | null): number[][] {
  if (!layout || layout.type === 'pane') return [];
  return [layout.sizes, ...layout.children.flatMap(sizesOf)];
}

/** A pane's box on screen. */
async function box(w: TdPage, paneId: string) {
  const b = await w.page.locator(`[data-pane-id="${paneId}"]`).boundingBox();
  if (!b) throw new Error(`pane ${paneId} is not on screen`);
  return b;
}

/** Panes in this window that still run, with their prompt shown. */
async function freshPane(w: TdPage): Promise<string> {
  const [id] = await w.paneIds();
  await w.waitForPrompt(id!);
  return id!;
}

describe('the window', () => {
  it('types `echo hello` into a pane and shows hello', async () => {
    const id = await freshPane(win);
    await win.typeLine(id, 'echo hello');
    await win.waitForText(id, /^hello$/m);
    // Loaded under serve's strict CSP with nothing refused and nothing thrown.
    expect(win.errors).toEqual([]);
  });

  it('splits right and down, drags a divider (saved), and closes a pane (the tree re-flows)', async () => {
    const [first] = await win.paneIds();
    await win.header(first!).getByRole('button', { name: 'Split right' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'two panes after split right');
    const [, second] = await win.paneIds();
    await win.header(second!).getByRole('button', { name: 'Split down' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 3, 'three panes after split down');
    const ids = await win.paneIds();
    const layout = await win.layout();
    expect(layout).toMatchObject({ type: 'split', direction: 'row', children: [{ type: 'pane' }, { type: 'split', direction: 'column' }] });
    // The new pane got the keyboard: typing goes there (once pane.create has answered: the layout can come first).
    await win.waitFor(async () => (await win.focused()) === ids[2], 'the new pane focused');
    for (const id of ids) await win.waitForPrompt(id);

    // Side by side, then one above the other.
    const [a, b, c] = await Promise.all(ids.map((id) => box(win, id)));
    expect(a!.x + a!.width).toBeLessThanOrEqual(b!.x + 1);
    expect(b!.y + b!.height).toBeLessThanOrEqual(c!.y + 1);

    const cols0 = (await win.size(ids[0]!))!.cols;
    // Drag the vertical divider 200 px to the right.
    const divider = win.page.locator('.divider-vertical').first();
    const d = (await divider.boundingBox())!;
    await win.page.mouse.move(d.x + d.width / 2, d.y + d.height / 2);
    await win.page.mouse.down();
    await win.page.mouse.move(d.x + d.width / 2 + 100, d.y + d.height / 2, { steps: 4 });
    await win.page.mouse.move(d.x + d.width / 2 + 200, d.y + d.height / 2, { steps: 4 });
    await win.page.mouse.up();
    const after = await box(win, ids[0]!);
    expect(after.width).toBeGreaterThan(a!.width + 150);
    const [rootSizes] = sizesOf(await win.layout());
    expect(rootSizes![0]).toBeGreaterThan(0.6);
    // A focused divider moves with the arrow keys too (2% a press), and is saved.
    await divider.focus();
    await win.page.keyboard.press('ArrowLeft');
    await win.waitFor(async () => Math.abs(sizesOf(await win.layout())[0]![0]! - (rootSizes![0]! - 0.02)) < 0.001, 'the divider 2% to the left');
    rootSizes![0] = sizesOf(await win.layout())[0]![0]!;
    // The terminal re-fitted to the new width, and the PTY follows.
    await win.waitFor(async () => ((await win.size(ids[0]!))?.cols ?? 0) > cols0 + 10, 'the wider pane to have more columns');
    expect((await win.waitForPtySize(ids[0]!)).cols).toBeGreaterThan(cols0 + 10);
    // Saved in the core: a second window gets the same sizes from its hello.
    const other = await openWindow(browser, serve, { theme: 'dark' });
    try {
      await other.waitFor(async () => {
        const s = sizesOf(await other.layout())[0];
        return !!s && Math.abs(s[0]! - rootSizes![0]!) < 0.01;
      }, 'the dragged sizes in a second window');
    } finally {
      await other.close();
    }

    // Close the middle pane: the bottom-right one takes its place.
    await win.header(ids[1]!).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'two panes after close');
    expect(await win.paneIds()).toEqual([ids[0], ids[2]]);
    const ws = win.page.locator('main.workspace');
    const wb = (await ws.boundingBox())!;
    const [l, r] = await Promise.all([box(win, ids[0]!), box(win, ids[2]!)]);
    // Re-flowed: the remaining right pane fills the full height again.
    expect(r.height).toBeGreaterThan(wb.height - 20);
    expect(l.height).toBeGreaterThan(wb.height - 20);
    await win.header(ids[2]!).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 1, 'one pane left');
    const only = await box(win, ids[0]!);
    expect(only.width).toBeGreaterThan(wb.width - 20);
  });

  it('shows a pane\'s exit status in its header, and Restart starts it again', async () => {
    const id = await freshPane(win);
    await win.typeLine(id, 'exit 3');
    const status = win.header(id).getByTestId('exit-status');
    await status.waitFor({ timeout: 20_000 });
    expect(await status.textContent()).toBe('exited 3');
    expect((await win.pane(id))?.status).toBe('exited');
    await win.header(id).getByRole('button', { name: 'Restart' }).click();
    await win.waitFor(async () => (await win.pane(id))?.status === 'running', 'the pane to run again');
    await expect(status.count()).resolves.toBe(0);
    await win.waitForPrompt(id);
    await win.typeLine(id, 'echo again-$((40+2))');
    await win.waitForText(id, /^again-42$/m);
  });

  it('shows everything a process wrote just before it exited', async () => {
    const id = await freshPane(win);
    for (let round = 1; round <= 3; round++) {
      // The pane's own process becomes the writer and exits the moment it is done.
      await win.typeLine(id, `exec bash -c 'head -c 65536 /dev/zero | tr "\\0" y; echo; echo tail-marker-$((${round}*11))'`);
      const status = win.header(id).getByTestId('exit-status');
      await status.waitFor({ timeout: 20_000 });
      await win.waitForText(id, new RegExp(`^tail-marker-${round * 11}$`, 'm'), 10_000, 20);
      expect(await status.textContent()).toBe('exited 0');
      await win.header(id).getByRole('button', { name: 'Restart' }).click();
      await win.waitFor(async () => (await win.pane(id))?.status === 'running', 'the pane to run again');
      await win.waitForPrompt(id);
    }
  });

  it('takes a 200 MB flood to the end and stays responsive', async () => {
    const id = await freshPane(win);
    // $((…)) keeps the marker out of the echoed command line. Throughput: npm run bench -- window.
    type Stats = { syncs: number; redraws: number; dropped: number; written: number };
    const stats = () => win.page.evaluate((paneId) => (window as unknown as { __td: { stats(id: string): Stats } }).__td.stats(paneId), id);
    const before = await stats();
    await win.typeLine(id, "yes 'Terminal Delight flood 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c 200000000; echo; echo flood-done-$((6*7))");
    await win.waitForText(id, /^flood-done-42$/m, 240_000, 5);
    // Left behind, it redrew from the core's screen while the flood ran. The core sends a
    // window nothing between pane.stale and its snapshot, so the page drops next to nothing
    // and asks once a redraw (before: 1.3 of 2.2 MB dropped, 17 snapshots for 9 redraws).
    const after = await stats();
    const redraws = after.redraws - before.redraws;
    expect(redraws).toBeGreaterThan(1);
    expect(after.dropped - before.dropped).toBeLessThan((after.written - before.written) / 10);
    // (A page too busy to ask within FLOW.skipRedrawMs is sent output, drops it and asks again.)
    expect(after.syncs - before.syncs - redraws).toBeLessThan(redraws / 2 + 1);
    await win.typeLine(id, 'echo still-here-$((1+1))');
    await win.waitForText(id, /^still-here-2$/m, 15_000);
  }, 300_000);

  it('skips ahead in a long flood: draws a fraction of a 12 MB cat, and once it ends holds its last 10,000 lines exactly', async () => {
    const id = await freshPane(win);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-skip-'));
    const file = path.join(dir, 'lines.txt');
    const lines = Array.from({ length: 400_000 }, (_, i) => `line ${String(i).padStart(8, '0')} \x1b[3${i % 8}mof the flood\x1b[0m ${'-'.repeat(i % 7)}`);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    type Stats = { written: number; syncs: number; redraws: number; partial: boolean };
    const stats = () => win.page.evaluate((paneId) => (window as unknown as { __td: { stats(id: string): Stats } }).__td.stats(paneId), id);
    const before = await stats();
    // A second window, in light, left behind too: both draw the end from the core's screen.
    const light = await openWindow(browser, serve, { theme: 'light' });
    try {
      await light.waitForPrompt(id);
      await win.typeLine(id, `cat ${file}; echo skip-done-$((6*7))`);
      await win.waitForText(id, /^skip-done-42$/m, 120_000, 5);
      await light.waitForText(id, /^skip-done-42$/m, 120_000, 5);
      for (const w of [win, light]) await w.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      await win.screenshot('flood-skipped-dark');
      await light.screenshot('flood-skipped-light');
    } finally {
      await light.close();
    }
    const after = await stats();
    // Most of the flood never reached the page: it was left behind and redrew from the core's screen.
    expect(after.written - before.written).toBeLessThan(fs.statSync(file).size / 2);
    expect(after.redraws).toBeGreaterThan(before.redraws);
    // The redraws during the flood carried a short history; the one after it (or a fetch once
    // its output went quiet) the whole of it, without the person scrolling to the top
    // (e2e/flood-history.e2e.ts scrolls there as a person does).
    await win.waitFor(async () => !(await stats()).partial, 'the whole history fetched once the flood ended');
    const text = await win.page.evaluate((paneId) => (window as unknown as { __td: { text(id: string): string } }).__td.text(paneId), id);
    const shown = text.split('\n');
    const end = shown.lastIndexOf('skip-done-42');
    const plain = lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(shown.slice(end - 10_000, end).map((l) => l.trimEnd())).toEqual(plain.slice(-10_000).map((l) => l.trimEnd()));
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('keeps the view still while the person reads scrollback during a long flood, and catches up once they are back at the bottom', async () => {
    const id = await freshPane(win);
    type Term = { scrollLines(n: number): void; scrollToBottom(): void; buffer: { active: { viewportY: number; baseY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined } } };
    type Td = { term(id: string): Term; stats(id: string): { dropped: number }; live(id: string): boolean };
    const view = () => win.page.evaluate((paneId) => {
      const t = (window as unknown as { __td: Td }).__td.term(paneId);
      const b = t.buffer.active;
      return { top: b.getLine(b.viewportY)?.translateToString(true), atBottom: b.viewportY >= b.baseY };
    }, id);
    const state = () => win.page.evaluate((paneId) => {
      const td = (window as unknown as { __td: Td }).__td;
      return { dropped: td.stats(paneId).dropped, live: td.live(paneId) };
    }, id);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-behind-'));
    const done = path.join(dir, 'done');
    await win.typeLine(id, `clear; seq -f 'before %g' 1 3000; sleep 2; yes 'a long flood line 0123456789' | head -c 100000000; echo; echo behind-done-$((5*5)); : > ${done}`);
    await win.waitForText(id, /^before 3000$/m);
    // A person scrolls up to read, before the flood comes.
    await win.page.evaluate((paneId) => (window as unknown as { __td: Td }).__td.term(paneId).scrollLines(-100), id);
    expect((await view()).atBottom).toBe(false);
    // The flood leaves the window behind: it stops drawing and stays on the line it shows.
    await win.waitFor(async () => !(await state()).live, 'the window to be left behind', 60_000);
    const still = await view();
    await win.waitFor(() => fs.existsSync(done), 'the flood to end', 120_000);
    expect(await view()).toEqual(still);
    expect(still.atBottom).toBe(false);
    expect((await state()).live).toBe(false);
    // Back at the bottom, it redraws from the core and follows the output again.
    await win.page.evaluate((paneId) => (window as unknown as { __td: Td }).__td.term(paneId).scrollToBottom(), id);
    await win.waitForText(id, /^behind-done-25$/m, 120_000, 5);
    expect((await state()).live).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('stops a flood at once with Ctrl-C', async () => {
    const id = await freshPane(win);
    await win.typeLine(id, 'clear; yes ctrl-c-flood');
    await win.waitForText(id, /ctrl-c-flood\nctrl-c-flood/);
    await win.page.keyboard.press('Control+C');
    // The prompt comes back (a generous deadline guards a hang; timing belongs in npm run bench).
    await win.waitForPrompt(id, 30_000);
    await win.typeLine(id, 'echo after-ctrl-c-$((2+3))');
    await win.waitForText(id, /^after-ctrl-c-5$/m, 10_000);
  }, 60_000);

  it('draws text with the DOM renderer when asked to (?renderer=dom)', async () => {
    const dom = await openWindow(browser, serve, { theme: 'light', renderer: 'dom' });
    try {
      const [id] = await dom.paneIds();
      expect(await dom.renderer(id!)).toBe('dom');
      await dom.waitForPrompt(id!);
      await dom.typeLine(id!, 'echo dom-$((3*3))-renderer');
      // The DOM renderer draws rows as elements: the text is in the page itself.
      const rows = dom.page.locator(`[data-pane-id="${id}"] .xterm-rows`);
      await dom.waitFor(async () => /dom-9-renderer/.test((await rows.textContent()) ?? ''), 'the text in the DOM rows');
    } finally {
      await dom.close();
    }
  });

  it('draws each DOM row once a frame while output scrolls, and still draws, moves and clears a selection', async () => {
    const dom = await openWindow(browser, serve, { theme: 'dark', renderer: 'dom' });
    type Probe = { draws: number[]; stop(): number[] };
    type Term = { rows: number; select(col: number, row: number, length: number): void; clearSelection(): void; getSelection(): string; buffer: { active: { baseY: number } } };
    type W = Window & { __td: { term(id: string): Term }; __probe?: Probe };
    try {
      const [id] = await dom.paneIds();
      expect(await dom.renderer(id!)).toBe('dom');
      await dom.waitForPrompt(id!);
      const selector = `[data-pane-id="${id}"]`;
      // Row draws counted frame by frame (xterm's DOM renderer fills a row with replaceChildren).
      const watch = () => dom.page.evaluate((sel) => {
        const rows = [...document.querySelectorAll<HTMLElement>(`${sel} .xterm-rows > div`)];
        let count = 0;
        for (const row of rows) {
          const own = row.replaceChildren.bind(row);
          row.replaceChildren = (...nodes: (Node | string)[]) => {
            count++;
            own(...nodes);
          };
        }
        const draws: number[] = [];
        let last = 0;
        let on = true;
        const frame = () => {
          draws.push(count - last);
          last = count;
          if (on) requestAnimationFrame(frame);
        };
        requestAnimationFrame(frame);
        (window as unknown as W).__probe = { draws, stop: () => { on = false; for (const row of rows) delete (row as Partial<HTMLElement>).replaceChildren; return draws; } };
      }, selector);
      const stop = () => dom.page.evaluate(() => (window as unknown as W).__probe!.stop());
      const rows = await dom.page.evaluate((paneId) => (window as unknown as W).__td.term(paneId).rows, id!);

      // No selection: the rows that changed are drawn once a frame, not a second time for a selection that is not there.
      await watch();
      await dom.typeLine(id!, 'seq 1 400; echo "scrolled-$((200*2))"');
      await dom.waitForText(id!, /^scrolled-400$/m);
      await dom.waitForPrompt(id!);
      const quiet = await stop();
      expect(quiet.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      expect(Math.max(...quiet)).toBeLessThanOrEqual(rows);

      // A selection is drawn, follows its text as output scrolls, and is cleared. (Typing
      // clears a selection, as does a click: the output comes from a command typed before.)
      const highlight = dom.page.locator(`${selector} .xterm-selection > div`);
      await dom.typeLine(id!, 'sleep 1; seq 1 3; echo "late-$((1+2))"');
      await dom.page.evaluate((paneId) => {
        const term = (window as unknown as W).__td.term(paneId);
        // A number of seq's output, a few rows above the prompt.
        term.select(0, term.buffer.active.baseY + term.rows - 7, 3);
      }, id!);
      await dom.waitFor(async () => (await highlight.count()) > 0, 'the selection drawn');
      const selected = await dom.page.evaluate((paneId) => (window as unknown as W).__td.term(paneId).getSelection(), id!);
      expect(selected).toMatch(/^\d{3}$/);
      await dom.waitForText(id!, /^late-3$/m);
      await dom.waitForPrompt(id!);
      expect(await dom.page.evaluate((paneId) => (window as unknown as W).__td.term(paneId).getSelection(), id!)).toBe(selected);
      expect(await highlight.count()).toBeGreaterThan(0);
      await dom.page.evaluate((paneId) => (window as unknown as W).__td.term(paneId).clearSelection(), id!);
      await dom.waitFor(async () => (await highlight.count()) === 0, 'the selection cleared');
      await watch();
      await dom.typeLine(id!, 'seq 1 100; echo "again-$((50*2))"');
      await dom.waitForText(id!, /^again-100$/m);
      await dom.waitForPrompt(id!);
      expect(Math.max(...(await stop()))).toBeLessThanOrEqual(rows);
      expect(await highlight.count()).toBe(0);
    } finally {
      await dom.close();
    }
  }, 60_000);

  it('syncs the scrollbar once a task while output scrolls (not once a line), and keeps it exact for the wheel and the next task', async () => {
    const w = await openWindow(browser, serve, { theme: 'dark', renderer: 'dom' });
    type Scrollable = { setScrollDimensions(d: unknown): void; getScrollPosition(): { scrollTop: number }; getScrollDimensions(): { scrollHeight: number } };
    type Term = { rows: number; buffer: { active: { baseY: number; viewportY: number; length: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } }; _core: { _viewport: { _scrollableElement: Scrollable }; _renderService: { dimensions: { css: { cell: { height: number } } } } } };
    type W = Window & { __td: { term(id: string): Term }; __syncs?: number };
    try {
      const [id] = await w.paneIds();
      await w.waitForPrompt(id!);
      const state = () => w.page.evaluate((paneId) => {
        const t = (window as unknown as W).__td.term(paneId);
        const b = t.buffer.active;
        const h = t._core._renderService.dimensions.css.cell.height;
        const s = t._core._viewport._scrollableElement;
        // The scrollbar's row: a wheel leaves it between rows (xterm shows the row it rounds to).
        return { baseY: b.baseY, viewportY: b.viewportY, row: Math.round(s.getScrollPosition().scrollTop / h), top: b.getLine(b.viewportY)?.translateToString(true), scrollHeight: s.getScrollDimensions().scrollHeight, wantedHeight: b.length * h };
      }, id!);
      // The scrollbar's syncs counted while 3,000 lines scroll by: once a line before (3,000 or more).
      await w.page.evaluate((paneId) => {
        const s = (window as unknown as W).__td.term(paneId)._core._viewport._scrollableElement;
        const own = s.setScrollDimensions.bind(s);
        (window as unknown as W).__syncs = 0;
        s.setScrollDimensions = (d) => {
          (window as unknown as W).__syncs!++;
          own(d);
        };
      }, id!);
      await w.typeLine(id!, 'seq 1 3000; echo "counted-$((1500*2))"');
      await w.waitForText(id!, /^counted-3000$/m);
      await w.waitForPrompt(id!);
      const syncs = await w.page.evaluate(() => (window as unknown as W).__syncs!);
      expect(syncs).toBeGreaterThan(0);
      expect(syncs).toBeLessThan(300);
      // Exact once the output has been drawn: at the bottom, its extent the buffer's.
      let s = await state();
      expect(s.viewportY).toBe(s.baseY);
      expect(s.row).toBe(s.viewportY);
      expect(s.scrollHeight).toBe(s.wantedHeight);

      // Exact by the end of the task that wrote, while the history still grows (before any wheel
      // or key, each a task of its own): lines written to the terminal itself, the scrollbar read
      // in a microtask queued from the write's own callback (after the sync's, queued as the
      // lines scrolled). A sync left to the next frame fails here.
      const next = await w.page.evaluate((paneId) => new Promise<{ row: number; viewportY: number; baseY: number }>((resolve) => {
        const t = (window as unknown as W).__td.term(paneId) as Term & { write(d: string, cb: () => void): void };
        t.write(Array.from({ length: 500 }, (_, i) => `written ${i}`).join('\r\n') + '\r\n', () => queueMicrotask(() => {
          const h = t._core._renderService.dimensions.css.cell.height;
          resolve({ row: Math.round(t._core._viewport._scrollableElement.getScrollPosition().scrollTop / h), viewportY: t.buffer.active.viewportY, baseY: t.buffer.active.baseY });
        }));
      }), id!);
      expect(next.viewportY).toBe(next.baseY);
      expect(next.row).toBe(next.viewportY);
      // Scrolling by the terminal's API in the task that wrote (as a redraw keeps the person's
      // line) starts from where the lines left the view, not from where the scrollbar was.
      const scrolled = await w.page.evaluate((paneId) => new Promise<{ viewportY: number; baseY: number; row: number }>((resolve) => {
        const t = (window as unknown as W).__td.term(paneId) as Term & { write(d: string, cb: () => void): void; scrollLines(n: number): void; scrollToBottom(): void };
        t.write(Array.from({ length: 300 }, (_, i) => `again ${i}`).join('\r\n') + '\r\n', () => {
          t.scrollLines(-5);
          const h = t._core._renderService.dimensions.css.cell.height;
          const r = { viewportY: t.buffer.active.viewportY, baseY: t.buffer.active.baseY, row: Math.round(t._core._viewport._scrollableElement.getScrollPosition().scrollTop / h) };
          t.scrollToBottom();
          resolve(r);
        });
      }), id!);
      expect(scrolled.viewportY).toBe(scrolled.baseY - 5);
      expect(scrolled.row).toBe(scrolled.viewportY);

      // The wheel down at the bottom while a flood scrolls never moves the view up (a scrollbar
      // behind the buffer would read the wheel from where it was: lines up), so the view follows.
      const b = await box(w, id!);
      await w.page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
      // 0.85 MB: under the size past which a page that reads slower is redrawn from snapshots
      // (FLOW.skipAfterChars), so no redraw lands in the steps below.
      await w.typeLine(id!, 'seq 1 120000; echo "flooded-$((60000*2))"');
      await w.waitForText(id!, /^[1-9]\d{4,5}$/m);
      for (let i = 0; i < 20; i++) {
        await w.page.mouse.wheel(0, 120);
        s = await state();
        expect(s.viewportY).toBe(s.baseY);
      }
      await w.waitForText(id!, /^flooded-120000$/m, 60_000);
      await w.waitForPrompt(id!);
      s = await state();
      expect(s.viewportY).toBe(s.baseY);
      expect(s.row).toBe(s.viewportY);

      // The wheel up moves the view up by lines, the scrollbar with it; output then leaves the
      // view where it is (no key typed: a key would take the view back down); the wheel down to
      // the bottom follows the output again.
      const go = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'td-scrollbar-')), 'go');
      await w.typeLine(id!, `while [ ! -e ${go} ]; do sleep 0.05; done; seq 1 50; echo "while-$((25*2))"`);
      await w.page.mouse.wheel(0, -600);
      await w.waitFor(async () => { const x = await state(); return x.viewportY < x.baseY; }, 'the view scrolled up');
      s = await state();
      const top = s.top;
      expect(s.row).toBe(s.viewportY);
      fs.writeFileSync(go, '');
      await w.waitFor(async () => (await w.text(id!, 60)).includes('while-50'), 'the output while scrolled up');
      s = await state();
      // The same text at the top of the view (the history full, the view's row moved up with its lines).
      expect(s.top).toBe(top);
      expect(s.viewportY).toBeLessThan(s.baseY);
      expect(s.row).toBe(s.viewportY);
      for (let i = 0; i < 100 && (s = await state()).viewportY < s.baseY; i++) await w.page.mouse.wheel(0, 600);
      s = await state();
      expect(s.viewportY).toBe(s.baseY);
      await w.typeLine(id!, 'seq 1 40; echo "after-$((20*2))"');
      await w.waitForText(id!, /^after-40$/m);
      await w.waitForPrompt(id!);
      s = await state();
      expect(s.viewportY).toBe(s.baseY);
      expect(s.row).toBe(s.viewportY);
      expect(s.scrollHeight).toBe(s.wantedHeight);
      expect(w.errors).toEqual([]);
      fs.rmSync(path.dirname(go), { recursive: true, force: true });
    } finally {
      await w.close();
    }
  }, 150_000);

  it('falls back to the DOM renderer when the WebGL context is lost', async () => {
    const gl = await openWindow(browser, serve, { theme: 'dark', renderer: 'webgl' });
    try {
      const [id] = await gl.paneIds();
      // Chromium here runs WebGL in software (SwiftShader); the addon must load (its own chunk, fetched once the window knows it draws with it).
      await gl.waitFor(async () => (await gl.renderer(id!)) === 'webgl', 'the WebGL renderer');
      await gl.waitForPrompt(id!);
      // Lose the context for good, as a GPU reset does; xterm gives up after 3 s.
      const lost = await loseWebglContext(gl, id!);
      expect(lost).toBe(true);
      await gl.waitFor(async () => (await gl.renderer(id!)) === 'dom', 'the DOM renderer after the context loss', 20_000);
      await gl.typeLine(id!, 'echo after-loss-$((4*4))');
      const rows = gl.page.locator(`[data-pane-id="${id}"] .xterm-rows`);
      await gl.waitFor(async () => /after-loss-16/.test((await rows.textContent()) ?? ''), 'the text drawn by the DOM renderer');
    } finally {
      await gl.close();
    }
  });

  it('reconnects after the socket drops, and redraws what happened meanwhile', async () => {
    const routes: Array<{ page: WebSocketRoute; server: WebSocketRoute }> = [];
    const w = await openWindow(browser, serve, {
      beforeLoad: (page) => page.routeWebSocket(/\/ws(\?.*)?$/, (ws) => {
        routes.push({ page: ws, server: ws.connectToServer() });
      }),
    });
    try {
      const [id] = await w.paneIds();
      await w.waitForPrompt(id!);
      await w.typeLine(id!, 'echo before-drop-$((1+1)); sleep 2; echo during-drop-$((2+2))');
      await w.waitForText(id!, /^before-drop-2$/m);
      // Drop the connection both ways, as a server restart or a network blip would.
      const first = routes[0]!;
      await first.server.close();
      await first.page.close({ code: 1012, reason: 'test drop' });
      const connection = () => w.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { connection: string } } } }).__td.store.getState().connection);
      await w.waitFor(async () => routes.length >= 2 && (await connection()) === 'open', 'the window to reconnect');
      // What the pane printed while the window was away arrives (snapshot, then live).
      await w.waitForText(id!, /^during-drop-4$/m, 20_000);
      expect(await w.text(id!)).toMatch(/^before-drop-2$/m);
      await w.typeLine(id!, 'echo after-reconnect-$((3+3))');
      await w.waitForText(id!, /^after-reconnect-6$/m);
      // Redrawn once, not twice: the marker appears exactly once as output.
      expect((await w.text(id!)).match(/^before-drop-2$/gm)?.length).toBe(1);
    } finally {
      await w.close();
    }
  });

  it('follows the OS between light and dark', async () => {
    const w = await openWindow(browser, serve, { colorScheme: 'light' });
    try {
      const theme = () => w.page.evaluate(() => document.documentElement.dataset.theme);
      expect(await theme()).toBe('light');
      const bg = () => w.page.evaluate(() => getComputedStyle(document.querySelector('.pane')!).backgroundColor);
      const lightBg = await bg();
      await w.page.emulateMedia({ colorScheme: 'dark' });
      await w.waitFor(async () => (await theme()) === 'dark', 'the dark theme');
      expect(await bg()).not.toBe(lightBg);
      // The title bar's theme button overrides the OS, and the choice is saved.
      await w.page.getByRole('button', { name: 'System theme' }).click();
      await w.waitFor(async () => (await theme()) === 'light', 'the light theme chosen');
      const other = await openWindow(browser, serve, { colorScheme: 'dark' });
      try {
        // (The click saves it over the first window's connection: the second's hello may come first.)
        await other.waitFor(async () => (await other.page.evaluate(() => document.documentElement.dataset.theme)) === 'light', 'the saved theme in the second window');
      } finally {
        await other.close();
      }
      await w.page.getByRole('button', { name: 'Light theme' }).click();
      await w.page.getByRole('button', { name: 'Dark theme' }).click();
      await w.page.getByRole('button', { name: 'System theme' }).waitFor();
      await w.waitFor(async () => (await theme()) === 'dark', 'the OS theme again');
    } finally {
      await w.close();
    }
  });

  it('saves screenshots of the window in light and dark', async () => {
    const [id] = await win.paneIds();
    await win.typeLine(id!, "clear; printf '\\e[1mTerminal Delight\\e[0m  \\e[32mgreen\\e[0m \\e[33myellow\\e[0m \\e[34mblue\\e[0m \\e[31mred\\e[0m https://example.com\\n'; ls -la");
    const before = await win.paneIds();
    await win.header(id!).getByRole('button', { name: 'Split right' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === before.length + 1, 'one more pane');
    const second = (await win.paneIds()).find((p) => !before.includes(p));
    await win.waitForPrompt(second!);
    await win.typeLine(second!, 'exit 1');
    await win.header(second!).getByTestId('exit-status').waitFor();
    for (const theme of ['dark', 'light'] as const) {
      const w = theme === 'dark' ? win : await openWindow(browser, serve, { theme });
      try {
        await w.waitForText(id!, 'Terminal Delight');
        await w.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const file = await w.screenshot(`window-${theme}`);
        expect(file).toMatch(/window-(dark|light)\.png$/);
      } finally {
        if (w !== win) await w.close();
      }
    }
  });
});

describe('the serve shell refuses strangers', () => {
  function get(path: string, headers: Record<string, string> = {}): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: serve.port, path, headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
    });
  }

  function upgrade(headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${serve.port}/ws`, { headers });
      ws.on('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('open', () => {
        resolve(101);
        ws.close();
      });
      ws.on('error', (e) => reject(e));
    });
  }

  it('answers 403 to a request without its token', async () => {
    expect(await get('/')).toBe(403);
    expect(await get('/index.html')).toBe(403);
    expect(await get('/?token=0000')).toBe(403);
    // …and lets the real token in.
    expect(await get(`/?token=${serve.token}`)).toBe(302);
  });

  it('answers 403 to a WebSocket from a foreign Origin, even with the token', async () => {
    const cookie = `td_token=${serve.token}`;
    expect(await upgrade({ Origin: 'http://evil.example', Cookie: cookie })).toBe(403);
    expect(await upgrade({ Origin: serve.origin })).toBe(403);
    expect(await upgrade({ Origin: serve.origin, Cookie: cookie })).toBe(101);
  });
});
