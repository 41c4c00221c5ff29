/**
 * Where the keyboard is once a dialog over the panes has closed: the "+ Agent" chooser (an
 * agent started with Enter or a click, or Escape), the search palette (a hit jumped to, or
 * Escape), the usage dialog and the settings (Escape). The keyboard must be in the terminal of
 * the pane the dialog hands it to (the new agent's, the hit's, the one focused before), and keys
 * typed then must reach that pane's program, not the page's body. The real serve shell, real
 * bash and stand-in agents in real PTYs, Debian's Chromium, the real keyboard.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openWindow, startServe, tempDir, type Serve, type TdPage, pathWithStandIns, closeAll, startedAgentPane } from './harness.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let bin: string;

/** The pane whose xterm helper textarea has the keyboard, else what has it (a tag and role, or "body"). */
async function keyboard(w: TdPage): Promise<string> {
  return w.page.evaluate(() => {
    const a = document.activeElement;
    if (a?.classList.contains('xterm-helper-textarea')) return a.closest<HTMLElement>('[data-pane-id]')?.dataset.paneId ?? 'a terminal outside any pane';
    if (!a || a === document.body) return 'body';
    return `${a.tagName.toLowerCase()}${a.getAttribute('role') ? `[role=${a.getAttribute('role')}]` : ''}${a.id ? `#${a.id}` : ''}`;
  });
}

/** After two frames: what a dialog's closing left settled (its unmount, the effects after it). */
async function settled(w: TdPage): Promise<void> {
  await w.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** The keyboard, once the closed dialog has settled, is in `paneId`'s terminal, and a line typed reaches its program. */
async function keysReach(w: TdPage, paneId: string, line: string, echo: RegExp): Promise<void> {
  await settled(w);
  expect(await keyboard(w), `the keyboard in ${paneId}'s terminal`).toBe(paneId);
  expect(await w.focused()).toBe(paneId);
  await w.page.keyboard.type(line);
  await w.page.keyboard.press('Enter');
  await w.waitForText(paneId, echo);
}

beforeAll(async () => {
  // Stand-ins for Claude Code and Codex on the panes' PATH: each says its name, then answers each
  // line it reads, so a key typed into its pane is seen to reach it.
  bin = tempDir('bin');
  for (const name of ['claude', 'codex']) {
    fs.writeFileSync(path.join(bin, name), `#!/bin/sh\necho "stand-in ${name}"\nwhile IFS= read -r line; do echo "${name} got [$line]"; done\n`, { mode: 0o755 });
  }
  serve = await startServe({ env: { PATH: pathWithStandIns(bin) } });
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: 'dark' });
}, 90_000);

afterAll(() => closeAll({ win, browser, serve, dirs: [bin] }));

describe('the keyboard after the "+ Agent" chooser', () => {
  const chooser = () => win.page.getByRole('dialog', { name: 'Start an agent' });
  const options = () => chooser().getByRole('option');

  /** Open the chooser from the focused pane, its agents listed and its list with the keyboard. */
  async function openChooser(how: 'button' | 'shortcut'): Promise<void> {
    if (how === 'button') await win.page.getByRole('button', { name: '+ Agent' }).click();
    else await win.page.keyboard.press('Control+Shift+A');
    await chooser().waitFor();
    await win.waitFor(async () => (await options().count()) === 4, 'four agents listed');
    await win.waitFor(async () => (await keyboard(win)) === 'ul[role=listbox]', 'the list to have the keyboard');
  }

  /** Wait for the chooser to close and the new agent pane (not in `before`) to be in the layout, saying its name. */
  async function newAgentPane(before: Set<string>, name: string): Promise<string> {
    return (await startedAgentPane(win, before, name)).id;
  }

  it('Enter (from the shortcut) leaves the keyboard in the new agent pane, and keys reach the agent', async () => {
    const [first] = (await win.paneIds()) as [string];
    await win.waitForPrompt(first);
    await win.focusTerminal(first);
    const before = new Set(await win.paneIds());
    await openChooser('shortcut');
    await win.page.keyboard.press('Enter');
    const agent = await newAgentPane(before, 'claude');
    await keysReach(win, agent, 'typed after Enter', /^claude got \[typed after Enter\]$/m);
    expect(win.errors).toEqual([]);
  }, 60_000);

  it('a click on a row leaves the keyboard in the new agent pane, and keys reach the agent', async () => {
    const [first] = (await win.paneIds()) as [string];
    await win.focusTerminal(first);
    const before = new Set(await win.paneIds());
    await openChooser('button');
    await options().nth(1).click();
    const agent = await newAgentPane(before, 'codex');
    await keysReach(win, agent, 'typed after a click', /^codex got \[typed after a click\]$/m);
    expect(win.errors).toEqual([]);
  }, 60_000);

  it('Escape gives the keyboard back to the pane focused before, and keys reach its shell', async () => {
    const [first] = (await win.paneIds()) as [string];
    await win.focusTerminal(first);
    const count = (await win.paneIds()).length;
    await openChooser('button');
    await win.page.keyboard.press('Escape');
    await win.waitFor(async () => (await chooser().count()) === 0, 'Escape to close the chooser');
    expect((await win.paneIds()).length).toBe(count);
    await keysReach(win, first, 'echo AFTER_""ESCAPE', /^AFTER_ESCAPE$/m);
  }, 60_000);

  it('Tab stays inside the chooser while it is open', async () => {
    const [first] = (await win.paneIds()) as [string];
    await win.focusTerminal(first);
    await openChooser('button');
    const seen: string[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        await win.page.keyboard.press(i < 5 ? 'Tab' : 'Shift+Tab');
        seen.push(await win.page.evaluate(() => (document.activeElement?.closest('[role="dialog"]') ? 'inside' : `outside: ${document.activeElement?.tagName ?? 'none'}`)));
      }
    } finally {
      // Closed whatever happened (the keyboard out of it, Escape would not reach it): the next tests start with no dialog.
      if (!seen.every((s) => s === 'inside')) await chooser().getByRole('button', { name: 'Cancel' }).click();
    }
    expect(seen).toEqual(Array(8).fill('inside'));
    await win.page.keyboard.press('Escape');
    await win.waitFor(async () => (await chooser().count()) === 0, 'Escape to close the chooser');
    await settled(win);
    expect(await keyboard(win)).toBe(first);
  }, 60_000);
});

