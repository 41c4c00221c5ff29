/**
 * The settings screen end to end: reached with Ctrl+, and the title bar's gear, every
 * change applied live and saved to settings.json at once, a bad value refused in one
 * sentence under its field, the keyboard kept inside the dialog, and a broken
 * settings.json reported (kept aside, never overwritten silently). An axe-core scan and
 * screenshots of the screen, light and dark, go to e2e/artifacts/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, launchBrowser, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let paneId: string;

const settingsFile = (s: Serve): string => path.join(s.stateDir, 'terminal-delight', 'settings.json');
const saved = (s: Serve): Record<string, unknown> => (fs.existsSync(settingsFile(s)) ? JSON.parse(fs.readFileSync(settingsFile(s), 'utf8')) as Record<string, unknown> : {});
const dialog = (w: TdPage): Locator => w.page.getByRole('dialog', { name: 'Settings' });

async function seriousViolations(w: TdPage): Promise<string[]> {
  const r = await new AxeBuilder({ page: w.page }).include('.td-modal.settings').analyze();
  return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join(' | ')}`);
}

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: undefined, colorScheme: 'dark', viewport: { width: 1280, height: 900 } });
  [paneId] = (await win.paneIds()) as [string];
  await win.waitForPrompt(paneId);
});

afterAll(async () => {
  await win?.close().catch(() => undefined);
  await browser?.close();
  await serve?.close();
});

describe('the settings screen', () => {
  it('opens with Ctrl+, from the terminal, focused on its first field, and closes with Escape back to the terminal', async () => {
    await win.focusTerminal(paneId);
    await win.page.keyboard.press('Control+Comma');
    await dialog(win).waitFor();
    expect(await win.page.evaluate(() => document.activeElement?.id)).toBe('setting-theme');
    for (const group of ['Appearance', 'Terminal', 'Agents', 'MCP', 'Windows and panes', 'Worktrees']) {
      expect(await dialog(win).getByRole('group', { name: group }).count(), group).toBe(1);
    }
    // Every setting, with its help as its description.
    expect(await dialog(win).getByRole('switch', { name: 'MCP writes' }).getAttribute('aria-describedby')).toBe('setting-mcpWrites-help');
    expect(await dialog(win).getByRole('combobox', { name: 'Closing the last window' }).inputValue()).toBe('keep');
    await win.page.keyboard.press('Escape');
    await dialog(win).waitFor({ state: 'detached' });
    await win.waitFor(() => win.page.evaluate((id) => !!document.activeElement?.closest(`[data-pane-id="${id}"]`) && document.activeElement?.classList.contains('xterm-helper-textarea') === true, paneId), 'focus back in the terminal');
  });

  it('applies and saves each change at once, and refuses a bad value in one sentence under its field', async () => {
    await win.page.getByTestId('open-settings').click();
    await dialog(win).waitFor();
    // Theme: applied to the window, written to settings.json.
    await dialog(win).getByRole('combobox', { name: 'Theme' }).selectOption('light');
    await win.waitFor(() => win.page.evaluate(() => document.documentElement.dataset.theme === 'light'), 'the light theme on the window');
    await win.waitFor(() => saved(serve).theme === 'light', 'theme in settings.json');
    // Font size: the terminals follow.
    const size = dialog(win).getByRole('spinbutton', { name: 'Font size' });
    await size.fill('17');
    await win.waitFor(() => saved(serve).fontSize === 17, 'fontSize 17 in settings.json');
    await win.waitFor(() => win.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { settings: { fontSize: number } } } } }).__td.store.getState().settings.fontSize === 17), 'the window at 17 px');
    // A bad value: one sentence, marked invalid, nothing saved.
    await size.fill('500');
    await size.press('Enter');
    const error = dialog(win).locator('#setting-fontSize-error');
    await error.waitFor();
    expect(await error.innerText()).toBe('Font size is a whole number from 6 to 72.');
    expect(await size.getAttribute('aria-invalid')).toBe('true');
    expect(saved(serve).fontSize).toBe(17);
    await size.fill('15');
    await win.waitFor(() => saved(serve).fontSize === 15, 'fontSize 15 in settings.json');
    await error.waitFor({ state: 'detached' });
    // The agent command, split like a shell would; the MCP writes switch; a worktree folder the core refuses.
    await dialog(win).getByRole('textbox', { name: 'Agent command' }).fill("codex --full-auto 'a b'");
    await win.waitFor(() => JSON.stringify(saved(serve).agentCommand) === JSON.stringify(['codex', '--full-auto', 'a b']), 'agentCommand in settings.json');
    await dialog(win).getByRole('switch', { name: 'MCP writes' }).click();
    await win.waitFor(() => saved(serve).mcpWrites === false, 'mcpWrites off in settings.json');
    const folder = dialog(win).getByRole('textbox', { name: 'Worktree folder' });
    await folder.fill('relative/trees');
    await folder.press('Enter');
    await dialog(win).locator('#setting-worktreeFolder-error').waitFor();
    expect(await dialog(win).locator('#setting-worktreeFolder-error').innerText()).toBe('Worktree folder must be empty (beside the repository) or an absolute folder path.');
    expect(saved(serve).worktreeFolder).toBe('');
    await folder.fill('');
    await folder.press('Enter');
    expect(await dialog(win).getByRole('status').innerText()).toMatch(/saved\.$/);
  });

  it('keeps Tab inside the dialog', async () => {
    if ((await dialog(win).count()) === 0) await win.page.getByTestId('open-settings').click();
    const close = dialog(win).getByRole('button', { name: 'Close settings' });
    await close.focus();
    await win.page.keyboard.press('Shift+Tab');
    expect(await win.page.evaluate(() => document.activeElement?.closest('[role="dialog"]') !== null)).toBe(true);
    const last = dialog(win).locator('input, select, button').last();
    await last.focus();
    await win.page.keyboard.press('Tab');
    expect(await win.page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Close settings');
  });

  it('passes an axe-core scan, light and dark, and is photographed', async () => {
    if ((await dialog(win).count()) === 0) await win.page.getByTestId('open-settings').click();
    const found: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      await dialog(win).getByRole('combobox', { name: 'Theme' }).selectOption(theme);
      await win.waitFor(() => win.page.evaluate((t) => document.documentElement.dataset.theme === t, theme), `the ${theme} theme`);
      await win.page.locator('.notices button[aria-label="Dismiss"]').first().click().catch(() => undefined);
      found.push(...(await seriousViolations(win)).map((v) => `${theme}: ${v}`));
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await win.page.screenshot({ path: path.join(ARTIFACTS, `settings-${theme}.png`) });
      // The search index's group: on or off, a switch for each source, days kept, panes left out.
      const search = dialog(win).locator('fieldset', { has: win.page.locator('legend', { hasText: 'Search' }) });
      await search.scrollIntoViewIfNeeded();
      await search.screenshot({ path: path.join(ARTIFACTS, `settings-search-${theme}.png`) });
    }
    expect(found).toEqual([]);
  }, 300_000);
});

describe('a broken settings.json', () => {
  it('is kept aside and reported in one sentence, in a notice and on the settings screen, until a setting is saved', async () => {
    const broken = '{ "theme": "dark",, }';
    const other = await startServe({
      before: ({ stateDir }) => {
        fs.mkdirSync(path.join(stateDir, 'terminal-delight'), { recursive: true });
        fs.writeFileSync(path.join(stateDir, 'terminal-delight', 'settings.json'), broken);
      },
    });
    try {
      const w = await openWindow(browser, other, { theme: 'dark' });
      const dir = path.join(other.stateDir, 'terminal-delight');
      const aside = fs.readdirSync(dir).filter((f) => f.startsWith('settings.json.broken-'));
      expect(aside).toHaveLength(1);
      expect(fs.readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(broken);
      const sentence = new RegExp(`^settings\\.json is not JSON \\([^()]+\\): it was moved to ${aside[0]!.replace(/\./g, '\\.')} and the defaults are in use\\.$`);
      await w.page.locator('.notice').first().waitFor();
      expect(await w.page.locator('.notice span').first().innerText()).toMatch(sentence);
      await w.page.getByRole('button', { name: 'Settings (settings.json had a problem)' }).click();
      const alert = dialog(w).locator('.settings-problem');
      expect(await alert.innerText()).toMatch(sentence);
      await dialog(w).screenshot({ path: path.join(ARTIFACTS, 'settings-broken-file-dark.png') });
      // Saving a setting writes a good file; the broken one stays as it was.
      await dialog(w).getByRole('switch', { name: 'Copy on select' }).click();
      await w.waitFor(() => saved(other).copyOnSelect === false, 'a good settings.json');
      await alert.waitFor({ state: 'detached' });
      expect(fs.readFileSync(path.join(dir, aside[0]!), 'utf8')).toBe(broken);
      await w.close();
    } finally {
      await other.close();
    }
  });
});
