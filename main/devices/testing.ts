/**
 * Helpers for tests of the device door: a real service's door turned on at 127.0.0.1 with the
 * certificate the app made (trusted by these requests as a phone that checked its fingerprint
 * would), HTTPS calls with the door's Host and Origin, pairing, a device's socket.
 */
import { createDecipheriv, hkdfSync, type ECDH } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { WebSocket } from 'ws';
import type { DevicesState } from '../../preload/contract.ts';
import type { InboxCard } from '../../common/device-contract.ts';
import type { RunningService } from '../service/service.ts';
import { foregroundGroup } from '../panes/proc.ts';
import { waitFor } from '../panes/testing.ts';

export interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: Record<string, unknown> }

export interface DeviceSocket { ws: WebSocket; got: Array<Record<string, unknown>>; closed: Promise<{ code: number; reason: string }> }

const WINDOW = { id: 'w-devices-testing' };

/** The door of `svc`, turned on (with the person's certificate and key when given, else one the app makes); its calls, pairing and sockets. */
export async function openDoor(svc: RunningService, own: { cert?: string; key?: string } = {}): Promise<{
  state: DevicesState;
  port: number;
  ca: string;
  call(method: string, p: string, opts?: { body?: unknown; cookie?: string; origin?: string | null; host?: string; type?: string }): Promise<Reply>;
  pair(name?: string): Promise<string>;
  socket(cookie: string, origin?: string): Promise<DeviceSocket>;
}> {
  const r = await svc.app.core.request('devices.enable', { address: '127.0.0.1', port: 0, ...own }, WINDOW);
  if (!r.ok) throw new Error(r.error);
  const port = r.state.port!;
  const ca = fs.readFileSync(own.cert ?? path.join(svc.paths.state, 'devices', 'cert.pem'), 'utf8');
  const call = (method: string, p: string, opts: { body?: unknown; cookie?: string; origin?: string | null; host?: string; type?: string } = {}): Promise<Reply> => {
    const host = opts.host ?? `127.0.0.1:${port}`;
    const headers: Record<string, string> = { Host: host };
    if (opts.cookie) headers.Cookie = opts.cookie;
    const origin = opts.origin === undefined ? `https://${host}` : opts.origin;
    if (origin !== null) headers.Origin = origin;
    const data = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (data !== undefined) headers['Content-Type'] = opts.type ?? 'application/json';
    return new Promise((resolve, reject) => {
      const req = https.request({ host: '127.0.0.1', port, path: p, method, headers, ca, agent: false, checkServerIdentity: (_h, cert) => tls.checkServerIdentity('127.0.0.1', cert) }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(text) as Record<string, unknown>;
          } catch {
            body = { text };
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
      });
      req.on('error', reject);
      req.end(data);
    });
  };
  const pair = async (name = 'Ada\'s Pixel'): Promise<string> => {
    const p = await svc.app.core.request('devices.pair', {}, WINDOW);
    if (!p.ok) throw new Error(p.error);
    const res = await call('POST', '/api/pair', { body: { code: p.pairing.code, name } });
    if (res.status !== 200) throw new Error(`pairing refused: ${JSON.stringify(res.body)}`);
    return String(res.headers['set-cookie']).split(';')[0]!;
  };
  const socket = (cookie: string, origin = `https://127.0.0.1:${port}`): Promise<DeviceSocket> => new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}/ws`, { ca, headers: { Cookie: cookie, Origin: origin } });
    const got: Array<Record<string, unknown>> = [];
    const closed = new Promise<{ code: number; reason: string }>((res) => ws.on('close', (code, reason) => res({ code, reason: reason.toString() })));
    ws.on('message', (d) => got.push(JSON.parse(d.toString()) as Record<string, unknown>));
    ws.once('open', () => resolve({ ws, got, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
    ws.once('error', reject);
  });
  return { state: r.state, port, ca, call, pair, socket };
}

/** The last inbox a device's socket got. */
export const lastInbox = (got: Array<Record<string, unknown>>): InboxCard[] | undefined => (got.filter((m) => m.t === 'inbox').at(-1)?.cards as InboxCard[] | undefined);

/** RFC 8291: the aes128gcm body (RFC 8188 header, one record) decrypted with the subscription's private key and auth secret. */
export function decryptPush(body: Buffer, ua: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (rs < ciphertext.length) throw new Error(`one record of ${rs} bytes cannot hold ${ciphertext.length}`);
  const secret = ua.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const d = createDecipheriv('aes-128-gcm', cek, nonce);
  d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const plain = Buffer.concat([d.update(ciphertext.subarray(0, ciphertext.length - 16)), d.final()]);
  // The last record: the content, a 2 delimiter, zero padding.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('the last record does not end with the delimiter 2');
  return plain.subarray(0, end).toString('utf8');
}


export interface PushEndpoint {
  /** Its URL, as a push service gives a subscription. */
  url: string;
  /** What it received, in order, and when (ms since the epoch). */
  got: Array<{ headers: Record<string, string | string[] | undefined>; body: Buffer; at: number }>;
  /** The statuses to answer with next, or a status with headers, and how long to wait before answering (201 at once when none is left). */
  answer: Array<number | { status: number; headers?: Record<string, string>; delayMs?: number }>;
  close(): Promise<void>;
}

/** A local HTTPS endpoint standing for a push service, on loopback, with the certificate given. */
export async function startPushEndpoint(cert: string, key: string): Promise<PushEndpoint> {
  const got: PushEndpoint['got'] = [];
  const answer: PushEndpoint['answer'] = [];
  const server = https.createServer({ cert, key }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
      const a = answer.shift() ?? 201;
      const reply = (): void => {
        if (typeof a === 'number') res.writeHead(a);
        else res.writeHead(a.status, a.headers ?? {});
        res.end();
      };
      if (typeof a !== 'number' && a.delayMs) setTimeout(reply, a.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as { port: number }).port}/push/abc`,
    got,
    answer,
    close: () => new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/** A pane of `svc` where a program (as an agent is) reads the lines typed back: a login shell running `cat > out`. */
export async function catPane(svc: RunningService, dir: string): Promise<{ id: string; out: string; tag: string }> {
  const pane = svc.app.panes.create({ command: ['/bin/bash', '-l'], cwd: dir });
  const out = path.join(dir, `typed-${pane.id}.txt`);
  svc.app.panes.write(pane.id, `cat > ${out}\r`);
  await waitFor(() => {
    const g = foregroundGroup(svc.app.panes.pid(pane.id)!);
    try {
      return g && fs.readFileSync(`/proc/${g}/comm`, 'utf8').trim() === 'cat';
    } catch {
      return false;
    }
  }, 'cat reading in the pane', 20_000);
  return { id: pane.id, out, tag: pane.tag };
}
