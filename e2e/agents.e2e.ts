/**
 * Agent status at a glance and Ticks from the UI, end to end: the real serve shell,
 * the built renderer in Chromium. TDAC events are appended to panes' inbound.jsonl as
 * the hooks write them; the pane header and the title bar's rollup show working, then
 * blocked (blocked first), a row focuses its pane, and a blocked agent in a pane that
 * is not focused raises a desktop notification once a person enabled them. The Open
 * Tick dialog opens assets/ticks/counter/counter.mjs into a Tick pane (badge, End Tick), a
 * bad command leaves its error, and the Tick's screen, in the dialog, and installed Tick
 * packages are listed first with their prerequisites and open by keyboard.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaneInfo } from '../preload/contract.ts';
import { axeViolations, ARTIFACTS, launchBrowser, openWindow, ROOT, startServe, tempDir, type Serve, type TdPage, pathWithStandIns, closeAll, startedAgentPane } from './harness.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let session: string;
let n = 0;
let bin: string;

function inbound(paneId: string, event: Record<string, unknown>): void {
  const folder = path.join(serve.stateDir, 'terminal-delight', 'surfaces', session, paneId);
  fs.mkdirSync(folder, { recursive: true });
  fs.appendFileSync(path.join(folder, 'inbound.jsonl'), JSON.stringify({ tdac: '0.2', id: `e2e-${++n}`, at: new Date().toISOString(), ...event }) + '\n');
}

async function panes(w: TdPage): Promise<PaneInfo[]> {
  return w.page.evaluate(() => Object.values((window as unknown as { __td: { store: { getState(): { panes: Record<string, PaneInfo> } } } }).__td.store.getState().panes));
}

/** Each agents-list row's folder name (and branch), and whether it is cut. */
function rowNames(list: ReturnType<TdPage['page']['locator']>): Promise<Array<{ text: string; cut: boolean }>> {
  return list.locator('.agents-row-name').evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', cut: e.scrollWidth > e.clientWidth })));
}

async function shot(w: TdPage, name: string, locator?: ReturnType<TdPage['page']['locator']>): Promise<void> {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  if (locator) await locator.screenshot({ path: file });
  else await w.page.screenshot({ path: file });
}

beforeAll(async () => {
  // Stand-ins for Claude Code and Codex on the panes' PATH, for "New agent pane" (and no
  // node_modules/.bin, where the real CLIs are: Gemini CLI and OpenCode are not installed here).
  bin = tempDir('bin');
  fs.writeFileSync(path.join(bin, 'claude'), '#!/bin/sh\necho "stand-in claude $*"\nexec sleep 600\n', { mode: 0o755 });
  fs.writeFileSync(path.join(bin, 'codex'), '#!/bin/sh\necho "stand-in codex $*"\nexec sleep 600\n', { mode: 0o755 });
  serve = await startServe({ env: { PATH: pathWithStandIns(bin) } });
  browser = await launchBrowser();
  win = await openWindow(browser, serve, {
    theme: 'dark',
    beforeLoad: async (page) => { await page.addInitScript(() => {
      // Record the notifications the page creates (the real API underneath).
      const Real = window.Notification;
      const seen: string[] = [];
      (window as unknown as { __notes: string[] }).__notes = seen;
      class Recorded extends Real {
        constructor(title: string, opts?: NotificationOptions) {
          super(title, opts);
          seen.push(title);
        }
      }
      window.Notification = Recorded as typeof Notification;
    }); },
  });
  session = await win.page.evaluate(() => (window as unknown as { __td: { store: { getState(): { session: string } } } }).__td.store.getState().session);
}, 90_000);

afterAll(() => closeAll({ win, browser, serve, dirs: [bin] }));

