/**
 * Web Push for real: a real service and its device door, a device subscribed with keys made
 * here (node:crypto ECDH P-256, as a browser makes them), and a local HTTPS endpoint standing
 * for the push service: it decrypts what it receives (RFC 8291, aes128gcm) with the
 * subscription's private key and checks what a push service could read. The notification's
 * action, posted with its token, types the answer into a real pane; a replayed or stale
 * token is refused; 410 drops the subscription; 500 is retried.
 */
import { createECDH, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { startService, type RunningService } from '../service/service.ts';
import { checkNotify, checkSubscription, inQuiet, retryDelayMs, topicOf } from './push.ts';
import { DEFAULT_NOTIFY } from './store.ts';
import { catPane, decryptPush as decrypt, openDoor, startPushEndpoint, type PushEndpoint } from './testing.ts';

let state: ReturnType<typeof tempState>;
let svc: RunningService;
let door: Awaited<ReturnType<typeof openDoor>>;
const WINDOW = { id: 'w1' };

let endpoint: PushEndpoint;

beforeEach(async () => {
  state = tempState();
  const r = await startService({ env: state.env, fresh: true, idleMs: 0 });
  if (!r.started) throw new Error('not started');
  svc = r.service;
  door = await openDoor(svc);
  // The push service: HTTPS on loopback with a certificate of its own, trusted by the service's push agent.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'push.test' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }] });
  endpoint = await startPushEndpoint(pems.cert, pems.private);
  svc.app.devices.pushes.agent = new https.Agent({ ca: pems.cert });
});
afterEach(async () => {
  await endpoint.close();
  await svc.stop('test over');
  state.cleanup();
});

const call = (method: string, p: string, opts: { body?: unknown; cookie?: string } = {}) => door.call(method, p, opts);
const pairedDevice = (): Promise<string> => door.pair('Pixel');

const readingPane = () => catPane(svc, state.dir);

/** A paired device subscribed to push at the test's endpoint, with the keys that decrypt what it gets. */
async function subscribedDevice(): Promise<{ cookie: string; ua: ReturnType<typeof createECDH>; auth: Buffer }> {
  const cookie = await pairedDevice();
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  const auth = randomBytes(16);
  await call('POST', '/api/push/subscribe', { cookie, body: { endpoint: endpoint.url, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } } });
  return { cookie, ua, auth };
}

