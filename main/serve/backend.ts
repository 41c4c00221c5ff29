/**
 * Where serve's windows reach the core: a core in this process (tests, the benchmark's
 * baseline), or the per-user service, each window relayed as text over its own service
 * connection (docs/design/service.md, "The processes").
 */
import type { WebSocket } from 'ws';
import type { App } from '../app.ts';
import type { ResolvedFile } from '../core.ts';
import { connectService, type ServiceConnection } from '../service/client.ts';

export interface Backend {
  /** A window's WebSocket, authenticated: carry its frames to the core and the core's to it. */
  window(ws: WebSocket): void;
  resolveFile(prefix: string, rest: string): Promise<ResolvedFile | undefined>;
  close(): void;
}

/** A relay stops reading the service for a window whose socket holds this much unsent, and reads again under the low mark. */
const RELAY_HIGH = 8 * 1024 * 1024;
const RELAY_LOW = 1024 * 1024;

/** Frames a window may send: requests and pongs. Nothing else is passed on (file routes, shutdown are the relay's own). */
function windowFrameOk(text: string): boolean {
  try {
    const f = JSON.parse(text) as { t?: unknown };
    return !!f && typeof f === 'object' && (f.t === 'req' || f.t === 'pong');
  } catch {
    return false;
  }
}

const NOT_A_REQUEST = JSON.stringify({ t: 'res', id: -1, ok: false, error: 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}}' });

export function coreBackend(app: App): Backend {
  return {
    window(ws) {
      const conn = app.hub.connect(
        {
          send: (text) => {
            if (ws.readyState === ws.OPEN) ws.send(text);
          },
          backlog: () => ws.bufferedAmount,
          close: (reason) => {
            ws.close(1008, reason.slice(0, 120));
            ws.terminate();
          },
        },
        { idPrefix: 'ws', shell: 'serve' },
      );
      ws.on('message', (raw, isBinary) => {
        if (isBinary) return conn.sendFrame({ t: 'res', id: -1, ok: false, error: 'frames must be JSON text, not binary' });
        conn.receive(raw.toString());
      });
      ws.on('close', () => conn.gone());
    },
    resolveFile: (prefix, rest) => Promise.resolve(app.core.resolveFile(prefix, rest)),
    close() {},
  };
}

export interface ServiceBackendOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  fresh?: boolean;
  socketPath?: string;
  tokenFile?: string;
}

export async function serviceBackend(opts: ServiceBackendOptions): Promise<Backend> {
  const connect = (fresh = false): Promise<ServiceConnection> =>
    connectService({ env: opts.env, client: 'serve', cwd: opts.cwd, fresh, socketPath: opts.socketPath, tokenFile: opts.tokenFile });
  // One connection of serve's own, for file routes; made now, so the service is up before the first window.
  let files: Promise<ServiceConnection> = connect(opts.fresh);
  await files;
  const windows = new Set<ServiceConnection>();
  let closed = false;
  const filesConn = async (): Promise<ServiceConnection> => {
    const c = await files.catch(() => undefined);
    if (c && !c.isClosed) return c;
    files = connect();
    return files;
  };
  return {
    window(ws) {
      const early: string[] = [];
      let conn: ServiceConnection | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      ws.on('message', (raw, isBinary) => {
        const text = isBinary ? '' : raw.toString();
        if (!windowFrameOk(text)) {
          if (ws.readyState === ws.OPEN) ws.send(NOT_A_REQUEST);
          return;
        }
        if (conn) conn.sendLine(text);
        else early.push(text);
      });
      ws.on('close', () => {
        clearInterval(drainTimer);
        conn?.close();
      });
      connect().then(
        (c) => {
          if (ws.readyState !== ws.OPEN || closed) return c.close();
          conn = c;
          windows.add(c);
          c.relayTo((line) => {
            if (ws.readyState !== ws.OPEN) return;
            ws.send(line);
            // The window is not reading: stop reading the service for it until it drains
            // (the service's flow control then sees this window fall behind, not others).
            if (!drainTimer && ws.bufferedAmount > RELAY_HIGH) {
              c.pause();
              drainTimer = setInterval(() => {
                if (ws.bufferedAmount > RELAY_LOW) return;
                clearInterval(drainTimer);
                drainTimer = undefined;
                c.resume();
              }, 20);
            }
          });
          c.on('close', () => {
            windows.delete(c);
            // The service went away (a restart, a crash): the window reconnects and finds the next one.
            if (ws.readyState === ws.OPEN) ws.close(1012, 'the Terminal Delight service restarted');
          });
          for (const t of early.splice(0)) c.sendLine(t);
        },
        (err: Error) => {
          if (ws.readyState === ws.OPEN) ws.close(1011, err.message.slice(0, 120));
        },
      );
    },
    async resolveFile(prefix, rest) {
      const c = await filesConn();
      return (await c.resolveFile(prefix, rest)) ?? undefined;
    },
    close() {
      closed = true;
      for (const c of windows) c.close();
      void files.then((c) => c.close(), () => undefined);
    },
  };
}
