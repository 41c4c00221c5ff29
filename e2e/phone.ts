/**
 * A phone for the e2e tests: the device door of a serve's service turned on at a free
 * loopback port, a pairing opened, and Chromium as an iPhone 13 (playwright-core's
 * descriptor: 390×844, touch, mobile) that trusts the door's own certificate as a person who
 * checked its fingerprint does (ignoreHTTPSErrors), paired from the QR code's URL.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { devices, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { connectService, type ServiceConnection } from '../main/service/client.ts';
import { ARTIFACTS, type Serve } from './harness.ts';

export interface Phone {
  conn: ServiceConnection;
  context: BrowserContext;
  page: Page;
  /** The phone's page, screenshotted into e2e/artifacts/NAME.png. */
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Turn the door on, open a pairing and pair a phone named `name` from the QR code's URL; it shows its inbox. */
export async function pairedPhone(browser: Browser, serve: Serve, name = 'Ada\'s phone'): Promise<Phone> {
  const env = { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home, TD_SOCKET: path.join(serve.stateDir, 'app.sock') };
  const conn = await connectService({ env, client: 'cli', start: false });
  const on = await conn.request('devices.enable', { address: '127.0.0.1', port: await freePort() });
  if (!on.ok) throw new Error(on.error);
  const r = await conn.request('devices.pair', {});
  if (!r.ok) throw new Error(r.error);
  const { defaultBrowserType: _webkit, ...iphone } = devices['iPhone 13'];
  const context = await browser.newContext({ ...iphone, ignoreHTTPSErrors: true, colorScheme: 'dark' });
  const page = await context.newPage();
  await page.goto(r.pairing.url);
  await page.getByLabel('This device\'s name').fill(name);
  await page.getByRole('button', { name: 'Pair' }).tap();
  await page.getByRole('tab', { name: /Inbox/ }).waitFor();
  return {
    conn, context, page,
    async shot(file) {
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `${file}.png`) });
    },
    async close() {
      await context.close().catch(() => undefined);
      conn.close();
    },
  };
}
