/**
 * The device door for real: a real service in its own state folder, the HTTPS door on
 * 127.0.0.1 with the certificate the app made (trusted by these requests as a phone that
 * checked its fingerprint would), pairing, the credential, revoke, and cards answered from
 * the device and from the desktop in a real pane.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DevicesState } from '../../preload/contract.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { startService, type RunningService } from '../service/service.ts';
import { REVOKED_CODE } from './door.ts';
import { catPane, lastInbox, openDoor, type Reply } from './testing.ts';

let state: ReturnType<typeof tempState>;
let svc: RunningService;
let door: DevicesState;
const WINDOW = { id: 'w1' };

beforeEach(async () => {
  state = tempState();
  const r = await startService({ env: state.env, fresh: true, idleMs: 0 });
  if (!r.started) throw new Error('not started');
  svc = r.service;
});
afterEach(async () => {
  await svc.stop('test over');
  state.cleanup();
});

let d: Awaited<ReturnType<typeof openDoor>>;

async function turnOn(own: { cert?: string; key?: string } = {}): Promise<void> {
  d = await openDoor(svc, own);
  door = d.state;
}

const call = (method: string, p: string, opts?: Parameters<typeof d.call>[2]): Promise<Reply> => d.call(method, p, opts);
const pair = (name?: string): Promise<string> => d.pair(name);
const socket = (cookie: string, origin?: string) => d.socket(cookie, origin);

describe('the device door', () => {
  it('is off by default, opens HTTPS only on the address asked for, with the certificate it shows by fingerprint', async () => {
    const off = await svc.app.core.request('devices.state', {}, WINDOW);
    expect(off).toMatchObject({ on: false, devices: [] });
    const all = await svc.app.core.request('devices.enable', { address: '0.0.0.0' }, WINDOW);
    expect(all).toEqual({ ok: false, error: expect.stringContaining('every network') });
    const bad = await svc.app.core.request('devices.enable', { address: 'my phone' }, WINDOW);
    expect(bad).toEqual({ ok: false, error: expect.stringContaining('is not an IP address') });
    await turnOn();
    expect(door).toMatchObject({ on: true, address: '127.0.0.1', certMade: true, url: `https://127.0.0.1:${door.port}/` });
    // What the door presents is the certificate whose fingerprint the person is shown.
    const presented = await new Promise<string>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: door.port!, ca: d.ca }, () => {
        resolve(s.getPeerCertificate().fingerprint256);
        s.end();
      });
      s.on('error', reject);
    });
    expect(presented).toBe(door.fingerprint);
    expect(fs.statSync(path.join(svc.paths.state, 'devices', 'key.pem')).mode & 0o777).toBe(0o600);
    // Every answer carries the page's policy (no framing, no forms elsewhere); plain HTTP gets nothing.
    const me = await call('GET', '/api/me');
    expect(me.status).toBe(401);
    expect(String(me.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(me.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await fetch(`http://127.0.0.1:${door.port}/`).then((r) => r.status, () => 'refused');
    expect(plain).not.toBe(200);
    // A foreign Host header is refused (DNS rebinding).
    expect((await call('GET', '/', { host: `evil.example:${door.port}` })).status).toBe(403);
    // On again at start: the service keeps the door in the state folder.
    expect(JSON.parse(fs.readFileSync(path.join(svc.paths.state, 'devices', 'door.json'), 'utf8'))).toMatchObject({ address: '127.0.0.1', port: door.port });
    const closed = await svc.app.core.request('devices.disable', {}, WINDOW);
    expect(closed.on).toBe(false);
    expect(await fetch(`https://127.0.0.1:${door.port}/`).then(() => 'answered', () => 'refused')).toBe('refused');
  });

  it('takes the person\'s own certificate and key, and says in one sentence when they do not belong together', async () => {
    const { generate } = await import('selfsigned');
    const mk = () => generate([{ name: 'commonName', value: 'phone.example' }], { keyType: 'ec', curve: 'P-256', algorithm: 'sha256', extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'phone.example' }, { type: 7, ip: '127.0.0.1' }] }] });
    const [a, b] = await Promise.all([mk(), mk()]);
    const certFile = path.join(state.dir, 'fullchain.pem');
    const keyFile = path.join(state.dir, 'key.pem');
    const otherKey = path.join(state.dir, 'other-key.pem');
    fs.writeFileSync(certFile, a.cert);
    fs.writeFileSync(keyFile, a.private);
    fs.writeFileSync(otherKey, b.private);
    const wrong = await svc.app.core.request('devices.enable', { address: '127.0.0.1', port: 0, cert: certFile, key: otherKey }, WINDOW);
    expect(wrong).toEqual({ ok: false, error: `the key ${otherKey} does not belong to the certificate ${certFile} (or is not a PEM private key): give the key the certificate was made for` });
    const swapped = await svc.app.core.request('devices.enable', { address: '127.0.0.1', port: 0, cert: keyFile, key: certFile }, WINDOW);
    expect(swapped).toEqual({ ok: false, error: `${keyFile} is not a PEM certificate: give the certificate (for example fullchain.pem), not the key` });
    expect((await svc.app.core.request('devices.state', {}, WINDOW)).on).toBe(false);
    await turnOn({ cert: certFile, key: keyFile });
    expect(door).toMatchObject({ on: true, certMade: false, fingerprint: new X509Certificate(a.cert).fingerprint256 });
    // Its DNS name is a Host the door answers to, as the address is.
    expect((await call('GET', '/api/me', { host: `phone.example:${door.port}` })).status).toBe(401);
    expect((await call('GET', '/api/me', { host: `other.example:${door.port}` })).status).toBe(403);
    expect(fs.existsSync(path.join(svc.paths.state, 'devices', 'cert.pem'))).toBe(false);
  });

  it('pairs with the right code once; its credential is kept only hashed, in a Secure HttpOnly SameSite=Strict cookie', async () => {
    await turnOn();
    const r = await svc.app.core.request('devices.pair', {}, WINDOW);
    if (!r.ok) throw new Error(r.error);
    expect(r.pairing.code).toMatch(/^[ACDEFGHJKMNPQRTUVWXY34679]{8}$/);
    expect(r.pairing.url).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${door.port}/pair#[0-9a-f]{32}$`));
    expect(r.pairing.qrSvg).toMatch(/^<svg/);
    expect(r.pairing.fingerprint).toBe(door.fingerprint);
    // Not without the door's own Origin (CSRF), not without JSON.
    expect((await call('POST', '/api/pair', { body: { code: r.pairing.code }, origin: null })).status).toBe(403);
    expect((await call('POST', '/api/pair', { body: { code: r.pairing.code }, origin: 'https://evil.example' })).status).toBe(403);
    expect((await call('POST', '/api/pair', { body: `code=${r.pairing.code}`, type: 'application/x-www-form-urlencoded' })).status).toBe(400);
    const res = await call('POST', '/api/pair', { body: { code: r.pairing.code.toLowerCase().replace(/^(....)/, '$1-'), name: 'Ada\'s Pixel\u001b[31m' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, name: 'Ada\'s Pixel [31m' });
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^__Host-td_device=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Strict; Path=\/; Max-Age=\d+$/);
    const credential = cookie.split(';')[0]!.split('=')[1]!;
    const saved = fs.readFileSync(path.join(svc.paths.state, 'devices', 'devices.json'), 'utf8');
    expect(saved).not.toContain(credential);
    expect(saved).toContain('Ada\'s Pixel');
    // Used once: the same code again is refused.
    const again = await call('POST', '/api/pair', { body: { code: r.pairing.code, name: 'Mallory' } });
    expect(again).toMatchObject({ status: 403, body: { ok: false, error: expect.stringContaining('used already') } });
    const listed = await svc.app.core.request('devices.state', {}, WINDOW);
    expect(listed.devices).toEqual([expect.objectContaining({ name: 'Ada\'s Pixel [31m', pairedAt: expect.any(String) })]);
    expect(listed.pairing).toMatchObject({ open: false, ended: 'paired', paired: 'Ada\'s Pixel [31m' });
    // The credential works; none, a wrong one, or the window's own token does not.
    const me = await call('GET', '/api/me', { cookie: cookie.split(';')[0]! });
    expect(me).toMatchObject({ status: 200, body: { name: 'Ada\'s Pixel [31m' } });
    expect((await call('GET', '/api/inbox')).status).toBe(401);
    expect((await call('GET', '/api/inbox', { cookie: '__Host-td_device=' + 'x'.repeat(43) })).status).toBe(401);
    const token = fs.readFileSync(svc.paths.serviceToken, 'utf8').trim();
    expect((await call('GET', '/api/inbox', { cookie: `td_token=${token}` })).status).toBe(401);
    // The secret from the QR code's fragment pairs too (a new pairing).
    const r2 = await svc.app.core.request('devices.pair', {}, WINDOW);
    if (!r2.ok) throw new Error(r2.error);
    const bySecret = await call('POST', '/api/pair', { body: { secret: r2.pairing.url.split('#')[1], name: 'Ada\'s Pixel [31m' } });
    expect(bySecret.body).toEqual({ ok: true, name: 'Ada\'s Pixel [31m (2)' });
  });

  it('a pairing ends after 5 wrong codes, and when it expires', async () => {
    await turnOn();
    const r = await svc.app.core.request('devices.pair', {}, WINDOW);
    if (!r.ok) throw new Error(r.error);
    const wrong = r.pairing.code === 'AAAAAAAA' ? 'CCCCCCCC' : 'AAAAAAAA';
    for (let i = 1; i <= 4; i++) {
      const res = await call('POST', '/api/pair', { body: { code: wrong } });
      expect(res).toMatchObject({ status: 403, body: { error: `that code is wrong: ${5 - i} ${5 - i === 1 ? 'try' : 'tries'} left; check the code the desktop shows` } });
    }
    expect((await call('POST', '/api/pair', { body: { code: wrong } })).body.error).toContain('ended after 5 wrong tries');
    // The sixth try, with the right code, is refused too.
    expect((await call('POST', '/api/pair', { body: { code: r.pairing.code } })).body.error).toContain('ended after 5 wrong tries');
    expect((await svc.app.core.request('devices.state', {}, WINDOW)).devices).toEqual([]);

    const r2 = await svc.app.core.request('devices.pair', {}, WINDOW);
    if (!r2.ok) throw new Error(r2.error);
    const start = Date.now();
    svc.app.devices.now = () => start + 5 * 60_000 + 1;
    expect((await call('POST', '/api/pair', { body: { code: r2.pairing.code } })).body.error).toContain('expired');
    svc.app.devices.now = Date.now;
    // A pairing ends with the client that opened it (the dialog closed).
    const r3 = await svc.app.core.request('devices.pair', {}, { id: 'w2' });
    if (!r3.ok) throw new Error(r3.error);
    svc.app.core.clientGone({ id: 'w2' });
    expect((await call('POST', '/api/pair', { body: { code: r3.pairing.code } })).body.error).toContain('no pairing is open');
  });

  it('revoke closes the device\'s socket at once, and its credential stops working', async () => {
    await turnOn();
    const cookie = await pair();
    const a = await socket(cookie);
    await waitFor(() => a.got.find((m) => m.t === 'hello'), 'the hello');
    expect(a.got[0]).toEqual({ t: 'hello', name: 'Ada\'s Pixel' });
    // A socket from another page is refused.
    await expect(socket(cookie, 'https://evil.example')).rejects.toThrow('refused: 403');
    expect(await svc.app.core.request('devices.revoke', { name: 'nobody' }, WINDOW)).toEqual({ ok: false, error: expect.stringContaining('no device is named "nobody"') });
    const asked = Date.now();
    expect(await svc.app.core.request('devices.revoke', { name: 'ada\'s pixel' }, WINDOW)).toEqual({ ok: true });
    const closed = await a.closed;
    // Within a second (issue 34): the close is sent at once, and a socket that does not answer it is cut off after 200 ms.
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(closed).toEqual({ code: REVOKED_CODE, reason: 'this device was revoked: pair it again' });
    expect(await call('GET', '/api/me', { cookie })).toMatchObject({ status: 401, body: { error: 'this device was revoked: pair it again' } });
    await expect(socket(cookie)).rejects.toThrow('refused: 401');
    expect((await svc.app.core.request('devices.state', {}, WINDOW)).devices).toEqual([]);
  });

  it('a card answered from the device is the desktop\'s click: the actions.jsonl record and the line typed into the pane; answered on the desktop, it leaves the device', async () => {
    await turnOn();
    const cookie = await pair();
    const dev = await socket(cookie);
    const app = svc.app;
    // A program (as an agent is) reads the lines typed back.
    const { id: paneId, out, tag } = await catPane(svc, state.dir);
    const pane = { id: paneId, tag };
    const decision = { td: '0.4', kind: 'decision', id: 'pick', title: 'Pick one', model: { question: 'A or B?', options: [{ name: 'A' }, { name: 'B', recommended: true }] } };
    expect(app.surfaces.ingest(pane.id, decision, 'file').surface).toBeDefined();
    const question = { td: '0.4', kind: 'question', id: 'ask', title: 'Which port?', model: { question: 'Which port?', options: [{ name: '8080' }, { name: '9090' }] } };
    expect(app.surfaces.ingest(pane.id, question, 'file').surface).toBeDefined();
    const both = await waitFor(() => (lastInbox(dev.got)?.length === 2 ? lastInbox(dev.got) : undefined), 'both cards in the device\'s inbox');
    expect(both.map((c) => c.surfaceId)).toEqual(['ask', 'pick']);
    expect(both[1]).toMatchObject({ kind: 'decision', text: 'A or B?', paneId: pane.id, tag: pane.tag, folder: state.dir, buttons: [{ label: 'A', action: 'choose', target: 'A' }, { label: 'B', action: 'choose', target: 'B' }, { label: 'Reject', action: 'reject' }] });
    expect((await call('GET', '/api/inbox', { cookie })).body).toEqual(both);

    // An answer not among the card's, or to a card not in the inbox, is refused and nothing is typed.
    expect((await call('POST', '/api/act', { cookie, body: { paneId: pane.id, surfaceId: 'pick', action: 'dismiss' } })).body).toMatchObject({ ok: false });
    expect((await call('POST', '/api/act', { cookie, body: { paneId: pane.id, surfaceId: 'nope', action: 'reject' } })).body).toMatchObject({ ok: false, error: expect.stringContaining('no longer waiting') });
    expect((await call('POST', '/api/act', { cookie, origin: null, body: { paneId: pane.id, surfaceId: 'pick', action: 'choose', target: 'B' } })).status).toBe(403);

    const res = await call('POST', '/api/act', { cookie, body: { paneId: pane.id, surfaceId: 'pick', action: 'choose', target: 'B', comment: 'from the phone\u001b[2J\nreally', revision: both[1]!.revision } });
    expect(res.body).toEqual({ ok: true });
    const folder = app.panes.folder(pane.id);
    const records = fs.readFileSync(path.join(folder, 'actions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toEqual([{ td: '0.4', type: 'action', surface: 'pick', action: 'choose', target: 'B', comment: 'from the phone\u001b[2J\nreally', at: expect.any(String) }]);
    const line = `[workbench:${pane.tag}] choose on surface pick · B — from the phone [2J really`;
    await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes(line), 'the line typed into the pane', 20_000);
    await waitFor(() => (lastInbox(dev.got)?.length === 1 ? true : undefined), 'the answered card gone from the device');
    expect(lastInbox(dev.got)!.map((c) => c.surfaceId)).toEqual(['ask']);

    // Answered on the desktop: gone from the device at once, and the device's late answer is refused.
    const desk = await app.core.request('surface.act', { paneId: pane.id, surfaceId: 'ask', action: 'choose', target: '9090' }, WINDOW);
    expect(desk.ok).toBe(true);
    await waitFor(() => (lastInbox(dev.got)?.length === 0 ? true : undefined), 'the desktop\'s answer reaching the device');
    const late = await call('POST', '/api/act', { cookie, body: { paneId: pane.id, surfaceId: 'ask', action: 'choose', target: '8080' } });
    expect(late.body).toMatchObject({ ok: false, error: expect.stringContaining('no longer waiting') });
    await waitFor(() => fs.readFileSync(out, 'utf8').includes(`choose on surface ask · 9090`), 'the desktop\'s line');
    expect(fs.readFileSync(out, 'utf8')).not.toContain('8080');
    dev.ws.close();
  });

  it('types into an agent\'s terminal only once allowed: text without control characters, and the key bar\'s keys', async () => {
    await turnOn();
    const cookie = await pair();
    const app = svc.app;
    const out = path.join(state.dir, 'typed-by-phone.txt');
    // An agent's pane (as the agent list knows it) whose program writes what it reads to a file.
    const pane = app.panes.create({ kind: 'agent', command: ['/usr/bin/env', 'bash', '-c', `exec cat > ${out}`], cwd: state.dir });
    const type = (body: Record<string, unknown>) => call('POST', '/api/type', { cookie, body: { paneId: pane.id, ...body } }).then((r) => r.body);
    expect(await type({ text: 'ls' })).toEqual({ ok: false, error: 'this device may not type: allow it on the desktop (Settings → Phone and other devices); nothing was sent' });
    expect(await svc.app.core.request('devices.allowTyping', { name: 'Ada\'s Pixel', allow: true }, WINDOW)).toEqual({ ok: true });
    expect((await svc.app.core.request('devices.state', {}, WINDOW)).devices[0]).toMatchObject({ canType: true });
    expect((await call('GET', '/api/me', { cookie })).body).toMatchObject({ canType: true });
    expect(await type({ text: 'echo hi\u001b[2J' })).toMatchObject({ ok: false, error: expect.stringContaining('control character') });
    expect(await type({ text: 'two\nlines' })).toMatchObject({ ok: false, error: expect.stringContaining('control character') });
    expect(await type({ key: 'Ctrl-Z' })).toMatchObject({ ok: false, error: expect.stringContaining('is not a key of the bar') });
    expect(await call('POST', '/api/type', { cookie, body: { paneId: 'nope', text: 'x' } }).then((r) => r.body)).toMatchObject({ ok: false, error: expect.stringContaining('not a running agent') });
    expect(await type({ text: 'from the phone' })).toEqual({ ok: true });
    expect(await type({ key: 'Enter' })).toEqual({ ok: true });
    await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8') === 'from the phone\n', 'the typed line in the pane\'s program');
    // Taken away on the desktop: refused at once.
    await svc.app.core.request('devices.allowTyping', { name: 'Ada\'s Pixel', allow: false }, WINDOW);
    expect(await type({ text: 'more' })).toMatchObject({ ok: false, error: expect.stringContaining('may not type') });
    expect(fs.readFileSync(out, 'utf8')).toBe('from the phone\n');
  });
});
