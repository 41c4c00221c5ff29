/**
 * The device door (docs/design/remote.md, "A phone: the device door"): HTTPS only, on the
 * one address the person picked, knowing paired devices, never the window's token. It
 * serves the phone's page (renderer/phone.html, built into out/renderer), pairing (`POST /api/pair`), the device
 * contract (`GET /api/inbox`, `GET /api/agents`, `POST /api/act`) and one WebSocket per
 * device (`/ws`) on which the inbox and the agents list are pushed as they change.
 *
 * Every request: the Host header must name this door (its address or a name its
 * certificate is for) on its port. Every POST and WebSocket: an Origin of this very door
 * (a page elsewhere cannot post here: CSRF), and a POST's body JSON. Every request but
 * the page and pairing: the device's credential in its cookie (HttpOnly, Secure,
 * SameSite=Strict, `__Host-`).
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { appRoot } from '../panes/env.ts';
import { cookieValue } from '../../common/cookies.ts';
import type { CertPair } from './cert.ts';
import type { AgentRow, InboxCard } from './inbox.ts';
import { credentialHash, type DeviceRecord, type NotifySettings } from './store.ts';

export const DEVICE_COOKIE = '__Host-td_device';
const MAX_BODY = 64 * 1024;
const PING_MS = 30_000;
/** WebSocket close code a revoked device's sockets get. */
export const REVOKED_CODE = 4401;

export interface DeviceApi {
  /** The device whose credential's hash this is, if paired. */
  device(hash: string): DeviceRecord | undefined;
  /** Why this hash is refused, when it belonged to a device revoked since the service started. */
  revoked(hash: string): boolean;
  seen(hash: string): void;
  /** A device's socket opened or closed. */
  sockets?(): void;
  /** An agent pane's screen (the agents' terminal): as text, and as a snapshot for the phone's xterm; undefined when the pane is not an agent's, or why it cannot be read (a far machine's) in one sentence. */
  screen(paneId: string): Promise<DeviceScreen | { error: string } | undefined>;
  pair(body: { secret?: unknown; code?: unknown; name?: unknown }): { ok: true; device: DeviceRecord; credential: string } | { ok: false; error: string };
  inbox(): InboxCard[];
  agents(): AgentRow[];
  act(device: DeviceRecord, body: Record<string, unknown>): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Web Push (push.ts): the VAPID public key, a subscription, a notification's action with its token. */
  pushKey(): Promise<string>;
  subscribe(device: DeviceRecord, body: Record<string, unknown>): Promise<{ ok: true } | { ok: false; error: string }>;
  pushAct(device: DeviceRecord, body: Record<string, unknown>): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Text or a key of the bar into an agent's terminal, for a device allowed to type. */
  type(device: DeviceRecord, body: Record<string, unknown>): Promise<{ ok: true } | { ok: false; error: string }>;
  /** The device's own notification settings: read, or changed. */
  notify(device: DeviceRecord, body?: Record<string, unknown>): { ok: true; notify: NotifySettings } | { ok: false; error: string };
}

/** A watched agent's screen: its text, and its snapshot (escape sequences: colours, with some history) and size. */
export interface DeviceScreen {
  text: string;
  data: string;
  cols: number;
  rows: number;
}

export interface DeviceDoor {
  url: string;
  port: number;
  /** Send one JSON message to every device's socket. */
  broadcast(msg: unknown): void;
  /** Close every socket of this device at once (revoked). */
  closeDevice(hash: string, reason: string): void;
  /** Sockets open per device hash. */
  connected(hash: string): number;
  /** Whether any socket watches this pane's screen. */
  watched(paneId: string): boolean;
  /** A watched pane's screen changed: send it to the sockets watching it. */
  screenChanged(paneId: string): Promise<void>;
  close(): Promise<void>;
}

export function hostPart(address: string): string {
  return net.isIPv6(address) ? `[${address}]` : address;
}

