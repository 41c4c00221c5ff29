/**
 * Machines in the window (issue 33): "+ Machine…" connects another machine over the real
 * ssh to an sshd the test starts (main/machines/sshd-testing.ts), a failure stays in the
 * dialog as one sentence, the machine's name shows in the title bar in its colour, and
 * "reconnecting…" while its link is down (ssh killed, its sshd stopped) until it is back.
 * Screenshots, light and dark, go to e2e/artifacts/.
 */
import fs from 'node:fs';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectService } from '../main/service/client.ts';
import { startFarMachine, type FarMachine, stopFarMachine } from '../main/machines/sshd-testing.ts';
import { axeViolations, dropSurface, launchBrowser, openWindow, ROOT, startServe, type Serve, type TdPage } from './harness.ts';
import { statePaths } from '../main/paths.ts';
import path from 'node:path';

let m: FarMachine;
let serve: Serve;
let browser: Browser;
let win: TdPage;

const dialog = (w: TdPage): Locator => w.page.getByRole('dialog', { name: 'Connect a machine' });
/** A sentence as shown, its code (the commands it quotes, shown as code without their backticks) put back in backticks. */
const quoted = (el: Locator): Promise<string> => el.evaluate((e) => [...e.childNodes].map((n) => (n.nodeName === 'CODE' ? `\`${n.textContent}\`` : n.textContent)).join(''));
const chip = (w: TdPage): Locator => w.page.locator(`.machine-chip[data-machine="${m.alias}"]`);
const homeEnv = (): NodeJS.ProcessEnv => ({ ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home });

beforeAll(async () => {
  m = await startFarMachine();
  serve = await startServe({ env: { TD_SSH_CONFIG: m.near.env.TD_SSH_CONFIG! } });
  browser = await launchBrowser();
  win = await openWindow(browser, serve, { theme: 'dark', viewport: { width: 1280, height: 760 } });
}, 120_000);

afterAll(async () => {
  await win?.close().catch(() => undefined);
  await browser?.close();
  await serve?.close();
  await stopFarMachine(m);
});

