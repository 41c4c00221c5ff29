/**
 * The service socket's wire: newline-delimited JSON lines, the same ClientFrame and
 * ServerFrame objects serve's WebSocket carries, after one hello line each way
 * (docs/design/service.md, "The socket"). Pure, apart from the line splitter's buffer.
 */

/** Largest line either side may send (a paste, a snapshot); longer closes the connection. */
export const MAX_LINE = 16 * 1024 * 1024;

/** Who is connecting: a window's relay, or a command. */
export type ClientKind = 'serve' | 'electron' | 'cli';

export interface ClientHello {
  t: 'hello';
  protocol: number;
  version: string;
  token: string;
  client: ClientKind;
  pid?: number;
  /** Where this client's first pane starts when the layout is empty. */
  cwd?: string;
  /** Send `pane.output` as binary frames among the lines (main/clients/frames.ts), not as JSON. */
  binary?: boolean;
  /**
   * A relay about to open a window (serve at its start): start the first pane now, in `cwd`,
   * when the layout is empty, so its shell starts while the window loads.
   */
  firstPane?: boolean;
}

export type ServiceHello =
  | { t: 'hello'; ok: true; protocol: number; version: string; pid: number; startedAt: string }
  | { t: 'hello'; ok: false; error: string; protocol: number; version: string };

/** Frames only relays and the service exchange, never forwarded from a window. */
export type ControlFrame =
  | { t: 'ping' }
  | { t: 'pong' }
  /** Resolve a file route (core.serveFiles) for serve's HTTP or Electron's app:// protocol. */
  | { t: 'file'; id: number; prefix: string; rest: string; bytes?: boolean }
  /**
   * The theme and first paint for a window about to load (main/door/first-paint.ts): what a
   * relay or Electron's shell puts into index.html. `theme` is the window's own (`?theme=`),
   * `prefers` what the person prefers (the browser's hint, the desktop's setting); with
   * `themeOnly`, the theme alone.
   */
  | { t: 'first-paint'; id: number; theme?: string; prefers?: string; themeOnly?: boolean }
  /** Stop the service (every protocol version keeps this frame: an upgrade needs it). */
  | { t: 'shutdown'; reason?: string }
  /**
   * Open the browser's door in the service (main/service/door.ts): serve's windows then reach
   * the core straight, not relayed. It stays open while this connection does, or, with a
   * `holder`, while that process does (a serve at rest: docs/design/service.md).
   */
  | { t: 'door'; id: number; host: string; port: number; token: string; holder?: DoorHolder }
  /**
   * From the service, before it stops for good: after a quit ("Quit and end all panes") serve
   * stops too; after a stop on purpose (`stopped`) it waits for a window to start it again;
   * either way it does not start it by itself. `reason`: the window's sentence.
   */
  | { t: 'bye'; quit: boolean; stopped?: boolean; reason: string };

/** Where a door listens and the token its windows show (the one in serve's URL). */
export interface DoorSpec {
  host: string;
  port: number;
  token: string;
}

/**
 * The process a door is held by instead of a connection (a serve at rest), and the FIFO the
 * service keeps open for writing while it runs: the holder reads it, and its end says the
 * service went away.
 */
export interface DoorHolder {
  pid: number;
  fifo: string;
}

/** `held`: the door is the holder's (a service that does not know holders leaves it out). */
export type DoorAnswer = { t: 'door'; id: number; ok: true; url: string; port: number; held?: boolean } | { t: 'door'; id: number; ok: false; error: string };

/** A door frame's holder, or the sentence saying what is wrong with it. */
export function parseDoorHolder(v: unknown): DoorHolder | string {
  const h = v as Partial<DoorHolder> | null;
  if (!h || typeof h !== 'object') return 'the door\'s holder is not an object: send {"pid":N,"fifo":"/path"}';
  if (typeof h.pid !== 'number' || !Number.isSafeInteger(h.pid) || h.pid < 2) return `the door's holder ${JSON.stringify(h.pid)} is not a process id: give a whole number above 1`;
  if (typeof h.fifo !== 'string' || !h.fifo.startsWith('/') || h.fifo.length > 4096 || /[\u0000-\u001f]/.test(h.fifo)) return 'the door\'s holder FIFO is not an absolute path: give one in the service\'s run folder';
  return { pid: h.pid, fifo: h.fifo };
}