export function cookieCredential(header: string | undefined): string | undefined {
  return cookieValue(header, DEVICE_COOKIE);
}

export function deviceCookie(credential: string): string {
  return `${DEVICE_COOKIE}=${credential}; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=31536000`;
}

export function deviceCsp(): string {
  return [
    "default-src 'self'", "script-src 'self'",
    // xterm (the agents' terminal) writes its theme's and its size's rules into <style> elements, as in the window (main/door/security.ts).
    "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "connect-src 'self'",
    "manifest-src 'self'", "worker-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
  ].join('; ');
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.webmanifest': 'application/manifest+json', '.woff2': 'font/woff2',
};

export async function startDeviceDoor(opts: { address: string; port: number; cert: CertPair; api: DeviceApi; rendererDir?: string }): Promise<DeviceDoor> {
  const { api } = opts;
  const rendererDir = opts.rendererDir ?? path.join(appRoot, 'out', 'renderer');
  let port = opts.port;
  const hosts = (): string[] => [opts.address, ...opts.cert.names].map((h) => `${hostPart(h)}:${port}`.toLowerCase());
  const hostOk = (host: string | undefined): boolean => typeof host === 'string' && hosts().includes(host.toLowerCase());
  const originOk = (origin: string | undefined, host: string | undefined): boolean => !!origin && hostOk(host) && origin.toLowerCase() === `https://${host!.toLowerCase()}`;
  const who = (req: IncomingMessage): { hash: string; device?: DeviceRecord } | undefined => {
    const c = cookieCredential(req.headers.cookie);
    if (!c) return undefined;
    const hash = credentialHash(c);
    return { hash, device: api.device(hash) };
  };
  const base = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer', 'Strict-Transport-Security': 'max-age=31536000', 'Content-Security-Policy': deviceCsp() };

  const json = (res: ServerResponse, code: number, body: unknown, extra: Record<string, string> = {}): void => {
    const text = JSON.stringify(body);
    res.writeHead(code, { ...base, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': String(Buffer.byteLength(text)), ...extra });
    res.end(text);
  };
  const refuse = (res: ServerResponse, code: number, error: string): void => json(res, code, { ok: false, error });

  const readBody = (req: IncomingMessage): Promise<Record<string, unknown> | string> => new Promise((resolve) => {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
      req.resume();
      return resolve('send the body as JSON (Content-Type: application/json)');
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on('end', () => {
      if (size > MAX_BODY) return resolve('the body is too large (at most 64 KiB)');
      try {
        const v = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        resolve(v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : 'the body must be a JSON object');
      } catch {
        resolve('the body is not JSON');
      }
    });
    req.on('error', () => resolve('the body could not be read'));
  });

  const server = https.createServer({ cert: opts.cert.cert, key: opts.cert.key, minVersion: 'TLSv1.2' }, (req, res) => {
    void handle(req, res).catch((e: Error) => {
      if (!res.headersSent) refuse(res, 500, `the door failed: ${e.message}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!hostOk(req.headers.host)) return refuse(res, 403, 'this door answers only to its own address and port');
    const url = new URL(req.url ?? '/', `https://${req.headers.host}`);
    const p = url.pathname;
    if (req.method === 'POST') {
      if (!originOk(req.headers.origin, req.headers.host)) return refuse(res, 403, 'a request from another page is refused (Origin)');
      const body = await readBody(req);
      if (typeof body === 'string') return refuse(res, 400, body);
      if (p === '/api/pair') {
        const r = api.pair(body);
        if (!r.ok) return refuse(res, 403, r.error);
        return json(res, 200, { ok: true, name: r.device.name }, { 'Set-Cookie': deviceCookie(r.credential) });
      }
      const w = who(req);
      if (!w?.device) return refuse(res, 401, w && api.revoked(w.hash) ? 'this device was revoked: pair it again' : 'this device is not paired: pair it with the code the desktop shows');
      api.seen(w.hash);
      if (p === '/api/act') return json(res, 200, await api.act(w.device, body));
      if (p === '/api/push/subscribe') return json(res, 200, await api.subscribe(w.device, body));
      if (p === '/api/push/act') return json(res, 200, await api.pushAct(w.device, body));
      if (p === '/api/notify') return json(res, 200, api.notify(w.device, body));
      if (p === '/api/type') return json(res, 200, await api.type(w.device, body));
      return refuse(res, 404, 'no such request');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'the door answers GET, HEAD and POST only');
    if (p.startsWith('/api/')) {
      const w = who(req);
      if (!w?.device) return refuse(res, 401, w && api.revoked(w.hash) ? 'this device was revoked: pair it again' : 'this device is not paired: pair it with the code the desktop shows');
      api.seen(w.hash);
      if (p === '/api/me') return json(res, 200, { name: w.device.name, pairedAt: w.device.pairedAt, canType: w.device.canType });
      if (p === '/api/inbox') return json(res, 200, api.inbox());
      if (p === '/api/agents') return json(res, 200, api.agents());
      if (p === '/api/push/key') return json(res, 200, { publicKey: await api.pushKey() });
      if (p === '/api/notify') return json(res, 200, api.notify(w.device));
      return refuse(res, 404, 'no such request');
    }
    // The page (no data in it: everything comes through /api and /ws, behind the credential).
    const file = pageFile(p);
    if (!file) return refuse(res, 404, 'not found');
    let body: Buffer;
    try {
      body = fs.readFileSync(file.path);
    } catch {
      return p === '/' || p === '/pair' ? refuse(res, 503, 'the phone\'s page is not built yet: run npm run build on the desktop, then reload') : refuse(res, 404, 'not found');
    }
    const type = TYPES[path.extname(file.path)] ?? 'application/octet-stream';
    res.writeHead(200, { ...base, 'Content-Type': type, 'Cache-Control': file.immutable ? 'private, max-age=31536000, immutable' : 'no-cache', 'Content-Length': String(body.length) });
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  /** The page's files: the phone's page of the built renderer, its hashed assets, the manifest, the service worker and the icons. */
  function pageFile(p: string): { path: string; immutable?: boolean } | undefined {
    if (p === '/' || p === '/pair') return { path: path.join(rendererDir, 'phone.html') };
    if (p === '/manifest.webmanifest' || p === '/sw.js') return { path: path.join(rendererDir, p.slice(1)) };
    if (p === '/icon.svg' || p === '/icon-256.png' || p === '/icon-512.png') return { path: path.join(appRoot, 'assets', 'icons', p.slice(1)) };
    const m = /^\/assets\/([A-Za-z0-9_-]+\.(?:js|css|svg|png|woff2))$/.exec(p);
    return m ? { path: path.join(rendererDir, 'assets', m[1]!), immutable: true } : undefined;
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY });
  const sockets = new Map<string, Set<WebSocket>>();
  /** The pane whose screen each socket watches. */
  const watching = new Map<WebSocket, string>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const deny = (code: number, why: string): void => {
      socket.write(`HTTP/1.1 ${code} ${code === 401 ? 'Unauthorized' : 'Forbidden'}\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why}\n`);
      socket.destroy();
    };
    if (new URL(req.url ?? '/', 'https://x').pathname !== '/ws') return deny(403, 'The WebSocket lives at /ws.');
    if (!hostOk(req.headers.host)) return deny(403, 'Foreign Host header.');
    if (!originOk(req.headers.origin, req.headers.host)) return deny(403, 'Foreign Origin.');
    const w = who(req);
    if (!w?.device) return deny(401, w && api.revoked(w.hash) ? 'This device was revoked: pair it again.' : 'This device is not paired.');
    const hash = w.hash;
    api.seen(hash);
    wss.handleUpgrade(req, socket, head, (ws) => {
      let set = sockets.get(hash);
      if (!set) sockets.set(hash, (set = new Set()));
      set.add(ws);
      ws.on('close', () => {
        set.delete(ws);
        watching.delete(ws);
        if (set.size === 0 && sockets.get(hash) === set) sockets.delete(hash);
        api.sockets?.();
      });
      api.sockets?.();
      ws.on('error', () => ws.terminate());
      // A phone that went away without a word (out of range, asleep) is let go: pinged every 30 s, gone if silent.
      let alive = true;
      ws.on('pong', () => {
        alive = true;
      });
      const ping = setInterval(() => {
        if (!alive) return ws.terminate();
        alive = false;
        ws.ping();
      }, PING_MS);
      ping.unref();
      ws.on('close', () => clearInterval(ping));
      // The device sends one thing on it: which agent's screen it watches (`{"t":"watch","paneId":…|null}`); anything else is dropped.
      ws.on('message', (raw, isBinary) => {
        api.seen(hash);
        if (isBinary) return;
        let m: { t?: unknown; paneId?: unknown };
        try {
          m = JSON.parse(raw.toString()) as typeof m;
        } catch {
          return;
        }
        if (m?.t !== 'watch') return;
        watching.delete(ws);
        if (typeof m.paneId !== 'string') return;
        const paneId = m.paneId;
        watching.set(ws, paneId);
        void api.screen(paneId).catch(() => undefined).then((shot) => {
          if (watching.get(ws) !== paneId || ws.readyState !== ws.OPEN) return;
          if (!shot || 'error' in shot) {
            watching.delete(ws);
            return void ws.send(JSON.stringify({ t: 'screen', paneId, error: shot?.error ?? 'this pane is not an agent\'s, or has closed' }));
          }
          ws.send(JSON.stringify({ t: 'screen', paneId, ...shot }));
        });
      });
      ws.send(JSON.stringify({ t: 'hello', name: w.device!.name }));
      ws.send(JSON.stringify({ t: 'inbox', cards: api.inbox() }));
      ws.send(JSON.stringify({ t: 'agents', agents: api.agents() }));
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.address, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(err.code === 'EADDRINUSE' ? `port ${opts.port} on ${opts.address} is in use: pick another port`
      : err.code === 'EADDRNOTAVAIL' ? `${opts.address} is not an address of this machine: pick one of its addresses (ip addr shows them)`
        : `the device door could not listen on ${hostPart(opts.address)}:${opts.port}: ${err.message}`);
  });
  port = (server.address() as AddressInfo).port;

  return {
    url: `https://${hostPart(opts.address)}:${port}/`,
    port,
    broadcast(msg) {
      const text = JSON.stringify(msg);
      for (const set of sockets.values()) for (const ws of set) if (ws.readyState === ws.OPEN) ws.send(text);
    },
    closeDevice(hash, reason) {
      for (const ws of sockets.get(hash) ?? []) {
        ws.close(REVOKED_CODE, reason.slice(0, 120));
        // At once: a device that does not answer the close is cut off now, not in 30 s.
        setTimeout(() => ws.terminate(), 200).unref();
      }
    },
    connected: (hash) => sockets.get(hash)?.size ?? 0,
    watched: (paneId) => [...watching.values()].includes(paneId),
    async screenChanged(paneId) {
      if (![...watching.values()].includes(paneId)) return;
      const shot = await api.screen(paneId).catch(() => undefined);
      // (A screen that could not be read this time keeps the last one on the phone.)
      if (!shot || 'error' in shot) return;
      const text = JSON.stringify({ t: 'screen', paneId, ...shot });
      for (const [ws, id] of watching) if (id === paneId && ws.readyState === ws.OPEN) ws.send(text);
    },
    close: async () => {
      for (const set of sockets.values()) for (const ws of set) ws.terminate();
      sockets.clear();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