describe('+ Machine…', () => {
  it('says in one sentence why a machine cannot be reached, and keeps the dialog open', async () => {
    await win.page.getByTestId('add-machine').click();
    await dialog(win).waitFor();
    await dialog(win).getByRole('textbox', { name: 'Machine' }).fill('nobody@127.0.0.1:1');
    await dialog(win).getByRole('textbox', { name: 'Name' }).fill('nowhere');
    await dialog(win).getByRole('button', { name: 'Connect' }).click();
    const alert = dialog(win).getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await quoted(alert)).toBe('nowhere is unreachable (ssh: connect to host 127.0.0.1 port 1: Connection refused): check that it is up and its address and port are right, then `terminal-delight connect nobody@127.0.0.1:1 --name nowhere`.');
    await win.screenshot('machine-dialog-refused-dark');
    // A machine that never connected is not kept: the title bar does not show it.
    expect(await win.page.locator('.machine-chip').count()).toBe(0);
  }, 60_000);

  it('says in one sentence that ssh could not log in, and that terminal-delight is not installed there, each with the command that fixes it', async () => {
    const connect = async (name: string): Promise<string | null> => {
      await dialog(win).getByRole('textbox', { name: 'Machine' }).fill(m.alias);
      await dialog(win).getByRole('textbox', { name: 'Name' }).fill(name);
      await dialog(win).getByRole('button', { name: 'Connect' }).click();
      const alert = dialog(win).getByRole('alert').filter({ hasText: name });
      await alert.waitFor({ timeout: 30_000 });
      return quoted(alert);
    };
    m.wrongKey();
    try {
      expect(await connect('locked')).toMatch(new RegExp(`^ssh could not log in to locked \\(.*Permission denied \\(publickey\\)\\): add your key there with \`ssh-copy-id ${m.alias}\`, or load it into your agent with \`ssh-add\`, then \`terminal-delight connect ${m.alias} --name locked\`\\.$`));
      await win.screenshot('machine-dialog-auth-dark');
    } finally {
      m.rightKey();
    }
    m.farInstalled(false);
    try {
      expect(await connect('bare')).toBe(`terminal-delight is not installed on bare (or not on its PATH for ssh commands): install Node 22.12 or newer and terminal-delight there (README, "Machines"), or give its path with \`terminal-delight connect ${m.alias} --name bare --command ~/path/to/terminal-delight\`.`);
    } finally {
      m.farInstalled(true);
    }
    // Neither is kept.
    expect(await win.page.locator('.machine-chip').count()).toBe(0);
  }, 90_000);

  it('connects a machine over ssh: its name in its colour in the title bar, and "reconnecting…" while its link is down', async () => {
    await dialog(win).getByRole('textbox', { name: 'Machine' }).fill(m.alias);
    await dialog(win).getByRole('textbox', { name: 'Name' }).fill('');
    await dialog(win).getByRole('button', { name: 'Connect' }).click();
    await dialog(win).waitFor({ state: 'detached', timeout: 60_000 });
    await chip(win).waitFor();
    expect(await chip(win).locator('.machine-name').textContent()).toBe(m.alias);
    expect(await chip(win).locator('.machine-state').count()).toBe(0);
    await win.screenshot('machines-connected-dark');
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1280, height: 760 } });
    await chip(light).waitFor();
    await light.screenshot('machines-connected-light');
    await light.close();

    // ssh killed while the machine's sshd is down: the window says reconnecting…, then it is back.
    const conn = await connectService({ env: homeEnv(), client: 'cli', start: false });
    const sshPid = (await conn.request('machine.list', {})).find((x) => x.name === m.alias)!.sshPid!;
    conn.close();
    await m.sshdDown();
    process.kill(sshPid, 'SIGKILL');
    await chip(win).locator('.machine-state', { hasText: 'reconnecting…' }).waitFor({ timeout: 30_000 });
    expect(await chip(win).getAttribute('title')).toMatch(new RegExp(`^${m.alias} is unreachable|^ssh could not reach|^the link to ${m.alias} ended`));
    await win.screenshot('machines-reconnecting-dark');
    // In a 600 px window the chip, its state and Retry now give way before Settings and the unseen count go off the edge.
    const wide = win.page.viewportSize()!;
    await win.page.setViewportSize({ width: 600, height: wide.height });
    const bar = await win.titleBarFits();
    expect(bar.fits, bar.sizes).toBe(true);
    await win.screenshot('machines-reconnecting-narrow-dark');
    await win.page.setViewportSize(wide);
    await m.sshdUp();
    // Retry now, rather than waiting for the next try (it may be under way already: then that one brings it back).
    await chip(win).getByRole('button', { name: `Retry now: ${m.alias}` }).click();
    await chip(win).locator('.machine-state').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await chip(win).getByRole('button', { name: `Retry now: ${m.alias}` }).count()).toBe(0);

    // The dialog lists the machines used before, with their state.
    await win.page.getByTestId('add-machine').click();
    const row = dialog(win).getByRole('list', { name: 'Machines used before' }).getByRole('button');
    await row.first().waitFor();
    expect(await row.allTextContents()).toEqual([`${m.alias}${m.alias}connected`]);
    await win.screenshot('machine-dialog-dark');
    await win.page.keyboard.press('Escape');
  }, 180_000);

  it('shows a far service of another version with Restart service, which brings up the one installed there', async () => {
    // The far machine's service restarted into another version (same protocol).
    fs.writeFileSync(m.farEnv.TD_TEST_VERSION_FILE!, '9.9.9\n');
    const conn = await connectService({ env: homeEnv(), client: 'cli', start: false });
    await conn.request('machine.restart', { name: m.alias });
    conn.close();
    const restart = chip(win).getByRole('button', { name: `Restart service: ${m.alias}` });
    await restart.waitFor({ timeout: 60_000 });
    expect(await chip(win).locator('.machine-version').textContent()).toBe('9.9.9');
    await win.screenshot('machines-version-dark');
    // Its install is back to this version: Restart service brings that one up.
    fs.rmSync(m.farEnv.TD_TEST_VERSION_FILE!);
    await restart.click();
    await chip(win).locator('.machine-version').waitFor({ state: 'detached', timeout: 60_000 });
    await chip(win).locator('.machine-state').waitFor({ state: 'detached', timeout: 60_000 });
  }, 180_000);
});