/** A door frame's spec, or the sentence saying what is wrong with it. */
export function parseDoorSpec(v: unknown): DoorSpec | string {
  const d = v as Partial<DoorSpec> | null;
  if (!d || typeof d !== 'object') return 'the door is not an object: send {"host":"127.0.0.1","port":N,"token":"..."}';
  if (d.host !== '127.0.0.1' && d.host !== '::1' && d.host !== 'localhost') return `the door's host ${JSON.stringify(d.host)} is not loopback: a door listens only on 127.0.0.1, ::1 or localhost`;
  if (typeof d.port !== 'number' || !Number.isInteger(d.port) || d.port < 1 || d.port > 65535) return `the door's port ${JSON.stringify(d.port)} is not a port: give a whole number from 1 to 65535`;
  if (typeof d.token !== 'string' || !/^[0-9a-f]{32,256}$/.test(d.token)) return 'the door\'s token is not usable: give at least 32 hex digits';
  return { host: d.host, port: d.port, token: d.token };
}

/**
 * What a window about to load asks the core for (the door from its request; a relay and
 * Electron's shell over the `first-paint` frame): main/door/first-paint.ts answers.
 */
export interface FirstPaintAsk {
  /** The window's own theme (`?theme=`), when it has one. */
  theme?: unknown;
  /** What the person prefers, as the browser's hint or the desktop's setting says. */
  prefers?: unknown;
  /** Only the theme, no picture (`?first-paint=off`, a HEAD request). */
  themeOnly?: boolean;
}

/** The window's theme (null when nothing says) and its first paint (null when none can be drawn). */
export interface FirstPaintAnswer {
  theme: 'light' | 'dark' | null;
  markup: string | null;
}


export type FirstPaintFrameAnswer = { t: 'first-paint'; id: number } & FirstPaintAnswer;

export type FileAnswer = { t: 'file'; id: number; file: { path: string; type?: string; csp?: string } | null };

/**
 * A file route's answer asked with `bytes` (the home service reading another machine's file
 * through its control channel): the file's bytes in base64 (at most FILE_BYTES_MAX), no path.
 */
export type FileBytesAnswer = { t: 'file'; id: number; file: { type?: string; data: string } | null };

/** A file sent as bytes, at most (base64 in one JSON line, under the socket's line limit). */
export const FILE_BYTES_MAX = 8 * 1024 * 1024;

const KINDS: readonly ClientKind[] = ['serve', 'electron', 'cli'];

/** Read a client's hello line: the hello, or the sentence saying what is wrong with it. */
export function parseClientHello(line: string): ClientHello | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return 'the first line was not JSON: a client starts with {"t":"hello","protocol":1,...}';
  }
  const h = v as Partial<ClientHello> | null;
  if (!h || typeof h !== 'object' || h.t !== 'hello') return 'the first line was not a hello: a client starts with {"t":"hello","protocol":1,...}';
  if (typeof h.protocol !== 'number' || !Number.isSafeInteger(h.protocol)) return 'the hello has no protocol number: send "protocol":1';
  if (typeof h.version !== 'string' || h.version.length > 64) return 'the hello has no version: send the app version as a string';
  if (typeof h.token !== 'string' || !/^[0-9a-f]{1,256}$/.test(h.token)) return 'the hello has no token: read it from run/service.token in the state folder';
  if (!KINDS.includes(h.client as ClientKind)) return `the hello's client ${JSON.stringify(h.client)} is not known: use "serve", "electron" or "cli"`;
  const out: ClientHello = { t: 'hello', protocol: h.protocol, version: h.version, token: h.token, client: h.client as ClientKind };
  if (typeof h.pid === 'number' && Number.isSafeInteger(h.pid) && h.pid > 0) out.pid = h.pid;
  if (typeof h.cwd === 'string' && h.cwd.startsWith('/') && h.cwd.length <= 4096 && !/[\0\n\r]/.test(h.cwd)) out.cwd = h.cwd;
  if (h.binary === true) out.binary = true;
  if (h.firstPane === true) out.firstPane = true;
  return out;
}

/**
 * Splits a byte stream into lines. Feed it chunks; it calls `line` for each complete
 * line and `overflow` once if a line grows past `max` characters (the caller closes).
 */
export class LineSplitter {
  private buf = '';
  private dead = false;
  private readonly onLine: (line: string) => void;
  private readonly onOverflow: () => void;
  private readonly max: number;

  constructor(onLine: (line: string) => void, onOverflow: () => void, max = MAX_LINE) {
    this.onLine = onLine;
    this.onOverflow = onOverflow;
    this.max = max;
  }

  push(chunk: string): void {
    if (this.dead) return;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf('\n', start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      const line = this.buf ? this.buf + piece : piece;
      this.buf = '';
      start = nl + 1;
      if (line.length > this.max) return this.overflow();
      if (line) this.onLine(line);
      if (this.dead) return;
    }
    if (start < chunk.length) {
      this.buf += chunk.slice(start);
      if (this.buf.length > this.max) this.overflow();
    }
  }

  private overflow(): void {
    this.dead = true;
    this.buf = '';
    this.onOverflow();
  }
}