describe('Web Push to devices', () => {
  it('pushes a question encrypted to the device, with single-use answer tokens bound to the card; withdraws it when answered', async () => {
    const cookie = await pairedDevice();
    const key = await call('GET', '/api/push/key', { cookie });
    expect(String(key.body.publicKey)).toMatch(/^[A-Za-z0-9_-]{87}$/);
    expect(fs.statSync(path.join(svc.paths.state, 'devices', 'vapid.json')).mode & 0o777).toBe(0o600);
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    const auth = randomBytes(16);
    const bad = await call('POST', '/api/push/subscribe', { cookie, body: { endpoint: 'http://127.0.0.1/x', keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } } });
    expect(bad.body).toEqual({ ok: false, error: 'a push endpoint must be https: subscribe again' });
    const sub = await call('POST', '/api/push/subscribe', { cookie, body: { endpoint: endpoint.url, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } } });
    expect(sub.body).toEqual({ ok: true });
    expect((await svc.app.core.request('devices.state', {}, WINDOW)).devices[0]).toMatchObject({ name: 'Pixel', push: true });

    const pane = await readingPane();
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'port', title: 'Which port?', model: { question: 'Which port should the dev server use?', options: [{ name: '8080' }, { name: '9090' }] } }, 'file');
    const first = await waitFor(() => endpoint.got[0], 'the push to reach the push service');
    // What the push service sees: VAPID, a TTL, an urgency, an opaque Topic; the rest is ciphertext.
    expect(first.headers['content-encoding']).toBe('aes128gcm');
    expect(String(first.headers.authorization)).toMatch(new RegExp(`^vapid t=[\\w-]+\\.[\\w-]+\\.[\\w-]+, k=${String(key.body.publicKey)}$`));
    expect(first.headers.ttl).toBe('3600');
    expect(first.headers.urgency).toBe('high');
    expect(String(first.headers.topic)).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const secret of ['port', 'Which port', '8080', pane.id]) {
      expect(first.body.includes(Buffer.from(secret))).toBe(false);
      expect(String(first.headers.topic)).not.toContain(secret);
    }
    const payload = JSON.parse(decrypt(first.body, ua, auth)) as { t: string; tag: string; id: string; title: string; body: string; actions: Array<{ action: string; title: string; token: string }> };
    expect(payload.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    expect(payload).toMatchObject({ t: 'card', tag: first.headers.topic, title: 'bash: Which port?', body: 'Which port should the dev server use?', kind: 'question' });
    expect(payload.actions.map((a) => a.title)).toEqual(['8080', '9090']);
    expect(payload.actions[0]!.token).toMatch(/^[A-Za-z0-9_-]{22}$/);

    // The action posted with its token answers exactly as a tap would.
    const r = await call('POST', '/api/push/act', { cookie, body: { token: payload.actions[1]!.token } });
    expect(r.body).toEqual({ ok: true });
    await waitFor(() => fs.existsSync(pane.out) && fs.readFileSync(pane.out, 'utf8').includes(`[workbench:${pane.tag}] choose on surface port · 9090`), 'the line typed into the pane');
    const record = JSON.parse(fs.readFileSync(path.join(svc.app.panes.folder(pane.id), 'actions.jsonl'), 'utf8').trim()) as Record<string, unknown>;
    expect(record).toMatchObject({ surface: 'port', action: 'choose', target: '9090' });
    // Replayed, or its sibling: refused, nothing typed.
    expect((await call('POST', '/api/push/act', { cookie, body: { token: payload.actions[1]!.token } })).body).toEqual({ ok: false, error: 'this answer was used already: nothing was sent' });
    expect((await call('POST', '/api/push/act', { cookie, body: { token: payload.actions[0]!.token } })).body).toEqual({ ok: false, error: 'this answer was used already: nothing was sent' });
    expect((await call('POST', '/api/push/act', { cookie, body: { token: 'A'.repeat(22) } })).body).toMatchObject({ ok: false, error: expect.stringContaining('unknown') });
    // Answered: the notification is withdrawn (same Topic).
    const withdraw = await waitFor(() => endpoint.got[1], 'the withdrawal');
    expect(withdraw.headers.topic).toBe(first.headers.topic);
    expect(JSON.parse(decrypt(withdraw.body, ua, auth))).toEqual({ t: 'withdraw', tag: first.headers.topic, id: payload.id });
    expect(fs.readFileSync(pane.out, 'utf8')).not.toContain('8080');
  });

  it('a token goes stale when the card is answered on the desktop; 500 is retried; 410 drops the subscription', async () => {
    const { cookie, ua, auth } = await subscribedDevice();
    const pane = await readingPane();
    // The push service fails once, then takes it.
    endpoint.answer.push(500);
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'decision', id: 'deploy', title: 'Deploy?', model: { question: 'Deploy to staging now?', options: [{ name: 'yes' }, { name: 'later' }] } }, 'file');
    const second = await waitFor(() => endpoint.got[1], 'the retry after the 500');
    const payload = JSON.parse(decrypt(second.body, ua, auth)) as { actions: Array<{ title: string; token: string }> };
    expect(payload.actions.map((a) => a.title)).toEqual(['yes', 'later']);
    // The retry carried what the failed attempt did (encrypted afresh).
    expect(JSON.parse(decrypt(endpoint.got[0]!.body, ua, auth))).toEqual(payload);
    expect(endpoint.got[0]!.body.equals(second.body)).toBe(false);

    const desk = await svc.app.core.request('surface.act', { paneId: pane.id, surfaceId: 'deploy', action: 'choose', target: 'later' }, WINDOW);
    expect(desk.ok).toBe(true);
    const stale = await call('POST', '/api/push/act', { cookie, body: { token: payload.actions[0]!.token } });
    expect(stale.body).toEqual({ ok: false, error: 'this card was already answered elsewhere (on the desktop or another device), or it changed: nothing was sent' });
    await waitFor(() => fs.existsSync(pane.out) && fs.readFileSync(pane.out, 'utf8').includes('choose on surface deploy · later'), 'the desktop\'s line');
    expect(fs.readFileSync(pane.out, 'utf8')).not.toContain('· yes');

    // The push service says the subscription is gone: it is dropped.
    endpoint.answer.push(410);
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'q2', title: 'Another?', model: { question: 'Another one?' } }, 'file');
    await waitFor(async () => (await svc.app.core.request('devices.state', {}, WINDOW)).devices[0]!.push === false, 'the subscription dropped after 410');
    expect(JSON.parse(fs.readFileSync(path.join(svc.paths.state, 'devices', 'devices.json'), 'utf8')).devices[0].push).toBeUndefined();
  });
});

