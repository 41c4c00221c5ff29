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
 * - The first connection may be the page's early socket (renderer/early.ts): adopted with
 *   the frames it kept, replayed in order once the app has registered its handlers (a
 *   microtask later), and its requests answer the app's first `invoke` of the same ones.
 */
import { VIA_OUTPUT_FRAME, type ClientFrame, type EventName, type Events, type Req, type RequestName, type Res, type ServerFrame, type TdApi, type ViaServerFrame } from '../preload/contract.ts';
import { decodeOutputFrame } from '../preload/output-frame.ts';
import { qualify, qualifyEvent, qualifyResult, routeRequest, splitPaneId } from '../common/qualify.ts';
import { answerId, defaultWsUrl, outputPaneId, type EarlySocket } from './early.ts';
import { paneIdOf } from '../common/pane-id.ts';

export { defaultWsUrl };

export type ConnectionState = 'connecting' | 'open' | 'closed';

export interface WsClient extends TdApi {
  /** Listen for connection changes; the listener gets the new state and whether it is a reconnect. */
  onConnection(listener: (state: ConnectionState, reconnect: boolean) => void): () => void;
  readonly state: ConnectionState;
  /** The early socket this client adopted: how many frames it had kept and requests it had sent (null: none). */
  readonly adopted: { frames: number; requests: number } | null;
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
  /** The page's early socket (renderer/early.ts), adopted as the first connection. */
  early?: EarlySocket;
}

interface Pending {
  name: RequestName;
  /** The home service's pane the request is about (its `paneId`), if any: its answer is ordered with that pane's output. */
  paneId?: string;
  /** The machine it went to (its answer's pane ids are qualified); none: the home service. */
  machine?: string;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** A request the early socket sent, waiting to be claimed by the app's first `invoke` of it. */
interface Adopted {
  name: string;
  key: string;
  answer: Promise<unknown>;
}

interface Queued extends Pending {
  req: unknown;
  timer: ReturnType<typeof setTimeout>;
}

/** The one-sentence error a request gets when the connection is lost under it. */
export function disconnectedError(name: string): Error {
  return new Error(`The connection to Terminal Delight closed before "${name}" was answered; it is reconnecting, so try again in a moment.`);
}

/**
 * Answers a pane's output may not pass on the replay: what awaits them draws the pane from the
 * core's state (a snapshot), so output that came after them must be handled after them. What
 * awaits the others (keys, a resize, the first paint's rows) never redraws the pane.
 */
const ORDERED = new Set<string>(['pane.snapshot', 'pane.view', 'pane.restart', 'pane.resume']);

/** Held frames past this many are replayed in order only (the scan for output that may pass is linear in them). */
const PASS_SCAN_MAX = 500;

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
  let early = opts.early;
  let adopted: WsClient['adopted'] = null;
  /** The early requests not yet claimed; dropped when their socket closes. */
  let claimable: Adopted[] = [];
  /** Frames of the adopted socket not yet handled (kept by early.ts, then any that come before the replay). */
  let held: Array<string | ArrayBuffer> | undefined;

  const setState = (next: ConnectionState, reconnect = false): void => {
    state = next;
    for (const l of [...connectionListeners]) l(next, reconnect);
  };

