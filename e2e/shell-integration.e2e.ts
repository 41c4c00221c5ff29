/**
 * Shell integration in the window: the pane's login bash (the harness's quiet home, with
 * Debian's real /etc/profile) marks its prompts, so each finished command gets a gutter
 * mark (green for 0, red otherwise, its status and time as the tooltip) and the header
 * shows the last one; Ctrl+Up / Ctrl+Down jump between prompts, and leave the keys to a
 * full-screen program; a split opens in the pane's folder. Screenshots in dark and light.
 */
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

let serve: Serve;
let browser: Browser;
let dark: TdPage;
let light: TdPage;
let paneId: string;

interface Term { buffer: { active: { viewportY: number; baseY: number; getLine(y: number): { translateToString(trim: boolean): string } | undefined } } }

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  // Both windows are open before the commands run: marks arrive with live output only.
  dark = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1100, height: 640 } });
  light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1100, height: 640 } });
  [paneId] = (await dark.paneIds()) as [string];
  await dark.waitForPrompt(paneId);
  await light.waitForPrompt(paneId);
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

/** The top line shown in the pane, and whether the view is at the bottom. */
function viewport(w: TdPage): Promise<{ top: string; atBottom: boolean; y: number }> {
  return w.page.evaluate((id) => {
    const t = (window as unknown as { __td: { term(id: string): Term } }).__td.term(id);
    const b = t.buffer.active;
    return { top: b.getLine(b.viewportY)?.translateToString(true) ?? '', atBottom: b.viewportY >= b.baseY, y: b.viewportY };
  }, paneId);
}

/** The last command as the header shows it (the words for screen readers aside). */
function lastCommand(w: TdPage): Promise<string | null> {
  return w.header(paneId).getByTestId('last-command').locator('[aria-hidden="true"]').textContent();
}

function promptLines(w: TdPage): Promise<number[]> {
  return w.page.evaluate((id) => (window as unknown as { __td: { prompts(id: string): number[] | null } }).__td.prompts(id) ?? [], paneId);
}

