/**
 * `window.td` for the browser: the contract's TdApi carried over serve's WebSocket
 * (`/ws`, same origin, cookie auth), in the contract's ClientFrame/ServerFrame JSON, and
 * `pane.output` as binary frames (`?output=binary`, preload/output-frame.ts): terminal
 * output is never JSON-escaped on its way.
 *
 * - Requests made while the socket is not open wait for it (up to `queueTimeoutMs`).
 * - Requests in flight when the socket drops fail at once with a clear message.
 * - The socket reconnects by itself with exponential backoff; `onConnection`
 *   tells the app when it is back, so it can say hello again and redraw panes.
 */
import type { ClientFrame, EventName, Events, Req, RequestName, Res, ServerFrame, TdApi } from '../preload/contract.ts';
import { decodeOutputFrame } from '../preload/output-frame.ts';

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface WsClient extends TdApi {
  /** Listen for connection changes; the listener gets the new state and whether it is a reconnect. */
  onConnection(listener: (state: ConnectionState, reconnect: boolean) => void): () => void;
  readonly state: ConnectionState;
  /** Stop for good: fail what is pending and stop reconnecting. */
  close(): void;
}

export interface WsClientOptions {
  /** ws:// URL; default: `/ws` on the page's own origin. */
  url?: string;
  /** WebSocket constructor (the global one by default). */
  WebSocketImpl?: typeof WebSocket;
  /** First reconnect delay, doubled each failure up to maxDelayMs. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** How long a request waits for a connection before it fails. */
  queueTimeoutMs?: number;
}