describe('agent status at a glance', () => {
  it('shows working then blocked in the header and the rollup, blocked first; a row focuses its pane; a blocked agent notifies', async () => {
    const [first] = (await win.paneIds()) as [string];
    await win.waitForPrompt(first);
    // a second pane, the focused one
    await win.header(first).getByRole('button', { name: 'Split right' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'a second pane');
    const second = (await win.paneIds()).find((id) => id !== first)!;
    await win.waitFor(async () => (await win.focused()) === second, 'the new pane focused');

    const counts = win.page.getByTestId('agents-counts');
    expect(await counts.count()).toBe(0);

    inbound(first, { type: 'prompt', text: 'Make the tests pass' });
    const badge = win.header(first).getByTestId('agent-status');
    await win.waitFor(async () => (await badge.count()) > 0 && (await badge.innerText()) === 'working', 'the header to say working');
    await win.waitFor(async () => (await counts.innerText()).replace(/\s+/g, ' ').trim() === '1 working', 'the rollup to say 1 working');

    inbound(second, { type: 'prompt', text: 'Write the docs' });
    await win.waitFor(async () => (await counts.innerText()).replace(/\s+/g, ' ').trim() === '2 working', 'the rollup to say 2 working');

    // desktop notifications, enabled by a click in the rollup
    await win.context.grantPermissions(['notifications'], { origin: serve.origin });
    await counts.click();
    const list = win.page.getByTestId('agents-list');
    await list.getByRole('button', { name: 'Enable desktop notifications' }).click();
    await list.getByText('Desktop notifications are on').waitFor({ timeout: 10_000 });
    await counts.click();
    expect(await list.count()).toBe(0);

    inbound(first, {
      type: 'question',
      questions: [{ question: 'Which colour scheme should the dark theme start from?', header: 'Theme', options: [{ label: 'Nord' }, { label: 'Dracula' }], multiSelect: false }],
    });
    await win.waitFor(async () => (await badge.innerText()) === 'needs you', 'the header to say "needs you"');
    await win.waitFor(async () => (await counts.innerText()).replace(/\s+/g, ' ').trim() === '1 blocked · 1 working', 'the rollup to say 1 blocked · 1 working');
    expect(await counts.getAttribute('class')).toContain('has-blocked');
    await win.waitFor(async () => (await win.page.evaluate(() => (window as unknown as { __notes: string[] }).__notes)).some((t) => /needs you/.test(t)), 'a desktop notification for the blocked agent');
    // the in-window notice is there too
    await win.waitFor(async () => (await win.page.locator('.notice').allInnerTexts()).some((t) => /needs you/.test(t)), 'the in-window notice');

    await counts.click();
    const rows = list.locator('[data-pane-row]');
    await win.waitFor(async () => (await rows.count()) === 2, 'two rows');
    expect(await rows.nth(0).getAttribute('data-pane-row')).toBe(first);
    expect(await rows.nth(0).innerText()).toMatch(/blocked/);
    expect(await rows.nth(1).getAttribute('data-pane-row')).toBe(second);
    expect(await rows.nth(1).innerText()).toMatch(/working/);
    // Both panes' titles are their folder: each row keeps the folder's own name whole, its parents give way.
    const tails = await rowNames(list);
    expect(tails.map((t) => t.cut), JSON.stringify(tails)).toEqual([false, false]);
    expect(tails[0]!.text).toMatch(/^td-e2e-cwd-/);
    await win.page.evaluate(() => {
      const s = (window as unknown as { __td: { store: { getState(): { notices: Array<{ id: number }>; dismissNotice(id: number): void } } } }).__td.store.getState();
      for (const x of s.notices) s.dismissNotice(x.id);
    });
    await shot(win, 'agents-rollup-dark');

    // light, in a second window of the same session
    const light = await openWindow(browser, serve, { theme: 'light' });
    try {
      const lc = light.page.getByTestId('agents-counts');
      await light.waitFor(async () => (await lc.count()) > 0 && (await lc.innerText()).includes('1 blocked'), 'the light window rollup');
      await lc.click();
      await light.page.getByTestId('agents-list').waitFor();
      await shot(light, 'agents-rollup-light');
      // A window half a laptop's screen wide, and narrower: everything in the title bar is in the window, none of it cut.
      await lc.click();
      for (const width of [760, 600]) {
        await light.page.setViewportSize({ width, height: 500 });
        const bar = await light.titleBarFits();
        expect(bar.fits, bar.sizes).toBe(true);
      }
      // the list, opened there, stays in the window (rightwards from the rollup: no room left of it) with each folder's name whole
      await lc.click();
      const narrow = light.page.getByTestId('agents-list');
      await narrow.waitFor();
      const box = await narrow.boundingBox();
      expect(box && box.x >= 0 && box.x + box.width <= 600, JSON.stringify(box)).toBe(true);
      expect((await rowNames(narrow)).map((t) => t.cut)).toEqual([false, false]);
      await shot(light, 'agents-rollup-narrow-light');
    } finally {
      await light.close();
    }

    await rows.nth(0).click();
    await win.waitFor(async () => (await win.focused()) === first, 'the blocked pane focused by its row');
    expect(await list.count()).toBe(0);
  }, 120_000);
});

describe('New agent pane', () => {
  const chooser = () => win.page.getByRole('dialog', { name: 'Start an agent' });
  const options = () => chooser().getByRole('option');

  it('"+ Agent" lists every agent (the configured one first, installed or how to install it, and whether its hooks are); Enter starts the chosen one beside the focused pane', async () => {
    const before = new Set(await win.paneIds());
    // Claude Code's hooks installed as a person does (the real command, in the serve's HOME and state folder); Codex's not.
    execFileSync(path.join(ROOT, 'bin', 'terminal-delight'), ['hooks', '--agent', 'claude', '--no-mcp'], { cwd: serve.cwd, env: { ...serve.env, TD_NODE: process.execPath }, encoding: 'utf8' });
    await win.page.getByRole('button', { name: '+ Agent' }).click();
    await chooser().waitFor();
    await win.waitFor(async () => (await options().count()) === 4, 'four agents listed');
    expect(await options().evaluateAll((els) => els.map((e) => `${e.getAttribute('data-agent')}:${e.getAttribute('aria-disabled') ?? 'installed'}`)))
      .toEqual(['claude:installed', 'codex:installed', 'gemini:true', 'opencode:true']);
    expect(await options().nth(0).innerText()).toMatch(/Claude Code\s*default/);
    expect(await options().nth(2).innerText()).toContain('Install with: npm install -g @google/gemini-cli');
    // Codex, its hooks not installed, says so in its row, and under the list while it is chosen.
    expect(await options().evaluateAll((els) => els.map((e) => e.querySelector('.agent-picker-badge.no-hooks')?.textContent ?? ''))).toEqual(['', 'no hooks', '', '']);
    const hooksNote = chooser().getByTestId('agent-picker-hooks');
    expect(await hooksNote.count()).toBe(0);
    // the listbox has the keyboard, the configured agent chosen
    expect(await win.page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('listbox');
    expect(await options().nth(0).getAttribute('aria-selected')).toBe('true');
    // and keeps it: a terminal that takes focus while the chooser is open (a pane just made) gives it back
    await win.page.evaluate(() => document.querySelector<HTMLElement>('.xterm-helper-textarea')?.focus());
    expect(await win.page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('listbox');
    await shot(win, 'agent-picker-dark', chooser());
    expect(await axeViolations(win, 'the agent chooser, dark')).toEqual([]);
    const light = await openWindow(browser, serve, { theme: 'light' });
    try {
      await light.page.getByRole('button', { name: '+ Agent' }).click();
      const lc = light.page.getByRole('dialog', { name: 'Start an agent' });
      await light.waitFor(async () => (await lc.getByRole('option').count()) === 4, 'the light chooser');
      await light.page.keyboard.press('ArrowDown');
      const lightNote = lc.getByTestId('agent-picker-hooks');
      await lightNote.waitFor();
      expect(await lightNote.innerText()).toBe('Codex\'s hooks are not installed, so its status, questions and permission prompts will not reach the bench: run terminal-delight hooks --agent codex once.');
      expect(await lightNote.locator('code').innerText()).toBe('terminal-delight hooks --agent codex');
      // A screen reader hears it with the option (the list keeps the keyboard).
      expect(await lc.locator('[data-agent="codex"]').getAttribute('aria-describedby')).toBe('agent-option-codex-detail agent-picker-hooks');
      await shot(light, 'agent-picker-light', lc);
      expect(await axeViolations(light, 'the agent chooser, light')).toEqual([]);
      await light.page.keyboard.press('Escape');
      await light.waitFor(async () => (await lc.count()) === 0, 'Escape to close the light chooser');
      // the keyboard back in the focused pane's terminal
      await light.waitFor(async () => (await light.page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea') ?? false)), 'the terminal to have the keyboard back');
    } finally {
      await light.close();
    }

    // a not-installed agent cannot start: it says how to install it
    await win.page.keyboard.press('End');
    expect(await options().nth(3).getAttribute('aria-selected')).toBe('true');
    expect(await chooser().getByRole('button', { name: 'Start OpenCode' }).isDisabled()).toBe(true);
    await win.page.keyboard.press('Enter');
    await chooser().getByRole('alert').waitFor();
    expect(await chooser().getByRole('alert').innerText()).toBe('OpenCode is not installed: run npm install -g opencode-ai, then choose it again.');

    // ↓ from the top: Codex, started as given
    await win.page.keyboard.press('Home');
    await win.page.keyboard.press('ArrowDown');
    await hooksNote.waitFor();
    await shot(win, 'agent-picker-no-hooks-dark', chooser());
    await win.page.keyboard.press('Enter');
    const agent = await startedAgentPane(win, before, 'codex');
    expect(agent.agentCli).toEqual({ name: 'codex' });
    expect(await win.focused()).toBe(agent.id);

    // Ctrl+Shift+A, Enter: the configured agent (Claude Code, with a session id of the app's choosing)
    const count = (await win.paneIds()).length;
    await win.page.keyboard.press('Control+Shift+A');
    await chooser().waitFor();
    await win.waitFor(async () => (await options().count()) === 4, 'the chooser from the shortcut');
    await win.waitFor(async () => (await win.page.evaluate(() => document.activeElement?.getAttribute('role'))) === 'listbox', 'the list to have the keyboard');
    await win.page.keyboard.press('Enter');
    await win.waitFor(async () => (await win.paneIds()).length === count + 1, 'a second agent pane from the shortcut');
    const second = (await panes(win)).find((p) => p.kind === 'agent' && p.id !== agent.id && !before.has(p.id))!;
    // (a narrow pane wraps the line: read it joined)
    await win.waitFor(async () => /stand-in claude --session-id [0-9a-f-]{36}/.test((await win.text(second.id)).replace(/\n/g, '')), 'the configured agent to run with a session id');
    for (const id of [agent.id, second.id]) await win.header(id).getByRole('button', { name: 'Close pane' }).click();
    await win.waitFor(async () => (await win.paneIds()).length === count - 1, 'the agent panes closed');
  }, 90_000);
});

describe('Open Tick…', () => {
  const dialog = (): ReturnType<TdPage['page']['locator']> => win.page.getByRole('dialog', { name: 'Open a Tick' });

  /** Do what opens the dialog's choice; the dialog closes and a new Tick pane is in the layout. */
  async function openedTick(open: () => Promise<void>): Promise<PaneInfo> {
    const before = new Set(await win.paneIds());
    await open();
    await win.waitFor(async () => (await dialog().count()) === 0, 'the dialog to close', 30_000);
    let tick: PaneInfo | undefined;
    await win.waitFor(async () => {
      tick = (await panes(win)).find((p) => p.kind === 'tick' && !before.has(p.id) && p.instanceId !== undefined);
      return !!tick && (await win.paneIds()).includes(tick.id);
    }, 'a Tick pane in the layout');
    return tick!;
  }

  it('opens the counter into a Tick pane with its badge, and End Tick ends it', async () => {
    await win.page.getByRole('button', { name: 'Open Tick…' }).click();
    await dialog().waitFor();
    const counter = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');
    await dialog().getByLabel('Command').fill(`'${process.execPath}' '${counter}'`);
    await dialog().getByLabel('Title').fill('Counter from the dialog');
    await shot(win, 'open-tick-dialog-dark', dialog());
    const tick = await openedTick(() => dialog().getByRole('button', { name: 'Open' }).click());
    const header = win.header(tick.id);
    await header.getByTestId('tick-badge').waitFor();
    expect(await header.locator('.pane-title').innerText()).toBe('Counter from the dialog');
    expect(await header.getByRole('button', { name: 'Close pane' }).getAttribute('title')).toMatch(/Hide this view.*keeps running/);
    await shot(win, 'tick-pane-header-dark', header);

    await header.getByRole('button', { name: 'End Tick' }).click();
    // the instance ends: its process is stopped and its pane leaves the window
    await win.waitFor(async () => !(await win.paneIds()).includes(tick.id), 'the Tick pane to go');
  }, 60_000);

  it('keeps a bad command in the dialog: a quoting error at once, a Tick that fails with its screen', async () => {
    await win.page.keyboard.press('Control+Shift+O');
    await dialog().waitFor();
    await dialog().getByLabel('Command').fill("node 'unclosed");
    await dialog().getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => dialog().getByRole('alert').innerText()).toMatch(/single quote at character 6 is never closed/);

    const script = "process.stderr.write('NOT-A-TICK\\n'); process.stdout.write('hello\\n'); setTimeout(() => {}, 30000)";
    await dialog().getByLabel('Command').fill(`'${process.execPath}' -e "${script}"`);
    await dialog().getByLabel('Title').fill('');
    await dialog().getByRole('button', { name: 'Open' }).click();
    const alert = dialog().getByRole('alert');
    await win.waitFor(async () => (await alert.count()) > 0 && /^The Tick/.test(await alert.locator('p').innerText()), 'the failure in the dialog', 30_000);
    const pre = alert.locator('pre');
    await pre.waitFor({ timeout: 5_000 });
    // the screen as the Tick's (narrow) pane showed it, so possibly wrapped
    expect((await pre.innerText()).replace(/\s+/g, '')).toContain('NOT-A-TICK');
    expect((await pre.innerText()).length).toBeLessThanOrEqual(256);
    await shot(win, 'open-tick-error-dark', dialog());

    const light = await openWindow(browser, serve, { theme: 'light' });
    try {
      await light.page.keyboard.press('Control+Shift+O');
      const d = light.page.getByRole('dialog', { name: 'Open a Tick' });
      await d.waitFor();
      await d.getByLabel('Command').fill("node 'unclosed");
      await d.getByRole('button', { name: 'Open' }).click();
      await d.getByRole('alert').waitFor();
      await shot(light, 'open-tick-dialog-light', d);
    } finally {
      await light.close();
    }

    await dialog().getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog().count()).toBe(0);
  }, 60_000);

  it('lists installed packages first, with their prerequisites, and opens one by keyboard', async () => {
    // Two samples for the user (the real installer, in the serve's home) and one project
    // package in the focused pane's folder that needs a token nobody set.
    const cli = (args: string[]) => execFileSync(path.join(ROOT, 'bin', 'terminal-delight'), args, { cwd: serve.cwd, env: { ...serve.env, TD_NODE: process.execPath }, encoding: 'utf8' });
    cli(['tick', 'install', 'counter']);
    cli(['tick', 'install', 'note']);
    // The dialog looks for project packages from the focused pane's folder.
    const focusedId = await win.focused();
    const focused = (await panes(win)).find((p) => p.id === focusedId)!;
    const project = path.join(focused.cwd, '.terminal-delight', 'ticks', 'counter-login');
    fs.mkdirSync(project, { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs'), path.join(project, 'counter.mjs'));
    fs.writeFileSync(path.join(project, 'SKILL.md'), '---\nname: counter-login\ndescription: A counter behind a sign-in, for this project only.\nmetadata:\n  tick-command: node {package}/counter.mjs\n  tick-title: Counter with a login\n  tick-requires: env TD_E2E_COUNTER_TOKEN; Sign in with the team account first.\n---\n');

    await win.page.keyboard.press('Control+Shift+O');
    await dialog().waitFor();
    const rows = dialog().getByTestId('tick-package');
    await win.waitFor(async () => (await rows.count()) === 3, 'three installed packages');
    expect((await rows.allInnerTexts()).map((t) => t.split('\n')[0])).toEqual(['Counter with a login', 'Counter', 'Note']);
    // As a screen reader reads them: each prerequisite with its state in words.
    const text = async (i: number) => (await rows.nth(i).textContent())!.replace(/\s+/g, ' ');
    expect(await text(0)).toBe('Counter with a logincounter-login · this project · needs setupA counter behind a sign-in, for this project only.✗ TD_E2E_COUNTER_TOKEN is not set: not met• Sign in with the team account first.: for you to check');
    expect(await text(1)).toMatch(/^Countercounter · yoursThe Counter Tick, .*✓ command node: met$/);
    expect(await text(2)).toMatch(/^Notenote · yoursThe Note Tick, .*✓ command python3: met$/);
    // The first ready package is chosen and focused; the command line comes after.
    const counter = dialog().getByRole('radio', { name: /^Counter counter · yours/ });
    await win.waitFor(async () => (await counter.isChecked()) && (await counter.evaluate((el) => el === document.activeElement)), 'Counter chosen and focused');
    expect(await dialog().getByRole('radio', { name: 'A command line' }).isChecked()).toBe(false);
    await shot(win, 'open-tick-packages-dark', dialog());

    const light = await openWindow(browser, serve, { theme: 'light' });
    try {
      await light.page.keyboard.press('Control+Shift+O');
      const d = light.page.getByRole('dialog', { name: 'Open a Tick' });
      await light.waitFor(async () => (await d.getByTestId('tick-package').count()) === 3, 'the packages in the light window');
      await shot(light, 'open-tick-packages-light', d);
    } finally {
      await light.close();
    }

    // Up to the project's package: refused, with the reason in the dialog.
    await win.page.keyboard.press('ArrowUp');
    expect(await dialog().getByRole('radio', { name: /^Counter with a login/ }).isChecked()).toBe(true);
    await win.page.keyboard.press('Enter');
    const alert = dialog().getByRole('alert');
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.innerText()).toBe('The Tick package "counter-login" is not ready: TD_E2E_COUNTER_TOKEN is not set (Sign in with the team account first); a person sets that up, then open it again.');

    // Back down to Counter, and Enter opens it in a Tick pane titled as its Skill says.
    await dialog().getByRole('radio', { name: /^Counter with a login/ }).focus();
    await win.page.keyboard.press('ArrowDown');
    expect(await counter.isChecked()).toBe(true);
    const tick = await openedTick(() => win.page.keyboard.press('Enter'));
    const header = win.header(tick.id);
    await win.waitFor(async () => (await header.locator('.pane-title').innerText()) === 'Counter', 'the title from the Skill');
    await header.getByRole('button', { name: 'End Tick' }).click();
    await win.waitFor(async () => !(await win.paneIds()).includes(tick.id), 'the Tick pane to go');
  }, 90_000);
});