describe('a push service that fails', () => {
  it('is tried again with backoff: 1 s after the first failure, then as long as its Retry-After says', async () => {
    const { cookie, ua, auth } = await subscribedDevice();
    const pane = await readingPane();
    endpoint.answer.push(503, { status: 429, headers: { 'Retry-After': '3' } });
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'again', title: 'Again?', model: { question: 'Try again?', options: [{ name: 'yes' }] } }, 'file');
    await waitFor(() => endpoint.got[2], 'the third try, after a 503 and a 429', 20_000);
    const [a, b, c] = endpoint.got as [typeof endpoint.got[0], typeof endpoint.got[0], typeof endpoint.got[0]];
    // (Lower bounds only: a loaded machine may wait longer, never shorter.)
    expect(b.at - a.at).toBeGreaterThanOrEqual(950);
    expect(c.at - b.at).toBeGreaterThanOrEqual(2950);
    expect(JSON.parse(decrypt(c.body, ua, auth))).toEqual(JSON.parse(decrypt(a.body, ua, auth)));
  });

  it('sends a device\'s pushes of one card in turn, a newer one superseding one still waiting to be tried again, never a withdrawal', async () => {
    const { ua, auth } = await subscribedDevice();
    const pane = await readingPane();
    // The card's first push fails and is to be tried again in 30 s; meanwhile the card changes.
    // The push service then takes 400 ms to answer the withdrawal.
    endpoint.answer.push({ status: 503, headers: { 'Retry-After': '30' } }, { status: 201, delayMs: 400 });
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'lint', title: 'Lint?', model: { question: 'Fix the lint errors?', options: [{ name: 'Fix' }] } }, 'file');
    const first = await waitFor(() => endpoint.got[0], 'the first push');
    const old = JSON.parse(decrypt(first.body, ua, auth)) as { t: string; id: string };
    expect(old.t).toBe('card');
    await new Promise((r) => setTimeout(r, 20));
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'lint', title: 'Lint now?', model: { question: 'Fix the 3 lint errors?', options: [{ name: 'Fix' }] } }, 'file');
    // At once (not after the old push's 30 s): the old push's withdrawal, then, once the push
    // service has answered it, the new push, under the same Topic: the last it gets. The old push
    // is not tried again.
    const third = await waitFor(() => endpoint.got[2], 'the changed card\'s push', 10_000);
    const second = endpoint.got[1]!;
    expect(JSON.parse(decrypt(second.body, ua, auth))).toEqual({ t: 'withdraw', tag: first.headers.topic, id: old.id });
    const now = JSON.parse(decrypt(third.body, ua, auth)) as { t: string; id: string; title: string };
    expect(now).toMatchObject({ t: 'card', tag: first.headers.topic, title: 'bash: Lint now?' });
    expect(now.id).not.toBe(old.id);
    expect(third.headers.topic).toBe(first.headers.topic);
    // (A lower bound only: the new push is sent once the withdrawal's answer came.)
    expect(third.at - second.at).toBeGreaterThanOrEqual(350);
    await new Promise((r) => setTimeout(r, 1500));
    expect(endpoint.got).toHaveLength(3);
  });

  it('waits 1, 2, 4, 8, 16 s, or what Retry-After says (seconds or a date), at most 5 minutes', () => {
    const now = Date.parse('2026-12-04T12:00:00Z');
    expect([0, 1, 2, 3, 4].map((n) => retryDelayMs(n, undefined, now))).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(retryDelayMs(0, '3', now)).toBe(3000);
    expect(retryDelayMs(2, ' 7 ', now)).toBe(7000);
    expect(retryDelayMs(0, '100000', now)).toBe(300_000);
    expect(retryDelayMs(0, 'Fri, 04 Dec 2026 12:00:05 GMT', now)).toBe(5000);
    expect(retryDelayMs(1, 'Fri, 04 Dec 2026 11:59:00 GMT', now)).toBe(2000);
    expect(retryDelayMs(1, 'soon', now)).toBe(2000);
    expect(retryDelayMs(1, '', now)).toBe(2000);
  });
});

