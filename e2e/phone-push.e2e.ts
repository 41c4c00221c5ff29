/**
 * Push on a real phone's browser (issue 34): Chromium as an iPhone 13 whose own NSS database
 * (its HOME's ~/.pki/nssdb) trusts a test CA, and the device door serving a certificate that
 * CA signed, as a person's mkcert or company CA does: the page is trusted, so Chromium takes
 * its service worker. The service pushes (web-push, encrypted) to a local push endpoint (its
 * certificate from the same CA, trusted by the service through NODE_EXTRA_CA_CERTS); the
 * test decrypts what arrived with the subscription's keys and hands exactly that to the
 * service worker as the browser's push service would (CDP ServiceWorker.deliverPushMessage).
 * The notification shows with the card's answers; its action, clicked (a notificationclick
 * dispatched in the worker: headless Chromium has no notification to click), posts its token
 * and the answer is typed into the pane; a card answered on the desktop withdraws its
 * notification; a stale token (its card answered on the desktop before the withdrawal arrived)
 * is refused and the phone says why in a notification.
 */
import { createECDH, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, CDPSession, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptPush, startPushEndpoint, type PushEndpoint } from '../main/devices/testing.ts';
import { dropSurface, launchBrowser, openWindow, paneFolder, startServe, tempDir, type Serve, type TdPage } from './harness.ts';
import { homeTrusting, pairedPhone, testCa, type Phone } from './phone.ts';

let serve: Serve;
let browser: Browser;
let win: TdPage;
let ph: Phone;
let endpoint: PushEndpoint;
let cdp: CDPSession;
const registrations: Array<{ registrationId: string; scopeURL: string; isDeleted: boolean }> = [];

beforeAll(async () => {
  const ca = testCa(tempDir('ca'));
  serve = await startServe({ env: { NODE_EXTRA_CA_CERTS: ca.ca } });
  browser = await launchBrowser({ env: { ...process.env, HOME: homeTrusting(ca.ca, tempDir('browser-home')) } });
  win = await openWindow(browser, serve);
  ph = await pairedPhone(browser, serve, 'Ada\'s phone', { cert: ca.cert, key: ca.key, trusted: true });
  endpoint = await startPushEndpoint(fs.readFileSync(ca.pushCert, 'utf8'), fs.readFileSync(ca.pushKey, 'utf8'));
  cdp = await ph.context.newCDPSession(ph.page);
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: typeof registrations }) => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
}, 120_000);

afterAll(async () => {
  await endpoint?.close();
  await ph?.close();
  await win?.close().catch(() => undefined);
  await browser?.close();
  await serve?.close();
});

/** The service worker's queue for notification work (renderer/public/sw.js), seen from code the test runs in the worker. */
declare const inTurn: <T>(work: () => Promise<T>) => Promise<T>;

interface Shown { title: string; body: string; tag: string; actions: Array<{ action: string; title: string }> }

/** How long a pushed notification may take to show or close (the worker, through CDP, on a busy machine: vitest's poll gives 1 s, and a CI run once missed it). */
const SHOWN_WITHIN = { timeout: 15_000 };

