/**
 * The browser's door: the renderer over HTTP and the contract over one WebSocket per
 * window, on loopback only, behind a random token (in the URL once, then an HttpOnly
 * SameSite=Strict cookie), with the Host header and the socket's Origin checked.
 *
 * Each window's WebSocket reaches the core one of three ways: straight into the core of the
 * process it runs in (the per-user service's own door, what `terminal-delight serve` opens:
 * main/service/door.ts; and tests, and the benchmark's in-process baseline); or through a
 * `relay` its caller made (serve's relay to a service elsewhere: main/serve/server.ts).
 */
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { App } from '../app.ts';
import { appRoot } from '../panes/env.ts';
import { takeHeldConnections } from './handover.ts';
import { coreBackend, type Backend } from './backend.ts';
import { mimeType, RendererFiles } from './files.ts';
import { askOf, firstPaintWithin, THEME_HINT_HEADERS, withAnswer } from './first-paint.ts';
import { withScriptsLater } from '../../common/first-paint.ts';
import { cookieToken, hostAllowed, inlineScriptHashes, loopbackBindAddress, newToken, originAllowed, rendererCsp, serveUrl, setCookie, tokensEqual, withScriptHashes } from './security.ts';

// node:http as its CommonJS module: imported as ESM, Node builds a facade reading every export,
// which loads undici for node:http's lazy WebSocket getters (~50 ms of a start on Node 24).
const http = process.getBuiltinModule('node:http');

export interface DoorServerOptions {
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
  /**
   * Serve the core this promise gives, once it does (not disposed by close()): the service's
   * own door (main/service/door.ts), listening while its core still loads. Windows that
   * connect before wait, their frames kept in order.
   */
  core?: Promise<App>;
  /**
   * Carry every window to a core elsewhere instead of running one in this process: `ready`
   * gives the backend, `reachable` resolves once the URL may go out (serve's relay).
   */
  relay?: { ready: Promise<Backend>; reachable: Promise<void> };
  /** Fixed token (tests); random otherwise. */
  token?: string;
  /**
   * A socket already listening on `host`:`port`, handed over by the serve that started this
   * service (main/door/handover.ts): listened on instead of binding the port, and the
   * connections it accepted meanwhile are taken first, in order.
   */
  listener?: net.Server;
}

export interface Served {
  url: string;
  port: number;
  token: string;
  /** The core, when it runs in this process (undefined with `service`). */
  app: App;
  /**
   * Resolves once the service answers; rejects, with the sentence saying why, when it cannot
   * be reached after all (the URL may be out by then: serve then stops, see main.ts).
   */
  service: Promise<void>;
  close(): Promise<void>;
}

/** Largest frame a window may send (pastes included). */
const MAX_FRAME = 16 * 1024 * 1024;