describe('what a device is notified of', () => {
  it('by its own settings: not the cards it turned off, an agent done and a failed command when it asked, nothing in its quiet hours', async () => {
    const { cookie, ua, auth } = await subscribedDevice();
    expect((await call('GET', '/api/notify', { cookie })).body).toEqual({ ok: true, notify: DEFAULT_NOTIFY });
    expect((await call('POST', '/api/notify', { cookie, body: { quiet: { from: '25:00', to: '07:00' } } })).body).toMatchObject({ ok: false, error: expect.stringContaining('quiet hours are') });
    // All day quiet: nothing goes out, whatever happens.
    const allDay = await call('POST', '/api/notify', { cookie, body: { needsYou: false, done: true, failed: true, quiet: { from: '00:00', to: '23:59' } } });
    expect(allDay.body).toEqual({ ok: true, notify: { needsYou: false, done: true, failed: true, quiet: { from: '00:00', to: '23:59' } } });
    const pane = await readingPane();
    const since = () => new Date().toISOString();
    svc.app.panes.patch(pane.id, { agent: { status: 'working', since: since() } });
    svc.app.panes.patch(pane.id, { agent: { status: 'done', since: since(), detail: 'Wrote the tests' } });
    // Quiet hours over; cards still off: a question is not pushed, an agent done is.
    expect((await call('POST', '/api/notify', { cookie, body: { quiet: null } })).body).toMatchObject({ ok: true });
    svc.app.surfaces.ingest(pane.id, { td: '0.4', kind: 'question', id: 'q', title: 'Which?', model: { question: 'Which one?' } }, 'file');
    svc.app.panes.patch(pane.id, { agent: { status: 'working', since: since() } });
    svc.app.panes.patch(pane.id, { agent: { status: 'done', since: since(), detail: 'Fixed the login' } });
    const first = await waitFor(() => endpoint.got[0], 'the note that the agent is done');
    expect(JSON.parse(decrypt(first.body, ua, auth))).toEqual({ t: 'note', tag: first.headers.topic, title: 'bash is done', body: 'Fixed the login', kind: 'done' });
    expect(endpoint.got).toHaveLength(1);
    // A command that fails in a shell (its shell integration marks say so): a note too.
    const sh = svc.app.panes.create({ cwd: state.dir });
    await waitFor(() => /\$ $/m.test(svc.app.panes.screenText(sh.id)), 'the login shell\'s prompt', 20_000);
    svc.app.panes.write(sh.id, 'false\r');
    const second = await waitFor(() => endpoint.got[1], 'the note that a command failed', 20_000);
    expect(JSON.parse(decrypt(second.body, ua, auth))).toMatchObject({ t: 'note', title: 'A command failed (exit 1)', kind: 'failed' });
    expect(second.headers.topic).not.toBe(first.headers.topic);
  });
});

describe('push, pure', () => {
  it('reads notification settings and quiet hours', () => {
    expect(checkNotify({ done: true }, DEFAULT_NOTIFY)).toEqual({ ...DEFAULT_NOTIFY, done: true });
    expect(checkNotify({ done: 'yes' }, DEFAULT_NOTIFY)).toBe('done must be true or false');
    expect(checkNotify({ quiet: { from: '22:00', to: '22:00' } }, DEFAULT_NOTIFY)).toContain('quiet hours are');
    const at = (h: number, m: number) => new Date(2026, 0, 1, h, m);
    const night = { from: '22:00', to: '07:00' };
    expect([at(21, 59), at(22, 0), at(3, 0), at(6, 59), at(7, 0)].map((d) => inQuiet(d, night))).toEqual([false, true, true, true, false]);
    const lunch = { from: '12:00', to: '13:30' };
    expect([at(11, 59), at(12, 0), at(13, 29), at(13, 30)].map((d) => inQuiet(d, lunch))).toEqual([false, true, true, false]);
    expect(inQuiet(at(3, 0), null)).toBe(false);
  });

  it('checks a subscription and makes an opaque Topic', () => {
    const p256dh = Buffer.alloc(65, 4).toString('base64url');
    const auth = Buffer.alloc(16, 1).toString('base64url');
    expect(checkSubscription({ endpoint: 'https://push.example/x', keys: { p256dh, auth } })).toEqual({ endpoint: 'https://push.example/x', keys: { p256dh, auth } });
    expect(checkSubscription({ endpoint: 'https://push.example/x', keys: { p256dh: 'abc', auth } })).toContain('malformed');
    expect(checkSubscription({ keys: { p256dh, auth } })).toContain('no endpoint');
    const s = Buffer.alloc(16, 9);
    expect(topicOf(s, 'p1', 'card')).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(topicOf(s, 'p1', 'card')).not.toBe(topicOf(s, 'p1', 'card2'));
    expect(topicOf(Buffer.alloc(16, 8), 'p1', 'card')).not.toBe(topicOf(s, 'p1', 'card'));
  });
});
