/**
 * serve's relay: each window over its own connection to the per-user service (started on
 * demand), its frames passed on as the bytes that came (docs/design/service.md, "The
 * processes"): what serve does for a service elsewhere (an SSH-forwarded socket) or one too
 * old to open a door.
 */
import type { Backend } from '../door/backend.ts';
import { wireAsk } from '../door/first-paint.ts';
import { connectService, serviceStarting, type ServiceConnection } from '../service/client.ts';
import { HELLO_WITHIN_MS, noHelloReason } from '../clients/hub.ts';

/**
 * A window whose socket holds this much unsent is not reading: it is cut off (it reconnects
 * when it wakes). The service's flow control leaves such a window out of every pane's output
 * long before (docs/design/service.md), so only a window that stopped altogether gets here.
 */
const RELAY_MAX = 64 * 1024 * 1024;

/**
 * Frames a window may send: requests, acknowledgements, pongs, and the same for another
 * machine wrapped in `via` (the service checks what is inside); 'hello' for its app.hello.
 * Nothing else is passed on (file routes, first paints, shutdown, doors are the relay's own).
 */
function windowFrameOk(text: string): boolean | 'hello' {
  try {
    const f = JSON.parse(text) as { t?: unknown; name?: unknown };
    if (!f || typeof f !== 'object') return false;
    if (f.t === 'req' && f.name === 'app.hello') return 'hello';
    return f.t === 'req' || f.t === 'pong' || f.t === 'ack' || f.t === 'via';
  } catch {
    return false;
  }
}

const NOT_A_REQUEST = JSON.stringify({ t: 'res', id: -1, ok: false, error: 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}}' });

export interface ServiceBackendOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  fresh?: boolean;
  socketPath?: string;
  tokenFile?: string;
  /** Have the service start the first pane as soon as it is reached (wire.ts's ClientHello.firstPane). */
  firstPane?: boolean;
}

export async function serviceBackend(opts: ServiceBackendOptions): Promise<Backend> {
  const connect = (fresh = false, binary = false, firstPane = false): Promise<ServiceConnection> =>
    connectService({ env: opts.env, client: 'serve', cwd: opts.cwd, fresh, binary, firstPane, socketPath: opts.socketPath, tokenFile: opts.tokenFile });
  // One connection of serve's own, for file routes; made now, so the service is up (and its
  // first pane's shell starting) before the first window.
  let files: Promise<ServiceConnection> = connect(opts.fresh, false, opts.firstPane === true);
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
    window(ws, wopts = {}) {
      const early: string[] = [];
      let conn: ServiceConnection | undefined;
      // A window says app.hello as its socket opens: one that never does is let go, as the service's own door does.
      const noHello = setTimeout(() => {
        if (ws.readyState === ws.OPEN) ws.close(1008, noHelloReason(HELLO_WITHIN_MS));
        setTimeout(() => ws.terminate(), 1_000).unref();
      }, HELLO_WITHIN_MS);
      noHello.unref();
      ws.on('message', (raw, isBinary) => {
        const text = isBinary ? '' : raw.toString();
        const ok = windowFrameOk(text);
        if (!ok) {
          if (ws.readyState === ws.OPEN) ws.send(NOT_A_REQUEST);
          return;
        }
        if (ok === 'hello') clearTimeout(noHello);
        if (conn) conn.sendLine(text);
        else early.push(text);
      });
      ws.on('close', () => {
        clearTimeout(noHello);
        conn?.close();
      });
      connect(false, wopts.binary === true).then(
        (c) => {
          if (ws.readyState !== ws.OPEN || closed) return c.close();
          conn = c;
          windows.add(c);
          // Lines and binary frames go on as the bytes that came: never decoded, parsed or encoded here.
          c.relayTo((data, binary) => {
            if (ws.readyState !== ws.OPEN) return;
            if (ws.bufferedAmount > RELAY_MAX) {
              ws.terminate();
              c.close();
              return;
            }
            ws.send(data, { binary });
          });
          c.on('close', () => {
            windows.delete(c);
            // The service let this window go (it stopped answering) or went away (a restart, a
            // crash): the window reconnects and finds the next one. A window that is not reading
            // would never take the close frame: it is cut off after a moment.
            if (ws.readyState === ws.OPEN) ws.close(1012, 'the Terminal Delight service closed this connection');
            setTimeout(() => ws.terminate(), 1_000).unref();
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
    async firstPaint(ask) {
      const c = await filesConn();
      return c.firstPaint(wireAsk(ask));
    },
    close() {
      closed = true;
      for (const c of windows) c.close();
      void files.then((c) => c.close(), () => undefined);
    },
  };
}

/** Resolves when the service answers (`ready`) or holds its lock (starting); rejects when `ready` fails first. */
export function answersOrStarting(ready: Promise<unknown>, env: NodeJS.ProcessEnv | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    const finish = (err?: unknown): void => {
      if (done) return;
      done = true;
      clearInterval(poll);
      if (err === undefined) resolve();
      else reject(err);
    };
    const poll = setInterval(() => {
      if (serviceStarting(env)) finish();
    }, 20);
    ready.then(() => finish(), (err: unknown) => finish(err ?? new Error('the service could not be reached')));
  });
}
