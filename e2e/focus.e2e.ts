/**
 * Where the keyboard goes (issue 35, item 10): after a pane closes with its ×, keys go to
 * the pane the focus ring shows, and Ctrl+W is a shell's delete-word, never a closed window;
 * a pane made again by a layout change does not take the keyboard from a dialog.
 * The real serve shell, real bash in real PTYs, Debian's Chromium, the real keyboard.
 */
import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openWindow, type Serve, type TdPage } from './harness.ts';
import { windowForFile } from './fixture.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;

windowForFile((w) => ({ serve, browser, win } = w));

/** The pane the focus ring is on (exactly one), and the pane whose element has the keyboard. */
async function ringAndKeyboard(w: TdPage): Promise<{ ring: string[]; keyboard: string | null }> {
  return w.page.evaluate(() => ({
    ring: [...document.querySelectorAll<HTMLElement>('[data-pane-id][data-focused="true"]')].map((e) => e.dataset.paneId!),
    keyboard: document.activeElement?.closest<HTMLElement>('[data-pane-id]')?.dataset.paneId ?? null,
  }));
}

/** How many panes show `re` in their text. */
async function panesShowing(w: TdPage, re: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const id of await w.paneIds()) if (re.test(await w.text(id, 200))) out.push(id);
  return out;
}

describe('focus after a pane closes', () => {
  it('types into the pane that shows focus after ×, and Ctrl+W deletes a word without closing the window', async () => {
    const [first] = await win.paneIds();
    await win.waitForPrompt(first!);
    await win.header(first!).getByRole('button', { name: 'Split right' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'two panes');
    const second = (await win.paneIds())[1]!;
    await win.header(second).getByRole('button', { name: 'Split down' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 3, 'three panes');
    const ids = await win.paneIds();
    for (const id of ids) await win.waitForPrompt(id);
    // Focus the first pane, then the third (so the first is the one focused before it).
    await win.focusTerminal(ids[0]!);
    await win.focusTerminal(ids[2]!);
    expect(await win.focused()).toBe(ids[2]);

    // Close the focused pane with its ×: nothing is clicked or focused afterwards.
    await win.header(ids[2]!).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'two panes after ×');
    await win.waitFor(async () => {
      const { ring, keyboard } = await ringAndKeyboard(win);
      return ring.length === 1 && keyboard === ring[0];
    }, 'the keyboard in the pane the focus ring shows');
    const { ring } = await ringAndKeyboard(win);
    // The pane focused before the closed one has it.
    expect(ring).toEqual([ids[0]]);

    await win.page.keyboard.type('echo FOCUS_OK');
    await win.page.keyboard.press('Enter');
    await win.waitForText(ring[0]!, /^FOCUS_OK$/m);
    expect(await panesShowing(win, /^FOCUS_OK$/m)).toEqual(ring);

    // Ctrl+W in the terminal: bash deletes the word before the cursor.
    await win.page.keyboard.type('echo abc def');
    await win.page.keyboard.press('Control+w');
    await win.page.keyboard.type('ghi');
    await win.page.keyboard.press('Enter');
    await win.waitForText(ring[0]!, /^abc ghi$/m);
    expect(await win.text(ring[0]!, 200)).not.toContain('abc defghi');

    // Close a pane that is not focused: the keyboard stays where the ring is.
    await win.header(ids[1]!).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 1, 'one pane left');
    await win.waitFor(async () => {
      const r = await ringAndKeyboard(win);
      return r.ring.length === 1 && r.ring[0] === ids[0] && r.keyboard === ids[0];
    }, 'the keyboard in the last pane');

    // With the keyboard nowhere (the page's body has it), Ctrl+W still goes to the focused pane's shell.
    await win.page.keyboard.type('echo xyz uvw');
    await win.page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    expect((await ringAndKeyboard(win)).keyboard).toBeNull();
    await win.page.keyboard.press('Control+w');
    await win.waitFor(async () => (await ringAndKeyboard(win)).keyboard === ids[0], 'the terminal to take the keyboard back');
    await win.page.keyboard.type('rst');
    await win.page.keyboard.press('Enter');
    await win.waitForText(ids[0]!, /^xyz rst$/m);

    expect(win.page.isClosed()).toBe(false);
    expect(await win.page.evaluate(() => document.visibilityState)).toBe('visible');
    expect(win.errors).toEqual([]);
  });

  it('leaves the keyboard in the settings when a pane that had it is made again by a layout change', async () => {
    const [a] = await win.paneIds();
    await win.header(a!).getByRole('button', { name: 'Split right' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'two panes');
    const b = (await win.paneIds()).find((id) => id !== a)!;
    await win.waitForPrompt(b);
    // a's terminal clicked (a request for the keyboard, taken), then the settings opened over it.
    await win.focusTerminal(a!);
    await win.page.keyboard.press('Control+Comma');
    const settings = win.page.getByRole('dialog', { name: 'Settings' });
    await settings.waitFor();
    await win.waitFor(() => win.page.evaluate(() => document.activeElement?.id === 'setting-theme'), 'the settings\' first field to have the keyboard');
    await win.page.evaluate((id) => document.querySelector(`[data-pane-id="${id}"]`)!.setAttribute('data-before', ''), a!);
    // Another window closes b: a, alone in the layout now, is made again in this one.
    const other = await openWindow(browser, serve, { theme: 'dark' });
    try {
      await other.header(b).getByRole('button', { name: 'Close pane' }).click();
      await win.waitFor(async () => (await win.paneIds()).length === 1, 'b gone');
    } finally {
      await other.close();
    }
    await win.waitFor(() => win.page.evaluate((id) => {
      const el = document.querySelector(`[data-pane-id="${id}"]`);
      return !!el && !el.hasAttribute('data-before') && !!el.querySelector('.xterm-screen');
    }, a!), "a's pane made again, with its terminal");
    await win.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await win.page.evaluate(() => document.activeElement?.id)).toBe('setting-theme');
    // Closed, the settings hand the keyboard back to a's terminal.
    await win.page.keyboard.press('Escape');
    await settings.waitFor({ state: 'detached' });
    await win.waitFor(async () => (await ringAndKeyboard(win)).keyboard === a, 'the keyboard back in a');
    expect(win.errors).toEqual([]);
  });
});