export async function startDoorServer(opts: DoorServerOptions = {}): Promise<Served> {
  const bind = loopbackBindAddress(opts.host ?? '127.0.0.1');
  if (!bind) throw new Error(`host "${opts.host}" is not a loopback address: serve listens only on 127.0.0.1, ::1 or localhost`);
  const port = opts.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port ${String(opts.port)} is not usable: give a whole number from 0 to 65535 (0 picks a free one)`);
  const token = opts.token ?? newToken();
  const rendererDir = path.resolve(opts.rendererDir ?? path.join(appRoot, 'out', 'renderer'));
  const relayTo = opts.relay;
  const ownApp = !opts.app && !opts.core && !relayTo;
  // The core is loaded only to run it here: a relay starts without it (most of its startup).
  const app = opts.app ?? (relayTo || opts.core ? undefined : await (await import('../app.ts')).createApp({ shell: 'serve', env: opts.env, cwd: opts.cwd, fresh: opts.fresh }));
  // The service is reached (and started, when none runs) while this process sets up and
  // listens: its start overlaps serve's own. The URL is out once serve listens and the
  // service answers or is starting (holds its lock, its core loading): the page loads
  // meanwhile, and its socket waits here for the service.
  const backendReady: Promise<Backend> = relayTo
    ? relayTo.ready
    : opts.core
      ? opts.core.then(coreBackend)
      : Promise.resolve(coreBackend(app!));
  backendReady.catch(() => undefined);
  // The service's door listens at once: its core is on its way in the same process.
  const reachable = relayTo ? relayTo.reachable : opts.core ? Promise.resolve() : backendReady;
  let backend: Backend | undefined;
  void backendReady.then((b) => (backend = b), () => undefined);
  let actualPort = 0;

  const authorised = (req: IncomingMessage, url: URL): boolean =>
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
      res.writeHead(302, { Location: location, 'Set-Cookie': setCookie(token), 'Cache-Control': 'no-store', ...THEME_HINT_HEADERS });
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
      if (rest !== undefined && !rest.includes('\0')) {
        backendReady.then((b) => b.resolveFile(m[1], rest)).then(
          (file) => {
            if (file) sendFile(res, req, file.path, { ...headers, 'Content-Type': file.type ?? mimeType(file.path), 'Content-Security-Policy': file.csp ?? rendererCsp(actualPort), 'Cache-Control': 'no-store' });
            else sendStatic(url.pathname);
          },
          () => deny(503, 'Terminal Delight\'s service cannot be reached right now: reload in a moment.'),
        );
        return;
      }
    }
    sendStatic(url.pathname);

    function sendStatic(pathname: string): void {
      sendRenderer(res, req, url, pathname, headers, deny);
    }
  });

  /** The renderer's own files (out/renderer): hashed assets from memory, cached by the browser for good. */
  const rendererFiles = new RendererFiles(rendererDir);
  const sendRenderer = (res: ServerResponse, req: IncomingMessage, url: URL, pathname: string, headers: Record<string, string>, deny: (code: number, text: string) => void): void => {
    void rendererFiles.get(pathname).then(async (file) => {
      if (!file) {
        if (pathname === '/') return deny(503, 'The renderer is not built yet: run `npm run build`, then reload.');
        return deny(404, 'Not found.');
      }
      const html = file.type.startsWith('text/html');
      // The window's page: its theme and first paint, drawn by the core (here, or the service a
      // relay reaches: not waited for long; without it the page draws as it always did).
      const index = html && (pathname === '/' || pathname === '/index.html');
      const asked = index ? backend?.firstPaint(askOf(url, req)) : undefined;
      const built = index ? file.body.toString('utf8') : undefined;
      // Its scripts started by its early script once its socket has opened (common/first-paint.ts withScriptsLater).
      const body = built !== undefined ? Buffer.from(withScriptsLater(withAnswer(built, asked && (await firstPaintWithin(asked))))) : file.body;
      res.writeHead(200, {
        ...headers,
        ...(html ? THEME_HINT_HEADERS : {}),
        'Content-Type': file.type,
        // The page's inline early script (vite.config.ts), hashed from the built file, not the page as sent.
        'Content-Security-Policy': withScriptHashes(rendererCsp(actualPort), built !== undefined ? inlineScriptHashes(built) : []),
        // A hashed name is its content: a second window, or a reload, takes it from the browser's cache without
        // asking. private: it was sent behind the token, for this browser only (no shared cache may keep it).
        'Cache-Control': file.immutable ? 'private, max-age=31536000, immutable' : html ? 'no-store' : 'no-cache',
        'Content-Length': String(body.length),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  };

  // ───────────── the WebSocket ─────────────
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME });
  const sockets = new Set<WebSocket>();

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
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

  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', () => ws.terminate());
    // `?output=binary`: pane output as binary frames (the renderer asks for them), else as JSON events.
    const binary = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams.get('output') === 'binary';
    if (backend) return backend.window(ws, { binary });
    // The service is still starting: the window's frames wait with it, in order.
    const early: Array<[Buffer, boolean]> = [];
    const hold = (raw: Buffer, isBinary: boolean): void => void early.push([raw, isBinary]);
    ws.on('message', hold);
    backendReady.then(
      (b) => {
        ws.off('message', hold);
        if (ws.readyState !== ws.OPEN) return;
        b.window(ws, { binary });
        for (const [raw, isBinary] of early) ws.emit('message', raw, isBinary);
      },
      (err: Error) => ws.close(1011, err.message.slice(0, 120)),
    );
  });

  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    const listened = (): void => {
      server.off('error', reject);
      resolve();
    };
    const handed = opts.listener;
    if (!handed) return void server.listen(port, bind, listened);
    const at = handed.address();
    if (!at || typeof at === 'string' || at.address !== bind || (port !== 0 && at.port !== port)) {
      handed.close();
      return reject(new Error(`the socket handed over listens on ${typeof at === 'object' && at ? `${at.address}:${at.port}` : 'nothing'}, not ${bind}:${port}`));
    }
    server.listen(handed, listened);
    // What it accepted before this door was ready comes in first, in order (nothing else can come before this turn ends).
    for (const socket of takeHeldConnections(handed)) server.emit('connection', socket);
  });
  const [listened, reached] = await Promise.allSettled([listening, reachable]);
  if (listened.status === 'rejected' || reached.status === 'rejected') {
    void backendReady.then((b) => b.close(), () => undefined);
    if (listened.status === 'fulfilled') await new Promise<void>((resolve) => server.close(() => resolve()));
    if (ownApp) await app!.dispose();
    if (reached.status === 'rejected') throw reached.reason;
    const err = (listened as PromiseRejectedResult).reason as NodeJS.ErrnoException;
    throw new Error(err.code === 'EADDRINUSE' ? `port ${port} is in use: pick another with --port, or 0 for a free one` : `serve could not listen on ${bind}:${port}: ${err.message}`);
  }
  actualPort = (server.address() as AddressInfo).port;
  const url = serveUrl(bind, actualPort, token);

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      for (const ws of sockets) ws.close(1001, 'serve is shutting down');
      sockets.clear();
      void backendReady.then((b) => b.close(), () => undefined);
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownApp) await app!.dispose();
    })();
    return closing;
  };

  return { url, port: actualPort, token, app: app as App, service: backendReady.then(() => undefined), close };
}

function sendFile(res: ServerResponse, req: IncomingMessage, file: string, headers: Record<string, string>): void {
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