describe('far panes in the window', () => {
  it('opens a pane on the machine beside the home pane: typed into, its output shown, its machine in its header; ssh killed: "reconnecting…" over it, then back with what it printed meanwhile', async () => {
    const farPane = win.page.locator(`.pane[data-pane-id^="${m.alias}/"]`);
    await chip(win).getByRole('button', { name: `New pane on ${m.alias}` }).click();
    await farPane.waitFor({ timeout: 30_000 });
    const id = (await farPane.getAttribute('data-pane-id'))!;
    // Beside the home pane, in the home layout; its machine's name in its header, in its colour.
    await win.waitFor(async () => (await win.paneIds()).length === 2, 'a home pane and a far pane');
    expect((await win.paneIds()).filter((p) => !p.includes('/'))).toHaveLength(1);
    const badge = win.header(id).getByTestId('pane-machine');
    expect(await badge.textContent()).toBe(m.alias);
    const colour = (await connectService({ env: homeEnv(), client: 'cli', start: false }).then(async (c) => {
      const l = await c.request('machine.list', {});
      c.close();
      return l;
    })).find((x) => x.name === m.alias)!.colour;
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
    expect(await badge.evaluate((el) => getComputedStyle(el).borderColor)).toBe(`rgb(${r}, ${g}, ${b})`);
    expect(await badge.locator('.machine-dot').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe(`rgb(${r}, ${g}, ${b})`);
    // Typed into with the real keyboard; its output shown.
    await win.typeLine(id, 'echo far-$((6*7))');
    await win.waitForText(id, /^far-42$/m, 30_000);
    const local = (await win.paneIds()).find((p) => !p.includes('/'))!;
    await win.typeLine(local, 'echo home-$((2*5))');
    await win.waitForText(local, /^home-10$/m);
    await win.waitFor(async () => (await win.pane(id))?.title !== undefined, 'the far pane known to the store');
    await win.screenshot('far-pane-dark');
    expect(await axeViolations(win, 'a home pane and a far pane, dark')).toEqual([]);
    const light = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1280, height: 760 } });
    await light.waitForText(id, /^far-42$/m, 30_000);
    await light.screenshot('far-pane-light');
    await light.close();

    // A card on the far pane's bench (dropped into its folder on the far machine), read through the far service.
    const farState = statePaths(m.farEnv);
    await win.waitFor(() => fs.existsSync(farState.sessionFile), 'the far session saved');
    const farSession = (JSON.parse(fs.readFileSync(farState.sessionFile, 'utf8')) as { session: string }).session;
    const farFolder = path.join(m.farEnv.XDG_STATE_HOME!, 'terminal-delight', 'surfaces', farSession, id.split('/')[1]!);
    dropSurface(farFolder, { id: 'pick', kind: 'decision', title: 'Which cache?', model: { question: 'LRU or TTL for the session cache?', options: [{ name: 'LRU', recommended: true }, { name: 'TTL' }] } });
    await win.header(id).getByRole('button', { name: 'Open bench' }).click();
    const choose = win.page.locator(`[data-pane-id="${id}"] .pane-bench`).getByRole('button', { name: 'Choose TTL' });
    await choose.waitFor({ timeout: 30_000 });

    // ssh killed while its sshd is down: "reconnecting…" over the far pane's last screen, with why (in both windows).
    const lightDown = await openWindow(browser, serve, { theme: 'light', viewport: { width: 1280, height: 760 } });
    await lightDown.waitForText(id, /^far-42$/m, 30_000);
    const conn = await connectService({ env: homeEnv(), client: 'cli', start: false });
    const sshPid = (await conn.request('machine.list', {})).find((x) => x.name === m.alias)!.sshPid!;
    await m.sshdDown();
    process.kill(sshPid, 'SIGKILL');
    const overlay = win.page.locator(`[data-pane-id="${id}"]`).getByTestId('far-overlay');
    await overlay.waitFor({ timeout: 30_000 });
    expect(await overlay.locator('.far-line').textContent()).toBe(`${m.alias}: reconnecting…`);
    expect(await win.page.locator(`[data-pane-id="${local}"]`).getByTestId('far-overlay').count()).toBe(0);
    // Typing into it meanwhile is refused in one sentence, and nothing is queued.
    await win.focusKeyboard(id);
    await win.page.keyboard.type('echo never-$((1+1))');
    await win.page.keyboard.press('Enter');
    await win.waitFor(async () => (await win.page.locator('.notice').allTextContents()).some((t) => t.includes(`${m.alias} is unreachable (reconnecting): nothing was sent`)), 'the refusal as a notice');
    // Said once, however many keys were refused.
    expect((await win.page.locator('.notice').allTextContents()).filter((t) => t.includes('is unreachable'))).toHaveLength(1);
    // A click on its card meanwhile: refused in one sentence, nothing queued to be typed later.
    await choose.click();
    await win.waitFor(async () => (await win.page.locator(`[data-pane-id="${id}"] .pane-bench, .notices`).allTextContents()).some((t) => t.includes(`${m.alias} is unreachable (reconnecting): nothing was sent`)), 'the card\'s click refused');
    // Printed there meanwhile (at the far machine's own desk).
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    await farDesk.request('pane.input', { paneId: id.split('/')[1]!, data: 'echo meanwhile-$((2*3))\r' });
    farDesk.close();
    await overlay.locator('.far-detail').waitFor();
    await win.screenshot('far-pane-reconnecting-dark');
    await lightDown.page.locator(`[data-pane-id="${id}"]`).getByTestId('far-overlay').waitFor({ timeout: 30_000 });
    await lightDown.screenshot('far-pane-reconnecting-light');
    expect(await axeViolations(lightDown, 'a far pane reconnecting, light')).toEqual([]);
    // Back: the overlay goes and the snapshot replays what was printed meanwhile; the refused line is nowhere.
    await m.sshdUp();
    await overlay.getByRole('button', { name: 'Retry now' }).click().catch(() => undefined);
    await overlay.waitFor({ state: 'detached', timeout: 60_000 });
    await win.waitForText(id, /^meanwhile-6$/m, 30_000);
    // The bench of a window that could not load it while the machine was down loads once it is back.
    await lightDown.page.locator(`[data-pane-id="${id}"] .pane-bench`).getByRole('button', { name: 'Choose TTL' }).waitFor({ timeout: 30_000 });
    await lightDown.close();
    expect(await win.text(id)).not.toContain('never-2');
    expect(await win.text(id)).not.toContain('choose on surface pick');
    expect(fs.existsSync(path.join(farFolder, 'actions.jsonl')) ? fs.readFileSync(path.join(farFolder, 'actions.jsonl'), 'utf8') : '').not.toContain('"pick"');
    await win.typeLine(id, 'echo again-$((3*3))');
    await win.waitForText(id, /^again-9$/m, 30_000);
    conn.close();

    // Back, the card answered from this window: recorded on the far machine, and its line typed into the far pane,
    // once a program there reads it (a bare shell would run it as a command: the far service refuses that, as at home).
    await win.typeLine(id, 'cat');
    const bench = win.page.locator(`[data-pane-id="${id}"] .pane-bench`);
    const sent = async (): Promise<boolean> => (await bench.locator('.tdb-sent-line').count()) > 0;
    await win.waitFor(async () => {
      if (!(await sent())) await choose.click();
      return win.waitFor(sent, 'the card\'s answer sent', 2_000).then(() => true, () => false);
    }, 'the card answered once cat reads the pane', 30_000).catch(async (e: Error) => {
      throw new Error(`${e.message}; the bench shows: ${await bench.innerText()}`);
    });
    // (The far pane is narrow: the line wraps there.)
    await win.waitFor(async () => /\[workbench:[^\]]*\]chooseonsurfacepick·TTL/.test((await win.text(id)).replace(/\s+/g, '')), 'the answer\'s line in the far pane', 30_000);
    const farActions = fs.readFileSync(path.join(farFolder, 'actions.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"surface":"pick"'));
    expect(farActions).toHaveLength(1);
    expect(farActions[0]).toContain('"target":"TTL"');

    // A far HTML artifact opens in the viewer: its page read from that machine through the home service (/m/<machine>/…), sandboxed.
    const page = path.join(m.far.dir, 'far-report.html');
    fs.writeFileSync(page, '<!doctype html><h1>Report from the far machine</h1>');
    dropSurface(farFolder, { id: 'far-doc', kind: 'artifact', title: 'far-report.html', model: { location: page, summary: 'A page there.' } });
    await bench.locator('[data-shelf="Files"]').click();
    const docCard = bench.locator('[data-surface-id="far-doc"]');
    await docCard.waitFor({ timeout: 30_000 });
    await docCard.getByRole('button', { name: /^Open / }).click();
    const viewer = win.page.locator('.td-viewer');
    await viewer.waitFor({ timeout: 20_000 });
    expect(await viewer.locator('iframe').getAttribute('src')).toMatch(new RegExp(`^/m/${m.alias}/artifact/`));
    expect(await viewer.frameLocator('iframe').locator('h1').textContent({ timeout: 20_000 })).toBe('Report from the far machine');
    await win.screenshot('far-artifact-viewer-dark');
    await viewer.getByRole('button', { name: 'Close the document' }).click();
    await viewer.waitFor({ state: 'detached' });

    // "+ Agent" on the machine: its own agents are listed (one installed there only), and the one chosen runs there.
    fs.writeFileSync(path.join(m.far.dir, 'bin', 'opencode'), '#!/bin/sh\necho "far-opencode on $(hostname)"\nexec cat\n', { mode: 0o755 });
    await win.page.getByRole('button', { name: '+ Agent' }).click();
    const picker = win.page.locator('.agent-picker');
    await picker.getByRole('combobox').selectOption(m.alias);
    const row = picker.locator('[data-agent="opencode"]:not(.not-installed)');
    await row.waitFor({ timeout: 20_000 });
    await win.screenshot('far-agent-picker-dark');
    expect(await axeViolations(win, 'the agent chooser with machines, dark')).toEqual([]);
    const before = new Set(await win.paneIds());
    await row.click();
    await picker.waitFor({ state: 'detached', timeout: 30_000 });
    await win.waitFor(async () => (await win.paneIds()).some((p) => !before.has(p)), 'the agent pane');
    const agentId = (await win.paneIds()).find((p) => !before.has(p))!;
    expect(agentId.startsWith(`${m.alias}/`)).toBe(true);
    await win.waitForText(agentId, /far-opencode on/, 30_000);
    expect(await win.header(agentId).getByTestId('pane-machine').textContent()).toBe(m.alias);

    // Open Tick… on the machine: "On" chooses it, and the Tick runs there, its pane here with the machine's name.
    const tickDialog = win.page.getByRole('dialog', { name: 'Open a Tick' });
    await win.page.getByRole('button', { name: 'Open Tick…' }).click();
    await tickDialog.waitFor();
    await tickDialog.getByRole('combobox').selectOption(m.alias);
    const counter = path.join(ROOT, 'assets', 'ticks', 'counter', 'counter.mjs');
    await tickDialog.getByLabel('Command').fill(`'${process.execPath}' '${counter}'`);
    await tickDialog.getByLabel('Working folder').fill(m.far.dir);
    await tickDialog.getByLabel('Title').fill('Counter on the machine');
    await win.screenshot('far-open-tick-dark');
    expect(await axeViolations(win, 'Open Tick with machines, dark')).toEqual([]);
    const beforeTick = new Set(await win.paneIds());
    await tickDialog.getByRole('button', { name: 'Open' }).click();
    await tickDialog.waitFor({ state: 'detached', timeout: 30_000 });
    await win.waitFor(async () => (await win.paneIds()).some((p) => !beforeTick.has(p)), 'the far Tick pane');
    const tickId = (await win.paneIds()).find((p) => !beforeTick.has(p))!;
    expect(tickId.startsWith(`${m.alias}/`)).toBe(true);
    expect(await win.header(tickId).getByTestId('pane-machine').textContent()).toBe(m.alias);
    const farTicks = await connectService({ env: m.farEnv, client: 'cli', start: false });
    expect((await farTicks.request('tick.list', {})).map((i) => i.paneId)).toContain(tickId.split('/')[1]);
    farTicks.close();

    // A far id in the layout that its machine does not have (closed there while the layout was away): said so, and Close takes it out.
    const ghost = `${m.alias}/ghost1`;
    const layoutNow = await win.layout();
    const c2 = await connectService({ env: homeEnv(), client: 'cli', start: false });
    await c2.request('layout.set', { layout: { type: 'split', direction: 'row', sizes: [0.75, 0.25], children: [layoutNow!, { type: 'pane', paneId: ghost }] } });
    const ghostOverlay = win.page.locator(`[data-pane-id="${ghost}"]`).getByTestId('far-overlay');
    await ghostOverlay.waitFor({ timeout: 30_000 });
    expect(await ghostOverlay.locator('.far-line').textContent()).toBe(`${m.alias} has no pane ghost1 any more`);
    // Said there, once: no notice besides about a pane the window does not know, once its terminal's
    // snapshot has been refused (that answer may come after the overlay).
    const td = () => win.page.evaluate((id) => {
      const hook = (window as unknown as { __td: { stats(id: string): { refused: number } | null; store: { getState(): { notices: Array<{ text: string }> } } } }).__td;
      return { refused: hook.stats(id)?.refused ?? 0, notices: hook.store.getState().notices.map((n) => n.text) };
    }, ghost);
    await win.waitFor(async () => (await td()).refused > 0, 'the gone pane\'s snapshot refused');
    expect((await td()).notices.filter((t) => t.includes('ghost1'))).toEqual([]);
    await ghostOverlay.getByRole('button', { name: 'Close' }).click();
    await win.waitFor(async () => !(await win.paneIds()).includes(ghost), 'the gone pane out of the layout');
    expect(await win.paneIds()).toContain(agentId);
    c2.close();
  }, 240_000);

  it('Search everything asks every connected machine: the far agent\'s line found under its qualified pane, the Machine filter narrows, Enter scrolls the far pane to it', async () => {
    let agentId = '';
    for (const p of await win.paneIds()) if (p.startsWith(`${m.alias}/`) && (await win.text(p)).includes('far-opencode on')) agentId = p;
    expect(agentId).not.toBe('');
    await win.page.locator('.titlebar').click({ position: { x: 400, y: 10 } });
    await win.page.keyboard.press('Control+Shift+F');
    const palette = win.page.getByRole('dialog', { name: 'Search everything' });
    await palette.getByRole('searchbox', { name: 'Search everything' }).fill('far-opencode');
    const hit = palette.locator('.td-search-hit', { hasText: 'far-opencode on' });
    await hit.first().waitFor({ timeout: 30_000 });
    expect(await palette.getByLabel('Machine').inputValue()).toBe('*');
    const groups = await palette.locator('.td-search-group-head').allTextContents();
    expect(groups.some((g) => g.includes(agentId))).toBe(true);
    await win.screenshot('search-machines-dark');
    expect(await axeViolations(win, 'the palette with machines, dark')).toEqual([]);
    // This machine only: the far line is not there; the machine by name: it is.
    await palette.getByLabel('Machine').selectOption('');
    await palette.locator('.td-search-empty').waitFor();
    await palette.getByLabel('Machine').selectOption(m.alias);
    await hit.first().waitFor();
    const text = (await hit.first().locator('.td-search-text').innerText()).trim();
    await win.page.keyboard.press('Enter');
    await palette.waitFor({ state: 'detached' });
    await win.waitFor(() => win.page.evaluate((id) => (window as unknown as { __td: { term(id: string): { getSelection(): string } } }).__td.term(id).getSelection(), agentId).then((sel) => sel === text), 'the far pane\'s line marked');
  }, 120_000);
});
