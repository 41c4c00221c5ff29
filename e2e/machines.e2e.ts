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
import { connectService, stopService } from '../main/service/client.ts';
import { startFarMachine, type FarMachine } from '../main/machines/sshd-testing.ts';
import { launchBrowser, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

let m: FarMachine;
let serve: Serve;
let browser: Browser;
let win: TdPage;

const dialog = (w: TdPage): Locator => w.page.getByRole('dialog', { name: 'Connect a machine' });
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
  await stopService({ env: m.farEnv, endPanes: true }).catch(() => undefined);
  await m?.stop();
  m?.near.cleanup();
  m?.far.cleanup();
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
    expect(await alert.textContent()).toBe('nowhere is unreachable (ssh: connect to host 127.0.0.1 port 1: Connection refused): check that it is up and its address and port are right, then `terminal-delight connect nobody@127.0.0.1:1 --name nowhere`.');
    await win.screenshot('machine-dialog-refused-dark');
    // A machine that never connected is not kept: the title bar does not show it.
    expect(await win.page.locator('.machine-chip').count()).toBe(0);
  }, 60_000);

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
    await m.sshdUp();
    // Retry now, rather than waiting for the next try (it may be under way already: then that one brings it back).
    await chip(win).getByRole('button', { name: `Retry ${m.alias} now` }).click();
    await chip(win).locator('.machine-state').waitFor({ state: 'detached', timeout: 60_000 });
    expect(await chip(win).getByRole('button').count()).toBe(0);

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
    const restart = chip(win).getByRole('button', { name: `Restart ${m.alias}'s service` });
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
