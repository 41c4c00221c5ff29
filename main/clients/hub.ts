/**
 * Every client of the core, whatever carries it (the service's Unix socket, or serve's
 * WebSocket when the core runs in the same process): one Connection per client that
 * reads its frames, runs them through `core.request`, and sends it the core's events,
 * each event encoded once for all (docs/design/service.md, "The processes").
 *
 * Also liveness: a window (a client that said app.hello) is pinged every `pingMs` and
 * let go when it has been silent for `silentMs`, or when its transport holds more than
 * `maxBacklog` unsent characters: a frozen tab never holds anything up for long.
 */
import type { ClientFrame, EventName, Events, RequestName, ServerFrame } from '../../preload/contract.ts';
import type { Client, Core } from '../core.ts';
import fs from 'node:fs';
import { encodeOutputFrame } from './frames.ts';
import { paneIdOf } from '../../common/pane-id.ts';
import { FILE_BYTES_MAX, type ControlFrame, type DoorAnswer, type FileAnswer, type FileBytesAnswer, type FirstPaintAnswer, type FirstPaintAsk, type FirstPaintFrameAnswer } from './wire.ts';

/** A transport to one client. `send` takes one frame's JSON text; the transport frames it. */
export interface Link {
  send(text: string): void;
  /**
   * One binary frame (preload/output-frame.ts): set on transports whose client asked for
   * `pane.output` that way; the others get the event's JSON.
   */
  sendBinary?(frame: Buffer, paneId: string): void;
  /** Characters queued on the transport and not yet written out. */
  backlog(): number;
  /** Close the transport, saying why in one sentence. */
  close(reason: string): void;
}

/** A window as the machines' router sees it (main/machines/machines.ts): where a far frame goes back to. */
export interface ViaWindow {
  readonly binary: boolean;
  sendText(text: string): void;
  sendBinary(frame: Buffer, key: string): void;
}

/** Takes a window's `via` frames for other machines (docs/design/remote.md). */
export interface ViaRouter {
  receive(win: ViaWindow, machine: unknown, frame: unknown): void;
  gone(win: ViaWindow): void;
}

export interface HubOptions {
  pingMs?: number;
  silentMs?: number;
  maxBacklog?: number;
  /** How long a window's own transport may go without app.hello (HELLO_WITHIN_MS). */
  helloWithinMs?: number;
}

export interface ConnectOptions {
  /** Relay-only frames (file routes, shutdown) are taken from this client (the service socket, which checked a token). */
  control?: boolean;
  /** Called for a `shutdown` control frame. */
  onShutdown?: (reason: string) => void;
  /** Called for a `door` control frame (main/service/door.ts); its answer is sent back. */
  onDoor?: (frame: Extract<ControlFrame, { t: 'door' }>) => Promise<DoorAnswer>;
  /** Called for a `first-paint` control frame (main/door/first-paint.ts firstPaintFor); its answer is sent back. */
  onFirstPaint?: (ask: FirstPaintAsk) => FirstPaintAnswer;
  /**
   * A window's own transport (a door's WebSocket): let go, saying why, when it has not said
   * `app.hello` within this many ms (HELLO_WITHIN_MS), so a socket that never does holds nothing.
   */
  helloWithinMs?: number;
}

/** How long a window's WebSocket may stay open without saying app.hello (the service socket's own hello waits as long). */
export const HELLO_WITHIN_MS = 10_000;

/** Why a window's transport that never said app.hello was closed (short: a WebSocket's close reason holds 123 bytes). */
export function noHelloReason(ms: number): string {
  return `no app.hello came within ${Math.round(ms / 1000)} s: reload the window`;
}

const PING_MS = 2_000;
const SILENT_MS = 8_000;
const MAX_BACKLOG = 64 * 1024 * 1024;

/**
 * Asks that take the service a while (a pane's screen resized and reflowed, or serialized): a
 * connection makes one of them an event-loop turn (Connection.receive), so a key that came
 * after several of them is read, written and echoed between them, not after them all (the
 * first window resizes every pane with its snapshot ask: 31 of them ahead of the first key).
 */
