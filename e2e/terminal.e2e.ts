/**
 * The window's keyboard and terminal features end to end: shortcuts for split,
 * focus, close and zoom; find; OSC titles; the bench panel; copy on select and
 * bracketed paste; unseen counts from a surface file.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openWindow, type Serve, type TdPage } from './harness.ts';
import { windowForFile } from './fixture.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;

windowForFile(async (w) => {
  ({ serve, browser, win } = w);
  await win.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: serve.origin });
});

/** The pane that holds keyboard focus in the page (xterm's textarea), if any. */
function activePane(w: TdPage): Promise<string | null> {
  return w.page.evaluate(() => document.activeElement?.closest<HTMLElement>('[data-pane-id]')?.dataset.paneId ?? null);
}

describe('keyboard', () => {
  it('splits, moves focus, and closes with shortcuts; typing follows the focus', async () => {
    const [first] = await win.paneIds();
    await win.waitForPrompt(first!);
    await win.focusTerminal(first!);
    await win.page.keyboard.press('Control+Shift+D');
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'a pane split right');
    const [, right] = await win.paneIds();
    await win.waitFor(async () => (await activePane(win)) === right, 'the new pane to take the keyboard');
    await win.page.keyboard.press('Control+Shift+E');
    await win.waitFor(async () => (await win.paneIds()).length === 3, 'a pane split down');
    const [, , below] = await win.paneIds();
    await win.waitFor(async () => (await activePane(win)) === below, 'the pane below to take the keyboard');
    await win.waitForPrompt(below!);

    await win.page.keyboard.press('Alt+ArrowUp');
    await win.waitFor(async () => (await activePane(win)) === right, 'Alt+Up to move to the pane above');
    await win.page.keyboard.press('Control+Shift+ArrowLeft');
    await win.waitFor(async () => (await activePane(win)) === first, 'Ctrl+Shift+Left to move to the left pane');
    expect(await win.focused()).toBe(first);
    // Typing goes where the focus is.
    await win.page.keyboard.type('echo typed-left-$((5+5))');
    await win.page.keyboard.press('Enter');
    await win.waitForText(first!, /^typed-left-10$/m);
    expect(await win.text(right!)).not.toMatch(/typed-left-10/);

    await win.page.keyboard.press('Control+Shift+ArrowRight');
    await win.waitFor(async () => (await activePane(win)) === right, 'Ctrl+Shift+Right to move right');
    await win.page.keyboard.press('Control+Shift+W');
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'the focused pane closed');
    expect(await win.paneIds()).toEqual([first, below]);
    await win.header(below!).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 1, 'one pane again');
  });

  it('zooms the font with Ctrl+= / Ctrl+- / Ctrl+0 and saves it in settings', async () => {
    const [id] = await win.paneIds();
    await win.focusTerminal(id!);
    const fontSize = () => win.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { settings: { fontSize: number } } } } }).__td.store.getState().settings.fontSize);
    const start = await fontSize();
    const cols0 = (await win.size(id!))!.cols;
    await win.page.keyboard.press('Control+Equal');
    await win.page.keyboard.press('Control+Equal');
    await win.waitFor(async () => (await fontSize()) === start + 2, 'the font two steps larger');
    // A bigger font means fewer columns, and the PTY follows.
    await win.waitFor(async () => (await win.size(id!))!.cols < cols0 - 5, 'fewer columns after zooming in');
    expect((await win.waitForPtySize(id!)).cols).toBeLessThan(cols0 - 5);
    const other = await openWindow(browser, serve);
    try {
      const saved = await other.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { settings: { fontSize: number } } } } }).__td.store.getState().settings.fontSize);
      expect(saved).toBe(start + 2);
    } finally {
      await other.close();
    }
    await win.page.keyboard.press('Control+Minus');
    await win.waitFor(async () => (await fontSize()) === start + 1, 'one step back');
    await win.page.keyboard.press('Control+0');
    await win.waitFor(async () => (await fontSize()) === 13, 'the default size');
  });

  it('finds text with Ctrl+Shift+L, and Escape gives the keyboard back to the terminal', async () => {
    const [id] = await win.paneIds();
    await win.typeLine(id!, 'clear; for i in 1 2 3; do echo "needle-$i"; done');
    await win.waitForText(id!, /^needle-3$/m);
    await win.page.keyboard.press('Control+Shift+L');
    const input = win.page.getByRole('searchbox', { name: 'Find' }).or(win.page.locator('.find-bar input'));
    await input.waitFor();
    await input.fill('needle-');
    const count = win.page.locator('.find-count');
    await win.waitFor(async () => /of [34]/.test((await count.textContent()) ?? ''), 'a match count');
    await input.fill('no-such-thing-here');
    await win.waitFor(async () => (await count.textContent()) === 'No results', '"No results"');
    await input.press('Escape');
    await win.page.locator('.find-bar').waitFor({ state: 'detached' });
    await win.waitFor(async () => (await activePane(win)) === id, 'the keyboard back in the terminal');
  });
});

