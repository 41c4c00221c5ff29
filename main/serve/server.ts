/**
 * The serve shell: the renderer over HTTP and the contract over one WebSocket per
 * window, on loopback only, behind a random token (in the URL once, then an HttpOnly
 * SameSite=Strict cookie), with the Host header and the socket's Origin checked.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ClientFrame, RequestName, ServerFrame } from '../../preload/contract.ts';
import { createApp, type App } from '../app.ts';
import type { Client } from '../core.ts';
import { appRoot } from '../panes/env.ts';
import { mimeType, resolveStatic } from './files.ts';
import { cookieToken, hostAllowed, loopbackBindAddress, newToken, originAllowed, rendererCsp, setCookie, tokensEqual } from './security.ts';

export interface ServeOptions {
  /** 0 (default): a free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
  fresh?: boolean;
  /** Folder the first pane starts in. */
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** The built renderer (default out/renderer). */
  rendererDir?: string;
  /** Serve this app instead of creating one (it is then not disposed by close()). */
  app?: App;
  /** Fixed token (tests); random otherwise. */
  token?: string;
}

export interface Served {
  url: string;
  port: number;
  token: string;
  app: App;
  close(): Promise<void>;
}

/** Largest frame a window may send (pastes included). */
const MAX_FRAME = 16 * 1024 * 1024;
/** Output queued to one socket beyond this means the window is gone or stuck. */
const MAX_BUFFERED = 64 * 1024 * 1024;