describe('the keyboard after the other dialogs over the panes', () => {
  it('the search palette: Escape gives it back to the focused pane, a hit jumped to gives it to the hit\'s pane', async () => {
    const ids = await win.paneIds();
    const shell = ids[0]!;
    const other = ids.find((id) => id !== shell)!;
    // A word only the shell pane has printed, to find.
    await win.focusTerminal(shell);
    await win.page.keyboard.type('echo FIND""ME_PLEASE');
    await win.page.keyboard.press('Enter');
    await win.waitForText(shell, /^FINDME_PLEASE$/m);
    // Escape from the palette, opened over another pane.
    await win.focusTerminal(other);
    const palette = win.page.getByRole('dialog', { name: 'Search everything' });
    await win.page.keyboard.press('Control+Shift+F');
    await palette.waitFor();
    await win.page.keyboard.press('Escape');
    await palette.waitFor({ state: 'detached' });
    await keysReach(win, other, 'typed after the palette', /got \[typed after the palette\]$/m);
    // A hit jumped to with Enter: the keyboard goes to its pane.
    await win.page.keyboard.press('Control+Shift+F');
    await palette.waitFor();
    await win.page.keyboard.type('FINDME_PLEASE');
    await palette.locator('.td-search-hit', { hasText: 'FINDME_PLEASE' }).first().waitFor({ timeout: 30_000 });
    await win.page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await keysReach(win, shell, 'echo JUMPED_""HERE', /^JUMPED_HERE$/m);
    expect(win.errors).toEqual([]);
  }, 90_000);

  it('the usage dialog and the settings: Escape gives the keyboard back to the focused pane', async () => {
    const [shell] = (await win.paneIds()) as [string];
    await win.focusTerminal(shell);
    const usage = win.page.getByRole('dialog', { name: 'Usage' });
    await win.page.keyboard.press('Control+Shift+U');
    await usage.waitFor();
    // The dialog takes the keyboard as it opens (it has no field that asks for it): keys no longer go to the shell behind it.
    await win.waitFor(async () => (await keyboard(win)) === 'form[role=dialog]', 'the usage dialog to have the keyboard');
    const tabs: string[] = [];
    for (let i = 0; i < 12; i++) {
      await win.page.keyboard.press(i % 4 === 3 ? 'Shift+Tab' : 'Tab');
      tabs.push(await win.page.evaluate(() => (document.activeElement?.closest('[role="dialog"]') ? 'inside' : `outside: ${document.activeElement?.tagName ?? 'none'}`)));
    }
    expect(tabs).toEqual(Array(12).fill('inside'));
    await win.page.keyboard.press('Escape');
    await usage.waitFor({ state: 'detached' });
    await keysReach(win, shell, 'echo AFTER_""USAGE', /^AFTER_USAGE$/m);
    const settings = win.page.getByRole('dialog', { name: 'Settings' });
    await win.page.keyboard.press('Control+Comma');
    await settings.waitFor();
    await win.page.keyboard.press('Escape');
    await settings.waitFor({ state: 'detached' });
    await keysReach(win, shell, 'echo AFTER_""SETTINGS', /^AFTER_SETTINGS$/m);
    expect(win.errors).toEqual([]);
  }, 60_000);
});
