/**
 * Settings → Phone and other devices in the desktop window: the door turned on at an address
 * typed there, Pair a device showing the QR code and the code, a phone (Chromium as an
 * iPhone 13) pairing by typing that code, listed, and revoked from the same screen.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { devices, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTIFACTS, openPaneFixture, type PaneFixture } from './harness.ts';

let fx: PaneFixture;
let phoneCtx: BrowserContext;

beforeAll(async () => {
  fx = await openPaneFixture({ theme: 'dark', viewport: { width: 1280, height: 900 } });
}, 120_000);
afterAll(async () => {
  await phoneCtx?.close().catch(() => undefined);
  await fx?.close();
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

describe('Settings → Phone and other devices', () => {
  it('turns the door on, pairs a phone by the code it shows, lists it, and revokes it', async () => {
    const { win } = fx;
    await win.focusTerminal(fx.paneId);
    await win.page.keyboard.press('Control+Comma');
    const settings = win.page.getByRole('dialog', { name: 'Settings' });
    const section = settings.locator('[data-setting="devices"]');
    await section.getByText('Off. Answer your agents from your phone').waitFor();
    await section.getByLabel('Device door').fill('0.0.0.0');
    await section.getByRole('button', { name: 'Turn on' }).click();
    await section.getByRole('alert').filter({ hasText: 'every network' }).waitFor();
    const port = await freePort();
    await section.getByLabel('Device door').fill(`127.0.0.1:${port}`);
    await section.getByRole('button', { name: 'Turn on' }).click();
    await section.getByText(`https://127.0.0.1:${port}/`).waitFor();
    expect(await section.locator('.devices-fp').textContent()).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);

    await section.getByRole('button', { name: 'Pair a device' }).click();
    const code = (await section.getByLabel('Pairing code').textContent())!.replace(' ', '');
    expect(code).toMatch(/^[ACDEFGHJKMNPQRTUVWXY34679]{8}$/);
    expect(await section.getByRole('img', { name: /QR code/ }).count()).toBe(1);
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await settings.screenshot({ path: path.join(ARTIFACTS, 'settings-devices-pairing-dark.png') });

    const { defaultBrowserType: _webkit, ...iphone } = devices['iPhone 13'];
    phoneCtx = await fx.browser.newContext({ ...iphone, ignoreHTTPSErrors: true, colorScheme: 'light' });
    const phone = await phoneCtx.newPage();
    await phone.goto(`https://127.0.0.1:${port}/`);
    await phone.getByLabel('Code').fill('wrongcod');
    await phone.getByLabel('This device\'s name').fill('Ada\'s tablet');
    await phone.getByRole('button', { name: 'Pair' }).tap();
    await phone.getByRole('alert').filter({ hasText: '4 tries left' }).waitFor();
    await phone.screenshot({ path: path.join(ARTIFACTS, 'phone-pair-light.png') });
    await phone.getByLabel('Code').fill(`${code.slice(0, 4)} ${code.slice(4).toLowerCase()}`);
    await phone.getByRole('button', { name: 'Pair' }).tap();
    await phone.getByText('Nothing waits for you').waitFor();

    await section.getByText('Paired Ada\'s tablet.').waitFor();
    const row = section.getByRole('list', { name: 'Paired devices' }).getByRole('listitem');
    await expect.poll(() => row.textContent()).toContain('connected');
    // May type: off until allowed here; the phone hears of it.
    const me = () => phone.evaluate(async () => ((await (await fetch('/api/me')).json()) as { canType: boolean }).canType);
    expect(await me()).toBe(false);
    await row.getByLabel('May type').click();
    await expect.poll(me).toBe(true);
    await settings.screenshot({ path: path.join(ARTIFACTS, 'settings-devices-dark.png') });
    await section.getByRole('button', { name: 'Revoke Ada\'s tablet' }).click();
    await section.getByText('No device is paired.').waitFor();
    await phone.getByRole('alert').filter({ hasText: 'this device was revoked: pair it again' }).waitFor();

    await section.getByRole('button', { name: 'Turn off' }).click();
    await section.getByText('Off. Answer your agents from your phone').waitFor();
  }, 120_000);
});