describe('push to a phone that trusts the door', () => {
  it('shows a pushed card as a notification whose action answers it; withdraws it when answered on the desktop; says why a stale token is refused', async () => {
    const { page: phone, conn } = ph;
    const origin = new URL(phone.url()).origin;
    // Trusted without any certificate error let pass: a secure context, and the service worker taken.
    expect(await phone.evaluate(() => window.isSecureContext)).toBe(true);
    expect(await phone.evaluate(() => navigator.serviceWorker.ready.then((r) => r.active?.scriptURL))).toBe(`${origin}/sw.js`);
    await phone.getByRole('button', { name: 'Notify me when an agent asks' }).waitFor();
    const registrationId = (await expect.poll(() => registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted)?.registrationId).toBeTruthy(), registrations.find((r) => r.scopeURL === `${origin}/` && !r.isDeleted)!.registrationId);
    const sw: Worker = ph.context.serviceWorkers()[0] ?? await ph.context.waitForEvent('serviceworker');

    // Subscribed (as pushManager.subscribe would, with a push service of the test's own: headless Chromium has none) with the device's cookie.
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    const auth = randomBytes(16);
    const sub = { endpoint: endpoint.url, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    expect(await phone.evaluate(async (body) => (await fetch('/api/push/subscribe', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })).json(), sub)).toEqual({ ok: true });

    // An agent's pane reading the lines typed back.
    const out = path.join(serve.cwd, 'typed-by-push.txt');
    const pane = await conn.request('pane.create', { command: ['/usr/bin/env', 'bash', '-c', `exec cat > ${out}`], cwd: serve.cwd });
    const folder = await paneFolder(win, serve, pane.id);
    /**
     * The next push the endpoint got, decrypted: exactly what the browser's push service would hand
     * the worker. One that repeats the push before it is passed over: a send is tried again when its
     * answer is slow (10 s, a loaded machine), so a push may come twice, as from any push service
     * (the worker shows a card again under its tag; a withdrawal closes nothing more).
     */
    let read = 0;
    let last: string | undefined;
    const nextPush = async (): Promise<string> => {
      for (;;) {
        const got = await expect.poll(() => endpoint.got.length, { timeout: 20_000 }).toBeGreaterThan(read).then(() => endpoint.got[read++]!);
        const text = decryptPush(got.body, ua, auth);
        if (text === last) continue;
        last = text;
        return text;
      }
    };
    const deliver = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
    // Read in the worker's own turn (renderer/public/sw.js inTurn), never while it shows one: a
    // getNotifications() begun between a notification's write and its display deletes it for good.
    const shown = (): Promise<Shown[]> => sw.evaluate(async () => (await inTurn(() => (self as unknown as { registration: ServiceWorkerRegistration }).registration.getNotifications())).map((n) => ({ title: n.title, body: n.body, tag: n.tag, actions: ((n as unknown as { actions?: Array<{ action: string; title: string }> }).actions ?? []).map((a) => ({ action: a.action, title: a.title })) })));
    const click = (tag: string, action: string) => sw.evaluate(async ({ tag, action }) => {
      const g = self as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(e: Event): boolean };
      const [n] = await inTurn(() => g.registration.getNotifications({ tag }));
      if (!n) throw new Error(`no notification ${tag}`);
      const NE = (self as unknown as { NotificationEvent: new (type: string, init: { notification: Notification; action: string }) => Event }).NotificationEvent;
      const e = new NE('notificationclick', { notification: n, action });
      // A constructed event's waitUntil throws (it is not trusted), so nothing would hold the handler's
      // post and its 'Not sent' notification: its promise is kept here and waited for, as the browser would.
      const kept: Promise<unknown>[] = [];
      Object.defineProperty(e, 'waitUntil', { value: (p: Promise<unknown>) => void kept.push(p) });
      g.dispatchEvent(e);
      await Promise.race([Promise.all(kept), new Promise((_, reject) => setTimeout(() => reject(new Error(`the worker's answer to ${action} did not settle in 20 s`)), 20_000))]);
    }, { tag, action });

    // A question: pushed, shown with its two answers.
    dropSurface(folder, { id: 'port', kind: 'question', title: 'Which port?', model: { question: 'Which port should the dev server use?', options: [{ name: '8080' }, { name: '9090' }] } });
    const first = await nextPush();
    const card = JSON.parse(first) as { t: string; tag: string; id: string; actions: Array<{ action: string; title: string; token: string }> };
    expect(card).toMatchObject({ t: 'card', title: 'bash: Which port?', body: 'Which port should the dev server use?', kind: 'question' });
    await deliver(first);
    await expect.poll(shown, SHOWN_WITHIN).toEqual([{ title: 'bash: Which port?', body: 'Which port should the dev server use?', tag: card.tag, actions: [{ action: 'a0', title: '8080' }, { action: 'a1', title: '9090' }] }]);

    // Its action: the worker posts the token; the answer is typed into the pane, recorded, and the notification closes.
    await click(card.tag, 'a1');
    await expect.poll(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), { timeout: 20_000 }).toContain('choose on surface port · 9090');
    expect(JSON.parse(fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8').trim())).toMatchObject({ type: 'action', surface: 'port', action: 'choose', target: '9090' });
    await expect.poll(shown, SHOWN_WITHIN).toEqual([]);
    // The answered card's withdrawal reaches the phone too (nothing left to close).
    expect(JSON.parse(await nextPush())).toEqual({ t: 'withdraw', tag: card.tag, id: card.id });

    // A decision answered on the desktop while the phone still shows it (its withdrawal not yet
    // delivered, as a late push is): the notification's answer is stale, refused, nothing typed,
    // and the phone says why.
    dropSurface(folder, { id: 'deploy', kind: 'decision', title: 'Deploy?', model: { question: 'Ship it to staging?', options: [{ name: 'Ship' }, { name: 'Wait' }] } });
    const second = await nextPush();
    const deploy = JSON.parse(second) as { tag: string; id: string };
    await deliver(second);
    await expect.poll(async () => (await shown()).map((n) => n.title), SHOWN_WITHIN).toEqual(['bash: Deploy?']);
    expect((await conn.request('surface.act', { paneId: pane.id, surfaceId: 'deploy', action: 'choose', target: 'Wait' })).ok).toBe(true);
    const late = await nextPush();
    expect(JSON.parse(late)).toEqual({ t: 'withdraw', tag: deploy.tag, id: deploy.id });
    await click(deploy.tag, 'a0');
    const refused = { title: 'Not sent', body: expect.stringContaining('already answered elsewhere'), tag: `${deploy.tag}-refused`, actions: [] };
    await expect.poll(shown, SHOWN_WITHIN).toEqual([refused]);
    // The desktop's answer is typed as its line, then Enter 200 ms later: cat writes it once the line ends.
    await expect.poll(() => fs.readFileSync(out, 'utf8'), { timeout: 20_000 }).toContain('choose on surface deploy · Wait');
    expect(fs.readFileSync(out, 'utf8')).not.toContain('Ship');
    // The late withdrawal closes nothing but its card's own notification (the refusal stays).
    await deliver(late);

    // A question answered on the desktop: its shown notification is withdrawn.
    dropSurface(folder, { id: 'cache', kind: 'question', title: 'Cache?', model: { question: 'Keep the build cache?', options: [{ name: 'Keep' }, { name: 'Drop' }] } });
    const third = await nextPush();
    const cache = JSON.parse(third) as { tag: string; id: string };
    await deliver(third);
    await expect.poll(async () => (await shown()).map((n) => n.title).sort(), SHOWN_WITHIN).toEqual(['Not sent', 'bash: Cache?']);
    expect((await conn.request('surface.act', { paneId: pane.id, surfaceId: 'cache', action: 'choose', target: 'Keep' })).ok).toBe(true);
    const withdraw = await nextPush();
    expect(JSON.parse(withdraw)).toEqual({ t: 'withdraw', tag: cache.tag, id: cache.id });
    await deliver(withdraw);
    await expect.poll(shown, SHOWN_WITHIN).toEqual([refused]);

    // A card that changed: its old push's withdrawal, then its new push under the same tag. The
    // withdrawal handed over after the new push (the push service's order is not the phone's)
    // leaves the new notification shown.
    dropSurface(folder, { id: 'lint', kind: 'question', title: 'Lint?', model: { question: 'Fix the lint errors?', options: [{ name: 'Fix' }, { name: 'Skip' }] } });
    const lintOld = await nextPush();
    const lintOldCard = JSON.parse(lintOld) as { tag: string; id: string };
    await deliver(lintOld);
    await expect.poll(async () => (await shown()).map((n) => n.title).sort(), { ...SHOWN_WITHIN, message: `the lint card's push, delivered: ${lintOld}` }).toEqual(['Not sent', 'bash: Lint?']);
    dropSurface(folder, { id: 'lint', kind: 'question', title: 'Lint now?', model: { question: 'Fix the 3 lint errors?', options: [{ name: 'Fix' }, { name: 'Skip' }] } });
    const lintGone = await nextPush();
    expect(JSON.parse(lintGone)).toEqual({ t: 'withdraw', tag: lintOldCard.tag, id: lintOldCard.id });
    const lintNew = await nextPush();
    const lintNewCard = JSON.parse(lintNew) as { t: string; tag: string; id: string; title: string };
    expect(lintNewCard).toMatchObject({ t: 'card', tag: lintOldCard.tag, title: 'bash: Lint now?' });
    expect(lintNewCard.id).not.toBe(lintOldCard.id);
    await deliver(lintNew);
    await expect.poll(async () => (await shown()).map((n) => n.title).sort(), SHOWN_WITHIN).toEqual(['Not sent', 'bash: Lint now?']);
    await deliver(lintGone);
    // Its withdrawal delivered after it, then a later push of another card proves the worker took it.
    dropSurface(folder, { id: 'tests', kind: 'question', title: 'Tests?', model: { question: 'Run the slow tests?', options: [{ name: 'Run' }, { name: 'Skip' }] } });
    const tests = await nextPush();
    expect(JSON.parse(tests)).toMatchObject({ t: 'card', title: 'bash: Tests?' });
    await deliver(tests);
    await expect.poll(async () => (await shown()).map((n) => n.title).sort(), SHOWN_WITHIN).toEqual(['Not sent', 'bash: Lint now?', 'bash: Tests?']);
  }, 120_000);
});