export async function startServe(opts: ServeOptions = {}): Promise<Served> {
  const bind = loopbackBindAddress(opts.host ?? '127.0.0.1');
  if (!bind) throw new Error(`host "${opts.host}" is not a loopback address: serve listens only on 127.0.0.1, ::1 or localhost`);
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port ${String(opts.port)} is not usable: give a whole number from 0 to 65535 (0 picks a free one)`);
  const token = opts.token ?? newToken();
  const rendererDir = path.resolve(opts.rendererDir ?? path.join(appRoot, 'out', 'renderer'));
  const ownApp = !opts.app;
  const app = opts.app ?? (await createApp({ shell: 'serve', env: opts.env, cwd: opts.cwd, fresh: opts.fresh }));
  const { core } = app;
  let actualPort = 0;

  const authorised = (req: http.IncomingMessage, url: URL): boolean =>
    tokensEqual(cookieToken(req.headers.cookie), token) || tokensEqual(url.searchParams.get('token'), token);

  const server = http.createServer((req, res) => {
    const deny = (code: number, text: string): void => {
      res.writeHead(code, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store' });
      res.end(text + '\n');
    };
    if (!hostAllowed(req.headers.host, actualPort)) return deny(403, 'Forbidden: this server answers only to 127.0.0.1, localhost or [::1] on its own port.');
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    } catch {
      return deny(400, 'Bad request: the path could not be read.');
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return deny(405, 'Method not allowed: serve answers GET and HEAD only.');
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null) {
      if (!tokensEqual(queryToken, token)) return deny(403, 'Forbidden: the token is wrong; open the URL serve printed.');
      url.searchParams.delete('token');
      // One leading slash: "/.//evil.example/" must not become a protocol-relative redirect.
      const location = '/' + url.pathname.replace(/^\/+/, '') + (url.search === '?' ? '' : url.search);
      res.writeHead(302, { Location: location, 'Set-Cookie': setCookie(token), 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    if (!authorised(req, url)) return deny(403, 'Forbidden: open the URL serve printed (it carries the token).');

    const headers: Record<string, string> = { 'X-Content-Type-Options': 'nosniff', 'Referrer-Policy': 'no-referrer' };
    // Files other services register (core.serveFiles): /<prefix>/<rest>.
    const m = /^\/([a-z][a-z0-9-]*)\/(.+)$/.exec(url.pathname);
    if (m) {
      let rest: string | undefined;
      try {
        rest = decodeURIComponent(m[2]);
      } catch {
        rest = undefined;
      }
      const file = rest !== undefined && !rest.includes('\0') ? core.resolveFile(m[1], rest) : undefined;
      if (file) return sendFile(res, req, file.path, { ...headers, 'Content-Type': file.type ?? mimeType(file.path), 'Content-Security-Policy': file.csp ?? rendererCsp(actualPort), 'Cache-Control': 'no-store' });
    }
    const file = resolveStatic(rendererDir, url.pathname);
    if (!file) {
      if (url.pathname === '/') return deny(503, 'The renderer is not built yet: run `npm run build`, then reload.');
      return deny(404, 'Not found.');
    }
    const isHtml = file.endsWith('.html');
    return sendFile(res, req, file, {
      ...headers,
      'Content-Type': mimeType(file),
      'Content-Security-Policy': rendererCsp(actualPort),
      'Cache-Control': isHtml ? 'no-store' : 'no-cache',
    });
  });

  // ───────────── the WebSocket ─────────────
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const sockets = new Map<WebSocket, Client>();
  let nextClient = 1;

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const refuse = (why: string): void => {
      socket.write(`HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n${why}\n`);
      socket.destroy();
    };
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://127.0.0.1');
    } catch {
      return refuse('Bad path.');
    }
    if (url.pathname !== '/ws') return refuse('The WebSocket lives at /ws.');
    if (!hostAllowed(req.headers.host, actualPort)) return refuse('Foreign Host header.');
    if (!originAllowed(req.headers.origin, req.headers.host, actualPort)) return refuse('Foreign Origin.');
    if (!authorised(req, url)) return refuse('No token.');
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  wss.on('connection', (ws: WebSocket) => {
    const client: Client = { id: `ws-${nextClient++}` };
    sockets.set(ws, client);
    ws.on('message', (raw, isBinary) => {
      if (isBinary) return send(ws, { t: 'res', id: -1, ok: false, error: 'frames must be JSON text, not binary' });
      void handleFrame(ws, client, raw.toString());
    });
    ws.on('close', () => {
      sockets.delete(ws);
      core.clientGone(client);
    });
    ws.on('error', () => ws.terminate());
  });

  const handleFrame = async (ws: WebSocket, client: Client, text: string): Promise<void> => {
    let frame: ClientFrame;
    try {
      frame = JSON.parse(text) as ClientFrame;
    } catch {
      return send(ws, { t: 'res', id: -1, ok: false, error: 'the frame is not JSON: send {"t":"req","id":N,"name":"...","req":{...}}' });
    }
    // A frame id is a safe integer (1e400 parses as Infinity, which JSON would send back as null).
    const id = frame && typeof frame === 'object' && Number.isSafeInteger(frame.id) ? frame.id : -1;
    if (!frame || frame.t !== 'req' || id < 0 || typeof frame.name !== 'string') {
      return send(ws, { t: 'res', id, ok: false, error: 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}}' });
    }
    try {
      const res = await core.request(frame.name as RequestName, frame.req as never, client);
      send(ws, { t: 'res', id, ok: true, res: res ?? null });
    } catch (err) {
      send(ws, { t: 'res', id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  };

  const offEvents = core.onEvent((name, payload) => {
    if (sockets.size === 0) return;
    const text = JSON.stringify({ t: 'evt', name, payload } satisfies ServerFrame);
    for (const ws of sockets.keys()) {
      if (ws.readyState !== ws.OPEN) continue;
      // A window that stopped reading its socket altogether is let go, not buffered for without end.
      if (ws.bufferedAmount > MAX_BUFFERED) {
        ws.close(1008, 'this window stopped reading: reload it');
        ws.terminate();
        continue;
      }
      ws.send(text);
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bind, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (err: NodeJS.ErrnoException) => {
    if (ownApp) await app.dispose();
    throw new Error(err.code === 'EADDRINUSE' ? `port ${port} is in use: pick another with --port, or 0 for a free one` : `serve could not listen on ${bind}:${port}: ${err.message}`);
  });
  actualPort = (server.address() as AddressInfo).port;
  const hostInUrl = bind === '::1' ? '[::1]' : '127.0.0.1';
  const url = `http://${hostInUrl}:${actualPort}/?token=${token}`;

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      offEvents();
      for (const [ws, client] of sockets) {
        ws.close(1001, 'serve is shutting down');
        core.clientGone(client);
      }
      sockets.clear();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownApp) await app.dispose();
    })();
    return closing;
  };

  return { url, port: actualPort, token, app, close };
}

function send(ws: WebSocket, frame: ServerFrame): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
}

function sendFile(res: http.ServerResponse, req: http.IncomingMessage, file: string, headers: Record<string, string>): void {
  fs.stat(file, (err, st) => {
    if (err || !st.isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('Not found.\n');
      return;
    }
    try {
      res.writeHead(200, { ...headers, 'Content-Length': String(st.size) });
    } catch {
      // a header value a service let through is not sendable: refuse this file, keep serving
      res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
      res.end('This file cannot be served: its media type is not a valid header value.\n');
      return;
    }
    if (req.method === 'HEAD') return res.end();
    const stream = fs.createReadStream(file);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  });
}
