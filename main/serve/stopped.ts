/**
 * serve while the service is stopped on purpose (`terminal-delight service stop`, a signal,
 * idle; docs/spec/service.md, "A stop on purpose"): it does not start the service again by
 * itself. It holds its door's port with a door of its own (same URL and token, the same
 * checks: main/door/server.ts) whose windows are told why (`service.stopping`, how 'stop', the
 * sentence the service left in run/service.stopped) and may ask for `service.start`; every
 * other request is answered with that sentence. The renderer's page is served as always, so
 * a reload shows the same. `waitStopped` resolves once a window asks to start it, or a service
 * runs again (started some other way), the door closed by then for the service to open; or
 * once `stop()` is called.
 */
import fs from 'node:fs';
import type { WebSocket } from 'ws';
import type { ServerFrame } from '../../preload/contract.ts';
import type { DoorSpec } from '../clients/wire.ts';
import type { Backend } from '../door/backend.ts';
import { startDoorServer, type Served } from '../door/server.ts';

/** What a window is told when the service left no sentence of its own. */
export const STOPPED_FALLBACK = 'The service was stopped.';

/**
 * How the last service went, when it went on purpose: it writes `file` (run/service.stopped)
 * before it tells anyone, and the next service removes it as it starts, so while it is there
 * no service runs that went any other way (a crash or a restart leaves none). 'quit' ("Quit
 * and end all panes": serve stops too), else 'stop' (one being written included).
 */
export function stoppedOnPurpose(file: string): 'stop' | 'quit' | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return (JSON.parse(text) as { how?: unknown }).how === 'quit' ? 'quit' : 'stop';
  } catch {
    return 'stop';
  }
}

/** The sentence the service left as it stopped on purpose (run/service.stopped), else a general one. */
export function stoppedMessage(file: string): string {
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as { message?: unknown };
    if (typeof v.message === 'string' && v.message.length > 0 && v.message.length <= 300 && !/[\u0000-\u001f\u007f]/.test(v.message)) return v.message;
  } catch {
    // none, or not ours
  }
  return STOPPED_FALLBACK;
}

/** A door's windows while the service is stopped: told why, and able to ask for it again. */
function stoppedBackend(message: string, onStart: () => void): Backend {
  const frame = (f: ServerFrame): string => JSON.stringify(f);
  return {
    window(ws: WebSocket) {
      ws.send(frame({ t: 'evt', name: 'service.stopping', payload: { how: 'stop', message } }));
      ws.on('message', (raw, isBinary) => {
        if (isBinary) return;
        let f: { t?: unknown; id?: unknown; name?: unknown };
        try {
          f = JSON.parse(raw.toString()) as typeof f;
        } catch {
          return;
        }
        if (!f || f.t !== 'req') return;
        const id = typeof f.id === 'number' && Number.isSafeInteger(f.id) && f.id >= 0 ? f.id : -1;
        if (f.name === 'service.start') {
          ws.send(frame({ t: 'res', id, ok: true, res: { ok: true } }));
          onStart();
          return;
        }
        ws.send(frame({ t: 'res', id, ok: false, error: `${message} Start it again from this window (Start the service) or with \`terminal-delight service start\`.` }));
      });
    },
    resolveFile: () => Promise.resolve(undefined),
    firstPaint: () => Promise.resolve(undefined),
    close() {},
  };
}

export interface Stopped {
  /** Resolves 'start' once a window asked for the service (the door closed), 'stop' after stop(). */
  done: Promise<'start' | 'stop'>;
  stop(): void;
}

/**
 * Hold `spec`'s port for the windows while the service is stopped. The service closes its door
 * only after it has ended its panes, so the port is tried for up to `claimMs`.
 */
export async function waitStopped(spec: DoorSpec, message: string, started: () => boolean, claimMs = 30_000): Promise<Stopped> {
  let finish!: (how: 'start' | 'stop') => void;
  const done = new Promise<'start' | 'stop'>((resolve) => (finish = resolve));
  let served: Served | undefined;
  let over = false;
  const end = (how: 'start' | 'stop'): void => {
    if (over) return;
    over = true;
    // Its sockets closed: the windows reconnect to the door the next service opens on the same port.
    void (served ? served.close() : Promise.resolve()).then(() => finish(how));
  };
  const backend = stoppedBackend(message, () => setImmediate(() => end('start')));
  const deadline = Date.now() + claimMs;
  for (;;) {
    try {
      served = await startDoorServer({ host: spec.host, port: spec.port, token: spec.token, relay: { ready: Promise.resolve(backend), reachable: Promise.resolve() } });
      break;
    } catch (err) {
      if (over || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (over) await served.close();
  // Started some other way (`terminal-delight service start`, a command that needs it): serve opens its door on it.
  const watch = setInterval(() => {
    if (over) clearInterval(watch);
    else if (started()) end('start');
  }, 500);
  watch.unref();
  void done.then(() => clearInterval(watch));
  return { done, stop: () => end('stop') };
}