export const HEAVY_ASKS: ReadonlySet<string> = new Set(['pane.snapshot', 'pane.resize', 'pane.peek']);
/** Asks that pass waiting frames about other panes: a key, and the first paint's ask for its echo (`pane.rows`). */
export const PASSING: ReadonlySet<string> = new Set(['pane.input', 'pane.rows']);

function heavy(frame: ClientFrame | ControlFrame): boolean {
  return frame.t === 'req' && HEAVY_ASKS.has(frame.name);
}

function passes(frame: ClientFrame | ControlFrame): frame is Extract<ClientFrame, { t: 'req' }> & { req: { paneId: string } } {
  return frame.t === 'req' && PASSING.has(frame.name) && paneIdOf(frame.req) !== undefined;
}

/**
 * Asks about no pane that only read (lists, a search, the service's info): a key passes them
 * waiting. Any other ask about no pane may change what a key lands on (`pane.resumeAll` brings
 * ended panes back, `worktree.remove`, `service.quit`) and holds it.
 */
export const READS: ReadonlySet<string> = new Set([
  'pane.list', 'surface.list', 'surface.catalogue', 'tick.list', 'tick.packages', 'approval.list', 'agent.available', 'service.info',
  'machine.list', 'usage.summary', 'search.query', 'search.lines', 'search.transcript', 'worktree.list', 'worktree.status', 'devices.state',
]);
/** Asks about one pane and nothing shared (not its focus, nor closing or starting it): the pane typed into takes them ahead (aboutOnly). */
export const PANE_LOCAL: ReadonlySet<string> = new Set(['pane.snapshot', 'pane.resize', 'pane.peek', 'pane.rows', 'pane.view', 'pane.input', 'pane.ack']);

/**
 * Whether a waiting frame holds a pane's key back: an ask about that pane, or one that names it
 * anywhere (a layout, a list of panes), the hello, an ask about no pane that is not one of
 * READS, and an acknowledgement of no pane. An ask about another pane, a read about no pane
 * (`worktree.list`, a search: the page asks such things while it builds), or a frame for another
 * machine (`via`: its panes are not this one's) never holds it.
 */
function blocks(waiting: ClientFrame | ControlFrame, paneId: string): boolean {
  if (waiting.t === 'via') return false;
  if (waiting.t === 'ack') return typeof waiting.paneId !== 'string' || waiting.paneId === paneId;
  if (waiting.t !== 'req' || waiting.name === 'app.hello') return true;
  const about = paneIdOf(waiting.req);
  if (about !== undefined) return about === paneId;
  if (!READS.has(waiting.name)) return true;
  return JSON.stringify(waiting.req ?? null).includes(JSON.stringify(paneId));
}

/** A frame about that one pane and nothing shared (PANE_LOCAL), or an acknowledgement of its output. */
function aboutOnly(frame: ClientFrame | ControlFrame, paneId: string): boolean {
  if (frame.t === 'ack') return frame.paneId === paneId;
  return frame.t === 'req' && PANE_LOCAL.has(frame.name) && paneIdOf(frame.req) === paneId;
}

export class Connection implements ViaWindow {
  readonly client: Client;
  /** Said app.hello: a window, pinged and held to liveness. */
  window = false;
  lastHeard = Date.now();
  private readonly hub: ClientHub;
  private readonly link: Link;
  private readonly opts: ConnectOptions;
  private closed = false;
  private helloTimer: NodeJS.Timeout | undefined;