  const send = (p: Pending, req: unknown): void => {
    const id = nextId++;
    const inner: ClientFrame = { t: 'req', id, name: p.name, req };
    // A request about another machine's pane goes to it, wrapped (docs/design/remote.md).
    const frame: ClientFrame = p.machine ? { t: 'via', m: p.machine, f: inner } : inner;
    const paneId = paneIdOf(req);
    if (!p.machine && paneId !== undefined) p.paneId = paneId;
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

  /**
   * The held frames' output that may be handled ahead of the frames before it (their indices, in
   * order): a pane's output passes what comes before it unless that is the same pane's output
   * kept in its place, an answer that redraws the pane (ORDERED: its snapshot), the hello's
   * answer, an event, or anything else not known to be unrelated (nothing after those passes).
   * Without it a pane's output waits behind every held answer, a task each (the replay): an
   * attach's 31 other snapshots and the terminals' resizes held a key's echo until the window
   * was built (docs/spec/performance.md, "Attach: where the echo waits").
   */
  const passing = (frames: Array<string | ArrayBuffer>): number[] => {
    const out: number[] = [];
    if (frames.length > PASS_SCAN_MAX) return out;
    // A pane with a redrawing ask not yet handled (its answer held, or still to come): its output
    // keeps its place, since the page counts output against a snapshot only once that ask is
    // known to it (the registry's prefetch, made when the answer before it is handled).
    const blocked = new Set<string>();
    for (const p of pending.values()) if (p.paneId !== undefined && ORDERED.has(p.name)) blocked.add(p.paneId);
    for (let i = 0; i < frames.length; i++) {
      const f = frames[i]!;
      if (f instanceof ArrayBuffer) {
        // (The home service's output only: another machine's frame is no output frame here, and stops the scan.)
        const paneId = outputPaneId(new Uint8Array(f));
        if (paneId === undefined) return out;
        if (!blocked.has(paneId)) out.push(i);
        continue;
      }
      const id = answerId(f);
      if (id !== undefined) {
        const p = pending.get(id);
        // Nobody awaits it: its handling does nothing.
        if (!p) continue;
        if (p.name === 'app.hello') return out;
        if (p.paneId !== undefined && ORDERED.has(p.name)) blocked.add(p.paneId);
        continue;
      }
      if (f === '{"t":"ping"}') continue;
      return out;
    }
    return out;
  };

  const onMessage = (ev: MessageEvent): void => {
    if (!held) return void handle(ev.data as string | ArrayBuffer);
    held.push(ev.data as string | ArrayBuffer);
    // A pane's output that may pass the frames still held is handled now (its echo, while the
    // window is built), after any of the held output that may pass too, in order: an earlier
    // frame of the same pane may have been freed since it came (the answer it waited for handled).
    if (ev.data instanceof ArrayBuffer) {
      const ahead = passing(held);
      if (ahead.at(-1) === held.length - 1) handleAhead(held, ahead);
    }
  };

  /** The held frames at these indices (in order) taken out and handled. */
  const handleAhead = (frames: Array<string | ArrayBuffer>, ahead: number[]): void => {
    const first = ahead.map((k) => frames[k]!);
    for (let k = ahead.length - 1; k >= 0; k--) frames.splice(ahead[k]!, 1);
    for (const f of first) handle(f);
  };

  /** Handle one frame; true when it answered a request (its awaiters run before the next frame). */
  const handle = (data: string | ArrayBuffer): boolean => {
    if (data instanceof ArrayBuffer) {
      let bytes = new Uint8Array(data);
      let machine: string | undefined;
      if (bytes[0] === VIA_OUTPUT_FRAME && bytes.length > 2) {
        // Another machine's output: its name, then its frame.
        const n = bytes[1]!;
        machine = String.fromCharCode(...bytes.subarray(2, 2 + n));
        bytes = bytes.subarray(2 + n);
      }
      const out = decodeOutputFrame(bytes);
      if (out) dispatch('pane.output', machine ? { paneId: qualify(machine, out.paneId), data: out.data } : out);
      else console.warn('td-client: ignored a binary frame that is not pane output');
      return false;
    }
    let frame: ServerFrame;
    try {
      frame = JSON.parse(String(data)) as ServerFrame;
    } catch {
      console.warn('td-client: ignored a frame that is not JSON');
      return false;
    }
    if ((frame as { t: string }).t === 'via') return handleVia(frame as unknown as ViaServerFrame);
    if ((frame as { t: string }).t === 'ping') {
      // The core checks that this window is alive (a frozen tab is let go, then reconnects).
      try {
        socket?.send('{"t":"pong"}');
      } catch {
        // closing: the reconnect says hello again
      }
      return false;
    }
    if (frame.t === 'res') {
      const p = pending.get(frame.id);
      if (!p) return false;
      pending.delete(frame.id);
      if (frame.ok) p.resolve(frame.res);
      else p.reject(new Error(frame.error));
      return true;
    } else if (frame.t === 'evt') {
      dispatch(frame.name, frame.payload);
    }
    return false;
  };

  /** A machine's frame: its ping answered through it, its answers and events with their pane ids qualified. */
  const handleVia = (v: ViaServerFrame): boolean => {
    const f = v.f;
    if (!f || typeof v.m !== 'string') return false;
    if (f.t === 'ping') {
      try {
        socket?.send(JSON.stringify({ t: 'via', m: v.m, f: { t: 'pong' } }));
      } catch {
        // closing
      }
      return false;
    }
    if (f.t === 'res') {
      const p = pending.get(f.id);
      if (!p || p.machine !== v.m) return false;
      pending.delete(f.id);
      if (f.ok) p.resolve(qualifyResult(v.m, p.name, f.res));
      else p.reject(new Error(f.error));
      return true;
    }
    if (f.t === 'evt') {
      const payload = qualifyEvent(v.m, f.name, f.payload as never);
      if (payload !== undefined) dispatch(f.name, payload);
    }
    return false;
  };

  /**
   * Handle the adopted socket's held frames in order, as if each had just come: after an
   * answer, the rest wait a task, so what awaits the answer (the app's hello, which sets the
   * layout) runs before the events that followed it (a newer layout), as it would live.
   */
  const replay = (): void => {
    const frames = held ?? [];
    // Output kept behind answers that it may pass goes first (what awaited the last answer has run).
    handleAhead(frames, passing(frames));
    let i = 0;
    while (i < frames.length) {
      if (handle(frames[i++]!)) {
        held = frames.slice(i);
        setTimeout(replay, 0);
        return;
      }
    }
    held = undefined;
  };

  /** Take over the early socket: its requests become pending ones to claim, its kept frames wait for the replay. */
  const adopt = (e: EarlySocket): WebSocket => {
    const ws = e.socket;
    for (const r of e.requests) {
      nextId = Math.max(nextId, r.id + 1);
      const paneId = paneIdOf(r.req);
      const answer = new Promise<unknown>((resolve, reject) => pending.set(r.id, { name: r.name as RequestName, resolve, reject, ...(paneId !== undefined ? { paneId } : {}) }));
      answer.catch(() => { /* unclaimed: nobody waits for it */ });
      claimable.push({ name: r.name, key: JSON.stringify(r.req), answer });
    }
    held = e.release();
    adopted = { frames: held.length, requests: e.requests.length };
    // The app registers its handlers in the same turn as it makes this client: replay after.
    queueMicrotask(replay);
    return ws;
  };

  const connect = (): void => {
    if (closed) return;
    setState('connecting');
    let ws: WebSocket;
    const e = early;
    early = undefined;
    try {
      ws = e ? adopt(e) : new WS(url);
    } catch {
      scheduleRetry();
      return;
    }
    socket = ws;
    ws.binaryType = 'arraybuffer';
    const onOpen = (): void => {
      if (socket !== ws) return;
      performance.mark('td:open');
      delay = minDelay;
      const reconnect = everOpened;
      everOpened = true;
      for (const q of queue.splice(0)) {
        clearTimeout(q.timer);
        send(q, q.req);
      }
      setState('open', reconnect);
    };
    const onClose = (): void => {
      if (socket !== ws) return;
      socket = undefined;
      claimable = [];
      for (const [id, p] of pending) {
        pending.delete(id);
        p.reject(disconnectedError(p.name));
      }
      if (closed) return;
      setState('closed');
      scheduleRetry();
    };
    ws.addEventListener('open', onOpen);
    ws.addEventListener('message', onMessage);
    ws.addEventListener('close', onClose);
    // 'error' is always followed by 'close'. An adopted socket may be past either already.
    if (e && ws.readyState === WS.OPEN) onOpen();
    else if (e && ws.readyState === WS.CLOSED) onClose();
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
    get adopted() {
      return adopted;
    },
    ack(paneId: string, chars: number): void {
      // Not connected: the core forgets a gone window's debt, and a new connection starts afresh.
      if (!socket || socket.readyState !== WS.OPEN) return;
      const { machine, local } = splitPaneId(paneId);
      const ack: ClientFrame = { t: 'ack', paneId: local, chars };
      try {
        socket.send(JSON.stringify(machine ? ({ t: 'via', m: machine, f: ack } satisfies ClientFrame) : ack));
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
        // The early socket asked this already: its answer is this call's.
        const key = JSON.stringify(req);
        const early = claimable.findIndex((a) => a.name === name && a.key === key);
        if (early >= 0) {
          const [a] = claimable.splice(early, 1);
          a.answer.then(resolve as (v: unknown) => void, reject);
          return;
        }
        const routed = routeRequest(name, req);
        if ('error' in routed) {
          reject(new Error(routed.error));
          return;
        }
        req = routed.req as Req<K>;
        const p: Pending = { name, resolve: resolve as (v: unknown) => void, reject, ...(routed.machine ? { machine: routed.machine } : {}) };
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