describe('shell integration', () => {
  it('marks each finished command in the gutter and shows the last one in the header', async () => {
    const marks = dark.page.locator(`[data-pane-id="${paneId}"] .xterm-decoration.prompt-mark`);
    await dark.typeLine(paneId, 'ls /nonexistent-folder');
    await dark.waitFor(async () => /^✗ 2 · \d+\.\d s$/.test((await lastCommand(dark)) ?? ''), 'the failure in the header');
    await light.waitFor(async () => /^✗ 2 · /.test((await lastCommand(light)) ?? ''), 'the failure in the light window\'s header');
    await dark.screenshot('shell-integration-failed-dark');
    await light.screenshot('shell-integration-failed-light');
    await dark.typeLine(paneId, 'sleep 1.2; echo slept');
    await dark.waitFor(async () => /^✓ \d+\.\d s$/.test((await lastCommand(dark)) ?? ''), 'the success and its time in the header');
    await dark.typeLine(paneId, 'true');
    await dark.waitFor(async () => (await marks.count()) === 3, 'three gutter marks');
    expect(await dark.page.locator(`[data-pane-id="${paneId}"] .xterm-decoration.prompt-mark.bad`).count()).toBe(1);
    expect(await marks.first().getAttribute('title')).toMatch(/^exit 2 · \d+\.\d s$/);
    expect(await marks.nth(1).getAttribute('title')).toMatch(/^exit 0 · \d+\.\d s$/);
    // A screen reader hears it in words.
    expect(await dark.header(paneId).getByTestId('last-command').ariaSnapshot()).toMatch(/Last command: exit 0 · \d+\.\d s/);
    // Its tooltip, with the time it ended, is written as the pointer comes (not for every pane of a window as it is built).
    await dark.header(paneId).getByTestId('last-command').hover();
    expect(await dark.header(paneId).getByTestId('last-command').getAttribute('title')).toMatch(/^Last command: exit 0 · \d+\.\d s \(ended .+\)$/);
    // The gutter mark sits left of its prompt line, in the pane's margin, not over its text.
    const mark = (await marks.first().boundingBox())!;
    const screen = (await dark.page.locator(`[data-pane-id="${paneId}"] .xterm-screen`).boundingBox())!;
    expect(mark.x + mark.width).toBeLessThanOrEqual(screen.x);
    // The other window drew the same marks from the same output.
    await light.waitFor(async () => (await light.page.locator(`[data-pane-id="${paneId}"] .xterm-decoration.prompt-mark`).count()) === 3, 'the marks in the light window');
    await dark.screenshot('shell-integration-marks-dark');
    await light.screenshot('shell-integration-marks-light');
    // The marks and the header's last command pass an axe-core scan (serious and critical), light and dark.
    for (const w of [dark, light]) {
      const found = (await new AxeBuilder({ page: w.page }).include(`[data-pane-id="${paneId}"]`).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(found.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
  });

  it('puts the marks back in a window that reloads (they come with the snapshot)', async () => {
    await light.page.reload();
    await light.waitFor(async () => (await light.page.locator(`[data-pane-id="${paneId}"] .xterm-decoration.prompt-mark`).count()) === 3, 'the three marks after a reload');
    expect(await light.page.locator(`[data-pane-id="${paneId}"] .xterm-decoration.prompt-mark.bad`).getAttribute('title')).toMatch(/^exit 2 · \d+\.\d s$/);
    expect(await promptLines(light)).toHaveLength(4);
  });

  it('jumps to the previous and next prompt with Ctrl+Up and Ctrl+Down', async () => {
    await dark.typeLine(paneId, 'seq -f "first %g" 1 60');
    await dark.waitForText(paneId, /^first 60$/m);
    await dark.typeLine(paneId, 'seq -f "second %g" 1 60');
    await dark.waitForText(paneId, /^second 60$/m);
    await dark.waitFor(async () => (await viewport(dark)).atBottom && (await promptLines(dark)).length >= 6, 'the prompts known');
    await dark.focusTerminal(paneId);
    await dark.page.keyboard.press('Control+ArrowUp');
    await dark.waitFor(async () => (await viewport(dark)).top.startsWith('td$ seq -f "second %g"'), 'the view at the prompt of the last command');
    await dark.page.keyboard.press('Control+ArrowUp');
    await dark.waitFor(async () => (await viewport(dark)).top.startsWith('td$ seq -f "first %g"'), 'the view at the prompt before it');
    await dark.screenshot('shell-integration-jump-dark');
    await dark.page.keyboard.press('Control+ArrowDown');
    await dark.waitFor(async () => (await viewport(dark)).top.startsWith('td$ seq -f "second %g"'), 'the view back at the next prompt');
    await dark.page.keyboard.press('Control+ArrowDown');
    await dark.waitFor(async () => (await viewport(dark)).atBottom, 'the view back at the bottom');
  });

  it('leaves Ctrl+Up to a full-screen program', async () => {
    await dark.typeLine(paneId, "printf '\\033[?1049h'; cat -v; printf '\\033[?1049l'");
    await dark.waitFor(async () => (await dark.page.evaluate((id) => (window as unknown as { __td: { term(id: string): { buffer: { active: { type: string } } } } }).__td.term(id).buffer.active.type, paneId)) === 'alternate', 'the alternate screen');
    await dark.page.keyboard.press('Control+ArrowUp');
    await dark.page.keyboard.press('Enter');
    await dark.waitForText(paneId, '^[[1;5A');
    await dark.page.keyboard.press('Control+D');
    await dark.waitFor(async () => (await viewport(dark)).atBottom && /td\$ *$/.test(await dark.text(paneId, 3)), 'the prompt back');
  });

  it('keeps the last command\'s tooltip true under a resting pointer, and drops it once the pointer has gone', async () => {
    const last = dark.header(paneId).getByTestId('last-command');
    await dark.focusTerminal(paneId);
    await last.hover();
    expect(await last.getAttribute('title')).toMatch(/^Last command: exit 0 · /);
    // Typed with the pointer resting on it (the terminal keeps the keyboard).
    await dark.page.keyboard.type('false');
    await dark.page.keyboard.press('Enter');
    await dark.waitFor(async () => /^Last command: exit 1 · \d+\.\d s \(ended .+\)$/.test((await last.getAttribute('title')) ?? ''), 'the tooltip of the command that ended under the pointer');
    await dark.page.mouse.move(1, 1);
    await dark.page.keyboard.type('true');
    await dark.page.keyboard.press('Enter');
    await dark.waitFor(async () => /^✓ /.test((await lastCommand(dark)) ?? ''), 'the next command in the header');
    expect(await last.getAttribute('title')).toBeNull();
    await last.hover();
    expect(await last.getAttribute('title')).toMatch(/^Last command: exit 0 · /);
  });

  it('opens a split in the folder the pane\'s shell is in', async () => {
    await dark.typeLine(paneId, `cd ${serve.home} && mkdir -p 'split here' && cd 'split here'`);
    await dark.waitFor(async () => (await dark.pane(paneId))?.cwd === `${serve.home}/split here`, 'the folder from OSC 7 in the pane');
    await dark.focusTerminal(paneId);
    await dark.page.keyboard.press('Control+Shift+D');
    await dark.waitFor(async () => (await dark.paneIds()).length === 2, 'a second pane');
    const second = (await dark.paneIds()).find((id) => id !== paneId)!;
    expect((await dark.pane(second))?.cwd).toBe(`${serve.home}/split here`);
    await dark.waitForPrompt(second);
    await dark.typeLine(second, 'pwd');
    await dark.waitForText(second, new RegExp(`^${serve.home}/split here$`, 'm'));
    expect(dark.errors).toEqual([]);
  });
});
