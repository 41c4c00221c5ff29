/** Test helpers for serve's HTTP side. */
import http from 'node:http';
import type { WebSocket } from 'ws';
import type { ServerFrame } from '../../preload/contract.ts';
import { statePaths } from '../paths.ts';
import { readLock } from '../service/lock.ts';

/** The pid in the service's lock under `env`'s state folder, if one is written. */
export function lockedServicePid(env: NodeJS.ProcessEnv): number | undefined {
  const rec = readLock(statePaths(env).serviceLock);
  return rec && rec !== 'empty' ? rec.pid : undefined;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw HTTP GET (or HEAD) with full control of Host and Cookie (fetch would not let us set Host). */
export function get(port: number, pathName: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathName, method, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A window's requests over its WebSocket. */
export interface TestWindow {
  /** A request by id; answered by its `res` frame (or, when the socket closes first, one saying so). */
  request(name: string, req?: unknown): Promise<ServerFrame>;
  /** The events it got, in order. */
  events: Array<{ name: string; payload: unknown }>;
  /** Send a raw frame; the next frame that answers no request. */
  raw(text: string): Promise<ServerFrame>;
  /** Whether its socket has closed. */
  readonly closed: boolean;
}

/** A tiny window over `ws`: requests by id, events collected, the core's pings answered (as the renderer does). */
export function windowOver(ws: WebSocket): TestWindow {
  const events: Array<{ name: string; payload: unknown }> = [];
  const waiting = new Map<number, (f: ServerFrame) => void>();
  let next = 1;
  let closed = false;
  let loose: ((f: ServerFrame) => void) | undefined;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const f = JSON.parse(String(data)) as ServerFrame | { t: 'ping' };
    if (f.t === 'ping') return void ws.send('{"t":"pong"}');
    if (f.t === 'evt') events.push({ name: f.name, payload: f.payload });
    else if (waiting.has(f.id)) {
      waiting.get(f.id)!(f);
      waiting.delete(f.id);
    } else loose?.(f);
  });
  ws.on('close', () => {
    closed = true;
    for (const [id, answer] of waiting) answer({ t: 'res', id, ok: false, error: 'the socket closed' });
    waiting.clear();
  });
  return {
    events,
    get closed() {
      return closed;
    },
    request(name, req = {}) {
      const id = next++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        ws.send(JSON.stringify({ t: 'req', id, name, req }));
      });
    },
    raw(text) {
      return new Promise((resolve) => {
        loose = resolve;
        ws.send(text);
      });
    },
  };
}