describe('terminal', () => {
  it('measures wide characters with Unicode 11, and keeps 10,000 lines of scrollback', async () => {
    const [id] = await win.paneIds();
    type Term = { rows: number; buffer: { active: { length: number; baseY: number; cursorY: number; getLine(y: number): { getCell(x: number): { getChars(): string; getWidth(): number } | undefined; translateToString(t?: boolean): string } | undefined } } };
    await win.typeLine(id!, "clear; printf 'w\\360\\237\\230\\200x\\n'");
    await win.waitForText(id!, /^w😀x$/m);
    const cells = await win.page.evaluate((paneId) => {
      const t = (window as unknown as { __td: { term(id: string): Term } }).__td.term(paneId);
      const b = t.buffer.active;
      for (let y = b.length - 1; y >= 0; y--) {
        const line = b.getLine(y);
        if (line?.translateToString(true) === 'w😀x') return [0, 1, 2, 3].map((x) => [line.getCell(x)?.getChars(), line.getCell(x)?.getWidth()]);
      }
      return null;
    }, id!);
    // The emoji takes two cells (Unicode 11); with Unicode 6 it would take one.
    expect(cells).toEqual([['w', 1], ['😀', 2], ['', 0], ['x', 1]]);

    await win.typeLine(id!, 'seq 1 12000; echo seq-done-$((1+2))');
    await win.waitForText(id!, /^seq-done-3$/m);
    const kept = await win.page.evaluate((paneId) => {
      const t = (window as unknown as { __td: { term(id: string): Term } }).__td.term(paneId);
      return { length: t.buffer.active.length, rows: t.rows, first: t.buffer.active.getLine(0)?.translateToString(true) };
    }, id!);
    expect(kept.length).toBe(10_000 + kept.rows);
    expect(Number(kept.first)).toBeGreaterThan(1);
  });

  it('shows the title a program sets with OSC 0', async () => {
    const [id] = await win.paneIds();
    await win.typeLine(id!, "printf '\\033]0;osc-title-%s\\007' works");
    await win.waitFor(async () => (await win.header(id!).locator('.pane-title').textContent()) === 'osc-title-works', 'the OSC title in the header');
  });

  it('copies a selection to the clipboard, and pastes with bracketed paste', async () => {
    const [id] = await win.paneIds();
    await win.typeLine(id!, 'clear; echo copyme-$((7*6))-word');
    await win.waitForText(id!, /^copyme-42-word$/m);
    const row = win.page.locator(`[data-pane-id="${id}"] .xterm-rows > div`, { hasText: /^copyme-42-word/ });
    const b = (await row.boundingBox())!;
    await win.page.mouse.dblclick(b.x + 12, b.y + b.height / 2);
    await win.waitFor(async () => /copyme/.test(await win.page.evaluate(() => navigator.clipboard.readText())), 'the selection on the clipboard');

    await win.page.evaluate(() => navigator.clipboard.writeText('pasted text'));
    await win.typeLine(id!, "clear; printf '\\033[?2004h'; cat -v");
    // The window's terminal must have parsed the mode before the paste (xterm brackets a paste only then).
    await win.waitFor(() => win.page.evaluate((paneId) => (window as unknown as { __td: { term(id: string): { modes: { bracketedPasteMode: boolean } } | null } }).__td.term(paneId)?.modes.bracketedPasteMode === true, id!), 'bracketed paste mode on');
    await win.focusTerminal(id!);
    await win.page.keyboard.press('Control+Shift+V');
    await win.page.keyboard.press('Enter');
    // cat -v shows the brackets xterm wrapped around the pasted text.
    await win.waitForText(id!, '^[[200~pasted text^[[201~');
    await win.page.keyboard.press('Control+C');
    await win.typeLine(id!, "printf '\\033[?2004l'");
    await win.waitForPrompt(id!);
  });

  it('says how to paste when the clipboard may not be read', async () => {
    const w = await openWindow(browser, serve);
    try {
      const [id] = await w.paneIds();
      await w.focusTerminal(id!);
      await w.page.keyboard.press('Control+Shift+V');
      const notice = w.page.locator('.notice.error');
      await notice.waitFor({ timeout: 15_000 });
      expect(await notice.textContent()).toContain('The clipboard could not be read here; paste with the browser');
    } finally {
      await w.close();
    }
  });

  it('shows the bench\'s frame while its code loads, then the bench', async () => {
    for (const theme of ['dark', 'light'] as const) {
      // The bench's chunk held back (as on a slow disk or a first open right after the start).
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      const w = await openWindow(browser, serve, {
        theme,
        beforeLoad: async (page) => {
          await page.route(/\/assets\/Bench-[^/]*\.js$/, async (route) => {
            await held;
            await route.continue();
          });
        },
      });
      try {
        const [id] = await w.paneIds();
        await w.header(id!).getByRole('button', { name: 'Open bench' }).click();
        const frame = w.page.locator(`[data-pane-id="${id}"] .pane-bench [aria-busy="true"]`);
        await frame.getByText('Loading…').waitFor();
        await w.screenshot(`bench-loading-${theme}`);
        release();
        await w.page.locator(`[data-pane-id="${id}"] .pane-bench .tdb-bar`).waitFor();
        expect(await frame.count()).toBe(0);
        await w.header(id!).getByRole('button', { name: 'Close bench' }).click();
      } finally {
        release();
        await w.close();
      }
    }
  });

  it('opens and closes the bench beside the terminal', async () => {
    const [id] = await win.paneIds();
    const terminal = win.page.locator(`[data-pane-id="${id}"] .pane-terminal`);
    const wide = (await terminal.boundingBox())!.width;
    await win.header(id!).getByRole('button', { name: 'Open bench' }).click();
    await win.page.locator(`[data-pane-id="${id}"] .pane-bench`).waitFor();
    await win.waitFor(async () => (await win.pane(id!))?.benchOpen === true, 'the core to know the bench is open');
    // The terminal makes room once the layout has run again (a busy machine may take a frame or more).
    await win.waitFor(async () => (await terminal.boundingBox())!.width < wide - 100, 'the terminal to make room for the bench');
    // The bench itself, not the frame shown while its chunk loads.
    await win.page.locator(`[data-pane-id="${id}"] .pane-bench .tdb-bar`).waitFor();
    await win.screenshot('bench-open-dark');
    await win.header(id!).getByRole('button', { name: 'Close bench' }).click();
    await win.page.locator(`[data-pane-id="${id}"] .pane-bench`).waitFor({ state: 'detached' });
    await win.waitFor(async () => (await win.pane(id!))?.benchOpen === false, 'the core to know the bench is closed');
  });

  it('opens a clicked URL in a new browser window', async () => {
    const [id] = await win.paneIds();
    await win.typeLine(id!, 'clear; echo https://example.com/td-link-$((8*8))');
    await win.waitForText(id!, /^https:\/\/example\.com\/td-link-64$/m);
    const row = win.page.locator(`[data-pane-id="${id}"] .xterm-rows > div`, { hasText: /^https:\/\/example\.com\/td-link-64/ });
    const b = (await row.boundingBox())!;
    await win.page.mouse.move(b.x + 40, b.y + b.height / 2);
    await win.page.mouse.move(b.x + 60, b.y + b.height / 2);
    const opened = win.context.waitForEvent('page', { timeout: 15_000 });
    // The link is live once hovered (xterm underlines it); then a click opens it.
    await win.waitFor(async () => {
      await win.page.mouse.move(b.x + 50 + Math.random() * 20, b.y + b.height / 2);
      return win.page.evaluate(() => getComputedStyle(document.querySelector('.xterm-screen')!).cursor === 'pointer');
    }, 'the link to be under the pointer');
    await win.page.mouse.click(b.x + 60, b.y + b.height / 2);
    const popup = await opened;
    expect(popup.url()).toMatch(/^https:\/\/example\.com\/td-link-64|^about:blank|^chrome-error/);
    // noopener: the new window cannot reach back into the app.
    await popup.close();
  });

  it('keeps the keyboard where it is when another window splits a pane', async () => {
    const [id] = await win.paneIds();
    await win.focusTerminal(id!);
    const other = await openWindow(browser, serve);
    try {
      await other.header(id!).getByRole('button', { name: 'Split right' }).click();
      await win.waitFor(async () => (await win.paneIds()).length === 2, 'the new pane in this window too');
      const [, added] = await win.paneIds();
      await win.waitForPrompt(added!);
      expect(await activePane(win)).toBe(id);
      await win.page.keyboard.type('echo still-mine-$((9+9))');
      await win.page.keyboard.press('Enter');
      await win.waitForText(id!, /^still-mine-18$/m);
      await other.header(added!).getByRole('button', { name: 'Close pane' }).click();
      await win.waitFor(async () => (await win.paneIds()).length === 1, 'back to one pane');
    } finally {
      await other.close();
    }
  });

  it('shows a new pane\'s first prompt in every window, split after split', async () => {
    const other = await openWindow(browser, serve);
    try {
      const [root] = await win.paneIds();
      for (let round = 1; round <= 12; round++) {
        await win.header(root!).getByRole('button', { name: 'Split right' }).click();
        await win.waitFor(async () => (await win.paneIds()).length === 2 && (await other.paneIds()).length === 2, 'the new pane in both windows');
        const [, added] = await win.paneIds();
        // The prompt is printed once, around the time both windows take their snapshot.
        await win.waitForPrompt(added!, 10_000);
        await other.waitForPrompt(added!, 10_000);
        await win.header(added!).getByRole('button', { name: 'Close pane' }).click();
        await win.waitFor(async () => (await win.paneIds()).length === 1, 'back to one pane');
      }
    } finally {
      await other.close();
    }
  }, 120_000);

  it('counts an unseen surface in the pane header and the title bar', async () => {
    const [id] = await win.paneIds();
    const folder = '"$XDG_STATE_HOME/terminal-delight/surfaces/$TD_SESSION/$TD_PANE_ID"';
    await win.typeLine(id!, `mkdir -p ${folder} && printf '%s' '{"td":"0.4","kind":"response","id":"e2e-hello","title":"Hello","model":{"layman":"A reply."}}' > ${folder}/hello.json`);
    await win.waitFor(async () => ((await win.pane(id!))?.unseen ?? 0) >= 1, 'the pane to count an unseen surface', 20_000);
    await expect(win.header(id!).locator('.badge.unseen').textContent()).resolves.toBe('1 unseen'); // "1", and " unseen" for screen readers
    await expect(win.page.getByTestId('unseen-total').textContent()).resolves.toBe('1 unseen');
    await expect(win.page.title()).resolves.toBe('(1) Terminal Delight');
  });
});

describe('no panes', () => {
  it('offers a new pane once the last one is closed', async () => {
    // Close whatever is open (one pane, unless an earlier test left more).
    for (const id of await win.paneIds()) {
      const n = (await win.paneIds()).length;
      await win.header(id).getByRole('button', { name: 'Close pane' }).click();
      await win.waitFor(async () => (await win.paneIds()).length === n - 1, `pane ${id} closed`);
    }
    await win.waitFor(async () => (await win.paneIds()).length === 0, 'no panes');
    await expect(win.page.locator('.titlebar').textContent()).resolves.toContain('0 panes');
    await win.page.getByRole('button', { name: 'New pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 1, 'a new pane');
    const [fresh] = await win.paneIds();
    await win.waitForPrompt(fresh!);
    await win.page.keyboard.type('echo new-$((6+6))');
    await win.page.keyboard.press('Enter');
    await win.waitForText(fresh!, /^new-12$/m);
  });
});