  constructor(hub: ClientHub, link: Link, client: Client, opts: ConnectOptions) {
    this.hub = hub;
    this.link = link;
    this.client = client;
    this.opts = opts;
    const within = opts.helloWithinMs;
    if (within !== undefined && within > 0) {
      this.helloTimer = setTimeout(() => {
        if (!this.window) this.close(noHelloReason(within));
      }, within);
      this.helloTimer.unref?.();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** One frame's text from the client. */
  receive(text: string): void {
    if (this.closed) return;
    this.lastHeard = Date.now();
    let frame: ClientFrame | ControlFrame;
    try {
      frame = JSON.parse(text) as ClientFrame | ControlFrame;
    } catch {
      return this.reply(-1, 'the frame is not JSON: send {"t":"req","id":N,"name":"...","req":{...}}');
    }
    if (!frame || typeof frame !== 'object') return this.reply(-1, 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}}');
    if (frame.t === 'ping' || frame.t === 'pong') return;
    // Heavy asks (HEAVY_ASKS) go one an event-loop turn, the frames after them waiting in order
    // (`waiting`), so what came meanwhile is read between them: a key (`PASSING`) for a pane
    // none of the waiting frames is about goes at once, ahead of them (its echo too, read from
    // the PTY between two of them), never ahead of an earlier frame about its own pane.
    if (this.waiting.length > 0) {
      if (passes(frame)) {
        const paneId = frame.req.paneId;
        const holding = this.waiting.filter((w) => blocks(w, paneId));
        if (holding.length === 0) return this.take(frame);
        // The pane typed into goes first: when only its own asks hold the key back, they go
        // ahead of the other panes' waiting frames (none of which it waits on), then the key.
        if (holding.every((w) => aboutOnly(w, paneId))) {
          this.waiting = [...holding, frame, ...this.waiting.filter((w) => !holding.includes(w))];
          return;
        }
      }
      this.waiting.push(frame);
      return;
    }
    if (this.heavyTurn && heavy(frame)) {
      this.waiting.push(frame);
      return;
    }
    this.take(frame);
  }

  /** Frames held behind a heavy ask made this turn (receive), in order. */
  private waiting: Array<ClientFrame | ControlFrame> = [];
  /** A heavy ask was made this event-loop turn: the next waits for the next turn. */
  private heavyTurn = false;

  /** The waiting frames, up to and with the next heavy ask; the rest the turn after it. */
  private nextTurn = (): void => {
    this.heavyTurn = false;
    while (this.waiting.length > 0) {
      if (this.closed) {
        // Gone: its answers go nowhere, and an ask would make it a reader again; the keys it sent
        // are still typed, unless a frame dropped before one held it (a restart of its pane:
        // the key was meant for what came after it).
        const dropped: Array<ClientFrame | ControlFrame> = [];
        for (const f of this.waiting.splice(0)) {
          if (passes(f) && f.name === 'pane.input' && !dropped.some((d) => blocks(d, f.req.paneId))) this.takeSafely(f);
          else dropped.push(f);
        }
        return;
      }
      this.takeSafely(this.waiting.shift()!);
      if (this.heavyTurn) return;
    }
  };

  /** take, one frame's fault never stalling the frames behind it. */
  private takeSafely(frame: ClientFrame | ControlFrame): void {
    try {
      this.take(frame);
    } catch (e) {
      console.error(`[service] a client's frame failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Handle one frame now. */
  private take(frame: ClientFrame | ControlFrame): void {
    if (heavy(frame) && !this.heavyTurn) {
      this.heavyTurn = true;
      setImmediate(this.nextTurn);
    }
    switch (frame.t) {
      case 'req':
        return void this.request(frame);
      case 'via':
        if (this.hub.via) return this.hub.via.receive(this, frame.m, frame.f);
        break;
      case 'ack':
        // No answer, right or wrong (contract.ts); a wrong one changes nothing.
        if (typeof frame.paneId === 'string' && typeof frame.chars === 'number') {
          this.hub.core.request('pane.ack', { paneId: frame.paneId, chars: frame.chars }, this.client).catch(() => undefined);
        }
        return;
      case 'file':
        if (this.opts.control) return this.file(frame);
        break;
      case 'shutdown':
        if (this.opts.control) return this.opts.onShutdown?.(typeof frame.reason === 'string' ? frame.reason.slice(0, 200) : 'asked');
        break;
      case 'first-paint':
        if (this.opts.control && this.opts.onFirstPaint) return this.firstPaint(frame, this.opts.onFirstPaint);
        break;
      case 'door':
        if (this.opts.control && this.opts.onDoor) {
          void this.opts.onDoor(frame).then((answer) => this.send(JSON.stringify(answer)));
          return;
        }
        break;
    }
    const id = typeof (frame as { id?: unknown }).id === 'number' && Number.isSafeInteger((frame as { id: number }).id) ? (frame as { id: number }).id : -1;
    this.reply(id, 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}}');
  }

  private async request(frame: Extract<ClientFrame, { t: 'req' }>): Promise<void> {
    const id = typeof frame.id === 'number' && Number.isSafeInteger(frame.id) && frame.id >= 0 ? frame.id : -1;
    if (id < 0 || typeof frame.name !== 'string') {
      return this.reply(id, 'the frame is not a request: send {"t":"req","id":N,"name":"...","req":{...}} with a whole-number id of 0 or more');
    }
    if (frame.name === 'app.hello' && !this.window) {
      this.window = true;
      this.client.saidHello = true;
      clearTimeout(this.helloTimer);
      this.hub.windowsChanged();
    }
    try {
      const res = await this.hub.core.request(frame.name as RequestName, frame.req as never, this.client);
      this.sendFrame({ t: 'res', id, ok: true, res: res ?? null });
    } catch (err) {
      this.reply(id, err instanceof Error ? err.message : String(err));
    }
  }

  private file(frame: Extract<ControlFrame, { t: 'file' }>): void {
    const id = Number.isSafeInteger(frame.id) ? frame.id : -1;
    const answer = (file: FileAnswer['file'] | FileBytesAnswer['file']): void => this.send(JSON.stringify({ t: 'file', id, file }));
    if (typeof frame.prefix !== 'string' || typeof frame.rest !== 'string' || frame.rest.includes('\0')) return answer(null);
    let found: ReturnType<Core['resolveFile']>;
    try {
      found = this.hub.core.resolveFile(frame.prefix, frame.rest);
    } catch {
      return answer(null);
    }
    void Promise.resolve(found).then(async (file) => {
      if (!file || frame.bytes !== true) return answer(file ?? null);
      // Its bytes (another machine's home service asking): never more than FILE_BYTES_MAX.
      const st = await fs.promises.stat(file.path);
      if (!st.isFile() || st.size > FILE_BYTES_MAX) return answer(null);
      answer({ ...(file.type ? { type: file.type } : {}), data: (await fs.promises.readFile(file.path)).toString('base64') });
    }).catch(() => answer(null));
  }

  private firstPaint(frame: Extract<ControlFrame, { t: 'first-paint' }>, answer: (ask: FirstPaintAsk) => FirstPaintAnswer): void {
    const id = Number.isSafeInteger(frame.id) ? frame.id : -1;
    let a: FirstPaintAnswer = { theme: null, markup: null };
    try {
      a = answer({ theme: frame.theme, prefers: frame.prefers, themeOnly: frame.themeOnly === true });
    } catch {
      // none: the window draws as it always did
    }
    this.send(JSON.stringify({ t: 'first-paint', id, ...a } satisfies FirstPaintFrameAnswer));
  }

  private reply(id: number, error: string): void {
    this.sendFrame({ t: 'res', id, ok: false, error });
  }

  sendFrame(frame: ServerFrame | ControlFrame): void {
    this.send(JSON.stringify(frame));
  }

  /** Whether this client takes `pane.output` as binary frames. */
  get binary(): boolean {
    return typeof this.link.sendBinary === 'function';
  }

  /** A frame's text to the client, unless it stopped reading (then it is let go). */
  send(text: string): void {
    if (this.reading()) this.link.send(text);
  }

  sendText(text: string): void {
    this.send(text);
  }

  /** A binary frame to a client that asked for them, unless it stopped reading. */
  sendBinary(frame: Buffer, paneId: string): void {
    if (this.reading()) this.link.sendBinary!(frame, paneId);
  }

  private reading(): boolean {
    if (this.closed) return false;
    if (this.link.backlog() > this.hub.maxBacklog) {
      this.close('this window stopped reading: reload it');
      return false;
    }
    return true;
  }

  /** Close from this side (the transport's own close calls `gone`). */
  close(reason: string): void {
    if (this.closed) return;
    this.link.close(reason);
    this.gone();
  }

  /** The transport closed. */
  gone(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.helloTimer);
    this.hub.remove(this);
  }
}

export class ClientHub {
  readonly core: Core;
  readonly maxBacklog: number;
  /** How long a window's own transport may go without app.hello (ConnectOptions.helloWithinMs). */
  readonly helloWithinMs: number;
  /** Where `via` frames go (the home service's machines); none: they are refused. */
  via: ViaRouter | undefined;
  private readonly connections = new Set<Connection>();
  private readonly byId = new Map<string, Connection>();
  private readonly listeners = new Set<(windows: number) => void>();
  private readonly pingMs: number;
  private readonly silentMs: number;
  private readonly offEvents: () => void;
  private readonly offEventsTo: () => void;
  private pingTimer: NodeJS.Timeout | undefined;
  private nextId = 1;

  constructor(core: Core, opts: HubOptions = {}) {
    this.core = core;
    this.pingMs = opts.pingMs ?? PING_MS;
    this.silentMs = opts.silentMs ?? SILENT_MS;
    this.maxBacklog = opts.maxBacklog ?? MAX_BACKLOG;
    this.helloWithinMs = opts.helloWithinMs ?? HELLO_WITHIN_MS;
    this.offEvents = core.onEvent((name, payload) => this.broadcast(name, payload));
    this.offEventsTo = core.onEventTo((clientId, name, payload) => {
      const c = this.byId.get(clientId);
      if (c) c.sendFrame({ t: 'evt', name, payload });
    });
  }

  /** A new client on a transport. `idPrefix` names its kind in Client.id (ws-3, sock-7). */
  connect(link: Link, client: Omit<Client, 'id'> & { idPrefix: string }, opts: ConnectOptions = {}): Connection {
    const { idPrefix, ...rest } = client;
    const c = new Connection(this, link, { ...rest, id: `${idPrefix}-${this.nextId++}`, saidHello: false }, opts);
    this.connections.add(c);
    this.byId.set(c.client.id, c);
    this.schedulePings();
    return c;
  }

  /** Connected clients, and how many of them are windows. */
  get size(): number {
    return this.connections.size;
  }

  get windows(): number {
    let n = 0;
    for (const c of this.connections) if (c.window) n++;
    return n;
  }

  /** Called with the number of windows whenever a window comes or goes. */
  onWindows(listener: (windows: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  windowsChanged(): void {
    const n = this.windows;
    for (const l of [...this.listeners]) l(n);
  }

  remove(c: Connection): void {
    if (!this.connections.delete(c)) return;
    this.byId.delete(c.client.id);
    this.core.clientGone(c.client);
    this.via?.gone(c);
    if (c.window) this.windowsChanged();
    if (this.connections.size === 0 && this.pingTimer) {
      clearInterval(this.pingTimer);
      this.pingTimer = undefined;
    }
  }

  /** Close every connection (the core is going away). */
  closeAll(reason: string): void {
    for (const c of [...this.connections]) c.close(reason);
  }

  dispose(): void {
    this.offEvents();
    this.offEventsTo();
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = undefined;
  }

  private broadcast<K extends EventName>(name: K, payload: Events[K]): void {
    if (this.connections.size === 0) return;
    // Encoded once for all the clients that get it: as JSON, or as a binary output frame.
    let text: string | undefined;
    let frame: Buffer | undefined;
    const output = name === 'pane.output' ? (payload as Events['pane.output']) : undefined;
    for (const c of this.connections) {
      // A pane's output goes to windows only: a command, or a relay's own connection for file
      // routes, never reads it (it cost both processes a JSON copy of every flood).
      if (output && !c.window) continue;
      if (!this.core.accepts(name, payload, c.client)) continue;
      if (output && c.binary) {
        frame ??= encodeOutputFrame(output.paneId, output.data);
        c.sendBinary(frame, output.paneId);
        continue;
      }
      text ??= JSON.stringify({ t: 'evt', name, payload } satisfies ServerFrame);
      c.send(text);
    }
  }

  private schedulePings(): void {
    if (this.pingTimer || this.pingMs <= 0) return;
    this.pingTimer = setInterval(() => {
      const now = Date.now();
      for (const c of [...this.connections]) {
        if (!c.window) continue;
        if (now - c.lastHeard > this.silentMs) c.close(`this window has not answered for ${Math.round(this.silentMs / 1000)} s: it was let go, and reconnects when it wakes`);
        else c.sendFrame({ t: 'ping' });
      }
    }, this.pingMs);
    this.pingTimer.unref?.();
  }
}