interface Pending {
  name: RequestName;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Queued extends Pending {
  req: unknown;
  timer: ReturnType<typeof setTimeout>;
}

export function defaultWsUrl(loc: { protocol: string; host: string } = globalThis.location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?output=binary`;
}

/** The one-sentence error a request gets when the connection is lost under it. */
export function disconnectedError(name: string): Error {
  return new Error(`The connection to Terminal Delight closed before "${name}" was answered; it is reconnecting, so try again in a moment.`);
}

export function createWsClient(opts: WsClientOptions = {}): WsClient {
  const url = opts.url ?? defaultWsUrl();
  const WS = opts.WebSocketImpl ?? globalThis.WebSocket;
  const minDelay = opts.minDelayMs ?? 250;
  const maxDelay = opts.maxDelayMs ?? 5_000;
  const queueTimeout = opts.queueTimeoutMs ?? 15_000;

  const handlers = new Map<EventName, Set<(payload: never) => void>>();
  const connectionListeners = new Set<(state: ConnectionState, reconnect: boolean) => void>();
  const pending = new Map<number, Pending>();
  const queue: Queued[] = [];
  let nextId = 1;
  let socket: WebSocket | undefined;
  let state: ConnectionState = 'connecting';
  let everOpened = false;
  let closed = false;
  let delay = minDelay;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const setState = (next: ConnectionState, reconnect = false): void => {
    state = next;
    for (const l of [...connectionListeners]) l(next, reconnect);
  };

  const send = (p: Pending, req: unknown): void => {
    const id = nextId++;
    const frame: ClientFrame = { t: 'req', id, name: p.name, req };
    pending.set(id, p);
    try {
      socket!.send(JSON.stringify(frame));
    } catch (err) {
      pending.delete(id);
      p.reject(new Error(`Could not send "${p.name}" to Terminal Delight (${(err as Error).message}); try again.`));
    }
  };

  const dispatch = (name: EventName, payload: unknown): void => {
    const set = handlers.get(name);
    if (!set) return;
    for (const h of [...set]) {
      try {
        h(payload as never);
      } catch (err) {
        console.error(`td-client: a handler of "${name}" threw`, err);
      }
    }
  };

  const onMessage = (ev: MessageEvent): void => {
    if (ev.data instanceof ArrayBuffer) {
      const out = decodeOutputFrame(new Uint8Array(ev.data));
      if (out) dispatch('pane.output', out);
      else console.warn('td-client: ignored a binary frame that is not pane output');
      return;
    }
    let frame: ServerFrame;
    try {
      frame = JSON.parse(String(ev.data)) as ServerFrame;
    } catch {
      console.warn('td-client: ignored a frame that is not JSON');
      return;
    }
    if ((frame as { t: string }).t === 'ping') {
      // The core checks that this window is alive (a frozen tab is let go, then reconnects).
      try {
        socket?.send('{"t":"pong"}');
      } catch {
        // closing: the reconnect says hello again
      }
      return;
    }
    if (frame.t === 'res') {
      const p = pending.get(frame.id);
      if (!p) return;
      pending.delete(frame.id);
      if (frame.ok) p.resolve(frame.res);
      else p.reject(new Error(frame.error));
    } else if (frame.t === 'evt') {
      dispatch(frame.name, frame.payload);
    }
  };

  const connect = (): void => {
    if (closed) return;
    setState('connecting');
    let ws: WebSocket;
    try {
      ws = new WS(url);
    } catch {
      scheduleRetry();
      return;
    }
    socket = ws;
    ws.binaryType = 'arraybuffer';
    ws.addEventListener('open', () => {
      if (socket !== ws) return;
      delay = minDelay;
      const reconnect = everOpened;
      everOpened = true;
      for (const q of queue.splice(0)) {
        clearTimeout(q.timer);
        send(q, q.req);
      }
      setState('open', reconnect);
    });
    ws.addEventListener('message', onMessage);
    ws.addEventListener('close', () => {
      if (socket !== ws) return;
      socket = undefined;
      for (const [id, p] of pending) {
        pending.delete(id);
        p.reject(disconnectedError(p.name));
      }
      if (closed) return;
      setState('closed');
      scheduleRetry();
    });
    // 'error' is always followed by 'close'.
  };

  const scheduleRetry = (): void => {
    if (closed) return;
    clearTimeout(retryTimer);
    retryTimer = setTimeout(connect, delay);
    delay = Math.min(delay * 2, maxDelay);
  };

  connect();

  return {
    get state() {
      return state;
    },
    ack(paneId: string, chars: number): void {
      // Not connected: the core forgets a gone window's debt, and a new connection starts afresh.
      if (!socket || socket.readyState !== WS.OPEN) return;
      try {
        socket.send(JSON.stringify({ t: 'ack', paneId, chars } satisfies ClientFrame));
      } catch {
        // closing: the same
      }
    },
    invoke<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
      return new Promise<Res<K>>((resolve, reject) => {
        if (closed) {
          reject(new Error(`The connection to Terminal Delight is closed, so "${name}" was not sent; reload the page.`));
          return;
        }
        const p: Pending = { name, resolve: resolve as (v: unknown) => void, reject };
        if (socket && socket.readyState === WS.OPEN) {
          send(p, req);
          return;
        }
        const q: Queued = {
          ...p,
          req,
          timer: setTimeout(() => {
            const i = queue.indexOf(q);
            if (i >= 0) queue.splice(i, 1);
            reject(new Error(`Terminal Delight could not be reached within ${Math.round(queueTimeout / 1000)} s, so "${name}" was not sent; check that it is still running.`));
          }, queueTimeout),
        };
        queue.push(q);
      });
    },
    on<K extends EventName>(name: K, handler: (payload: Events[K]) => void): () => void {
      let set = handlers.get(name);
      if (!set) handlers.set(name, (set = new Set()));
      const h = handler as (payload: never) => void;
      set.add(h);
      return () => {
        set.delete(h);
      };
    },
    onConnection(listener) {
      connectionListeners.add(listener);
      return () => {
        connectionListeners.delete(listener);
      };
    },
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(retryTimer);
      for (const q of queue.splice(0)) {
        clearTimeout(q.timer);
        q.reject(new Error(`The connection to Terminal Delight was closed, so "${q.name}" was not sent.`));
      }
      const ws = socket;
      socket = undefined;
      for (const [id, p] of pending) {
        pending.delete(id);
        p.reject(disconnectedError(p.name));
      }
      ws?.close();
      setState('closed');
    },
  };
}
