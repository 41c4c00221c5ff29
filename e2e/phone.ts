/**
 * A phone for the e2e tests: the device door of a serve's service turned on at a free
 * loopback port, a pairing opened, and Chromium as an iPhone 13 (playwright-core's
 * descriptor: 390×844, touch, mobile) that trusts the door's own certificate as a person who
 * checked its fingerprint does (ignoreHTTPSErrors), paired from the QR code's URL.
 */
import { execFileSync } from 'node:child_process';
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

/** A phone that is not paired yet: the door turned on (the person's certificate when given), Chromium as an iPhone 13. */
export async function phoneAtDoor(browser: Browser, serve: Serve, own: { cert?: string; key?: string; trusted?: boolean } = {}): Promise<{ conn: ServiceConnection; context: BrowserContext; page: Page; url: string }> {
  const env = { ...process.env, XDG_STATE_HOME: serve.stateDir, HOME: serve.home, TD_SOCKET: path.join(serve.stateDir, 'app.sock') };
  const conn = await connectService({ env, client: 'cli', start: false });
  const on = await conn.request('devices.enable', { address: '127.0.0.1', port: await freePort(), ...(own.cert && own.key ? { cert: own.cert, key: own.key } : {}) });
  if (!on.ok) throw new Error(on.error);
  const { defaultBrowserType: _webkit, ...iphone } = devices['iPhone 13'];
  const context = await browser.newContext({ ...iphone, ignoreHTTPSErrors: own.trusted !== true, colorScheme: 'dark' });
  if (own.trusted) await context.grantPermissions(['notifications'], { origin: new URL(on.state.url!).origin });
  return { conn, context, page: await context.newPage(), url: on.state.url! };
}

/**
 * Turn the door on, open a pairing and pair a phone named `name` from the QR code's URL; it
 * shows its inbox. With `cert` and `key` the door serves the person's own certificate, and
 * with `trusted` the phone's browser must trust it itself (no certificate error is let pass).
 */
export async function pairedPhone(browser: Browser, serve: Serve, name = 'Ada\'s phone', own: { cert?: string; key?: string; trusted?: boolean } = {}): Promise<Phone> {
  const { conn, context, page } = await phoneAtDoor(browser, serve, own);
  const r = await conn.request('devices.pair', {});
  if (!r.ok) throw new Error(r.error);
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

/**
 * A certificate authority of the test's own and a certificate for 127.0.0.1 it signed (for
 * the door, and one for a local push endpoint), made with openssl: what mkcert or a company
 * CA gives a person. Files in `dir`.
 */
export function testCa(dir: string): { ca: string; cert: string; key: string; pushCert: string; pushKey: string } {
  const f = (n: string) => path.join(dir, n);
  const ossl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ossl(['req', '-x509', ...ec, '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=Terminal Delight test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  fs.writeFileSync(f('leaf.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1\n');
  const leaf = (name: string) => {
    ossl(['req', ...ec, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', '/CN=127.0.0.1']);
    ossl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${name}.pem`), '-days', '2', '-extfile', f('leaf.ext')]);
  };
  leaf('door');
  leaf('push');
  return { ca: f('ca.pem'), cert: f('door.pem'), key: f('door.key'), pushCert: f('push.pem'), pushKey: f('push.key') };
}

/**
 * A HOME for the browser whose NSS database (~/.pki/nssdb, where Chromium on Linux reads the
 * user's own trust) trusts `caFile` for servers: only that browser trusts it. Needs
 * `certutil` (Debian's libnss3-tools); one sentence when it is missing.
 */
export function homeTrusting(caFile: string, home: string): string {
  const db = path.join(home, '.pki', 'nssdb');
  fs.mkdirSync(db, { recursive: true });
  try {
    execFileSync('certutil', ['-d', `sql:${db}`, '-N', '--empty-password'], { stdio: 'pipe' });
    execFileSync('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'Terminal Delight test CA', '-i', caFile], { stdio: 'pipe' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('certutil is missing: install libnss3-tools (apt-get install libnss3-tools) for the service worker test');
    throw e;
  }
  return home;
}
