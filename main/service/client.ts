/**
 * A client of the service (docs/design/service.md): connect to its socket, starting the
 * service first when none runs, say hello with the token, then speak the contract.
 * Relays (serve, the Electron main) pass lines through as text; commands use `request`.
 *
 * `spawnService` is the one way the core is started, whatever the entry point, with the
 * same V8 flags everywhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { EventName, Events, Req, RequestName, Res, ServerFrame, ViaServerFrame } from '../../preload/contract.ts';
import { VIA_OUTPUT_FRAME } from '../../preload/contract.ts';
import { appRoot } from '../panes/env.ts';
import { statePaths, type Paths } from '../paths.ts';
import { appVersion, PROTOCOL } from '../version.ts';
import { decodeOutputFrame } from '../../preload/output-frame.ts';
import { FrameSplitter } from '../clients/frames.ts';
import { CORE_MALLOC_ENV, SERVICE_ONLY_ENV } from './service-env.ts';
import { DOOR_HANDOVER_ENV, HANDOVER_SUPPORTED, handDoorOver } from '../door/handover.ts';
import { holderAlive, lockHeld, readLock, type LockRecord } from './lock.ts';
import { MAX_LINE, type ClientHello, type ClientKind, type ControlFrame, type DoorAnswer, type DoorHolder, type DoorSpec, type FileAnswer, type FirstPaintAnswer, type FirstPaintFrameAnswer, type ServiceHello } from '../clients/wire.ts';
import { anyNewer } from '../newer-files.ts';

export interface ConnectOptions {
  env?: NodeJS.ProcessEnv;
  client: ClientKind;
  /** Where this client's first pane starts when the layout is empty. */
  cwd?: string;
  /** Start the service when none answers (default true). */
  start?: boolean;
  /** For a service this call starts: come up with an empty session. */
  fresh?: boolean;
  /** How long to wait for a service to answer, started or not (default 20 s). */
  timeoutMs?: number;
  /** Another socket and token file than the state folder's (an SSH-forwarded service). */
  socketPath?: string;
  tokenFile?: string;
  /** Take `pane.output` as binary frames (a relay to a window that asked for them). */
  binary?: boolean;
  /** A relay about to open a window: the service starts the first pane now when the layout is empty (wire.ts). */
  firstPane?: boolean;
  /** A service this call starts opens this door first thing, before its core loads (main/service/door.ts). */
  door?: DoorSpec;
  /**
   * serve's socket already listening on the door's port (Unix): handed to a service this call
   * starts (main/door/handover.ts), else closed before the call resolves, so that a
   * service already running can bind the port. `onDoorHandover` says which, once: true when
   * the started service holds it (serve can print its URL at once).
   */
  doorListener?: net.Server;
  onDoorHandover?: (handed: boolean) => void;
}

type Hello = Extract<ServiceHello, { ok: true }>;

/**
 * V8 flags the core always runs with: a small young generation, so a flood's garbage is
 * collected early instead of growing resident memory (bench/window.bench.ts, bench/peer.bench.ts:
 * semi-spaces of 4 MiB peak ~15 MiB lower in a flood than 8, at the same CPU within the noise;
 * 3, 2 or 1 promote so much more that the old generation grows past that), and `gc()` for giving
 * memory back once a flood is over (main/service/memory.ts).
 */
export const CORE_V8_FLAGS = ['--max-semi-space-size=4', '--expose-gc'];

/** What to run to start the service here: the same runtime as this process (Electron's as Node, in the app). */
export function serviceCommand(env: NodeJS.ProcessEnv = process.env): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
  const bundle = path.join(appRoot, 'out', 'service', 'service.mjs');
  const source = path.join(appRoot, 'main', 'service', 'main.ts');
  const useBundle = fs.existsSync(bundle) && bundleIsCurrent(bundle);
  const args = [...CORE_V8_FLAGS, ...(useBundle ? [bundle] : ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', source])];
  const childEnv: NodeJS.ProcessEnv = { ...env };
  // (A list inherited from a service's own start is not this one's.)
  delete childEnv[SERVICE_ONLY_ENV];
  // What the environment already says stays (a person's own allocator settings reach their panes as before).
  const added = process.platform === 'linux' ? Object.keys(CORE_MALLOC_ENV).filter((k) => childEnv[k] === undefined) : [];
  for (const k of added) childEnv[k] = CORE_MALLOC_ENV[k];
  // In Electron (the packaged app, the Electron main, or its binary running the CLI), its
  // binary runs as plain Node. Never passed on to panes, on either runtime: bin/terminal-delight
  // sets it for every run of the CLI, so where this process has it, it is the app's (a person's
  // own comes back in a pane with their login shell's profile).
  if (process.versions.electron) childEnv.ELECTRON_RUN_AS_NODE = '1';
  if (childEnv.ELECTRON_RUN_AS_NODE !== undefined) added.push('ELECTRON_RUN_AS_NODE');
  if (added.length > 0) childEnv[SERVICE_ONLY_ENV] = added.join(',');
  return { file: process.execPath, args, env: childEnv };
}

/**
 * The bundle is used where the sources are not there to be newer (the packaged app), or
 * when it is at least as new as every source file of the core (a build since the last edit).
 */
function bundleIsCurrent(bundle: string): boolean {
  const mainDir = path.join(appRoot, 'main');
  if (!fs.existsSync(mainDir) || appRoot.includes('app.asar')) return true;
  return !anyNewer([mainDir, path.join(appRoot, 'preload'), path.join(appRoot, 'common')], fs.statSync(bundle).mtimeMs, /\.(ts|mjs|js)$/);
}

/**
 * Start the service detached (its own session; stdio on run/service.log), not waiting for it.
 * With `doorListener` (and a door), a channel is opened for handing that socket over
 * (`handDoorOver`), closed once it is.
 */
export function spawnService(opts: { env?: NodeJS.ProcessEnv; fresh?: boolean; door?: DoorSpec; doorListener?: net.Server } = {}): ChildProcess {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  fs.mkdirSync(paths.run, { recursive: true, mode: 0o700 });
  // The log keeps the last run's tail; a long one is started afresh.
  try {
    if (fs.statSync(paths.serviceLog).size > 1024 * 1024) fs.rmSync(paths.serviceLog);
  } catch {
    // none yet
  }
  const log = fs.openSync(paths.serviceLog, 'a', 0o600);
  const cmd = serviceCommand(env);
  try {
    // In the home folder: a long-lived process never pins another folder (a mount, a worktree
    // to delete); panes start where each window asks (its hello's cwd), else in the home folder.
    const home = env.HOME && path.isAbsolute(env.HOME) && fs.existsSync(env.HOME) ? env.HOME : os.homedir();
    const handover = Boolean(opts.door && opts.doorListener && HANDOVER_SUPPORTED);
    const child = spawn(cmd.file, [...cmd.args, ...(opts.fresh ? ['--fresh'] : [])], {
      cwd: home,
      // The door's token goes in the environment, not argv (which any user's `ps` shows); the
      // service takes it out before anything it starts inherits its environment.
      env: opts.door ? { ...cmd.env, TD_DOOR: JSON.stringify(opts.door), ...(handover ? { [DOOR_HANDOVER_ENV]: '1' } : {}) } : cmd.env,
      detached: true,
      stdio: handover ? ['ignore', log, log, 'ipc'] : ['ignore', log, log],
    });
    child.on('error', () => {});
    child.unref();
    return child;
  } finally {
    fs.closeSync(log);
  }
}

function tail(file: string, chars = 600): string {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text.slice(-chars);
  } catch {
    return '';
  }
}

export class ServiceError extends Error {}

/** A connection to the service after a good hello. */
export class ServiceConnection extends EventEmitter {
  readonly hello: Hello;
  private readonly socket: net.Socket;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; name: string; machine?: string }>();
  private readonly files = new Map<number, (file: FileAnswer['file']) => void>();
  private readonly doors = new Map<number, (answer: DoorAnswer) => void>();
  private readonly paints = new Map<number, (answer: FirstPaintAnswer | undefined) => void>();
  private nextId = 1;
  private closed = false;
  private relay: ((data: Buffer, binary: boolean) => void) | undefined;

  constructor(socket: net.Socket, hello: Hello, rest: Buffer) {
    super();
    this.setMaxListeners(0);
    this.socket = socket;
    this.hello = hello;
    const split = new FrameSplitter((line) => this.line(line), (frame) => this.frame(frame), () => this.close(), MAX_LINE);
    socket.on('data', (chunk: Buffer) => split.push(chunk));
    socket.on('close', () => this.gone());
    socket.on('error', () => this.gone());
    if (rest.length) split.push(rest);
  }

  /**
   * Pass every line (JSON, `binary` false) and binary frame after the hello to `fn` as the
   * bytes that came (relays), instead of handling them here.
   */
  relayTo(fn: (data: Buffer, binary: boolean) => void): void {
    this.relay = fn;
  }

  /** Send one frame's text (a relay passing a window's frame through). */
  sendLine(text: string): void {
    if (!this.closed) this.socket.write(text + '\n');
  }

  /** Characters queued to the service and not yet written. */
  get backlog(): number {
    return this.socket.writableLength;
  }

  /** Stop reading from the service (a relay whose window is behind) and start again. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  request<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
    if (this.closed) return Promise.reject(new ServiceError(`the service connection is closed, so "${name}" was not sent`));
    const id = this.nextId++;
    return new Promise<Res<K>>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, name });
      this.socket.write(JSON.stringify({ t: 'req', id, name, req }) + '\n');
    });
  }

  /**
   * A request for another machine's service, through this one (docs/design/remote.md, "One
   * window, many machines"): sent as `{"t":"via","m":MACHINE,"f":<req>}` and answered through
   * the same; the far service's events for this connection come as `via` events
   * (`on('via', (machine, name, payload) => …)`, pane ids as that machine gives them), its
   * pings are answered here.
   */
  requestVia(machine: string, name: string, req: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new ServiceError(`the service connection is closed, so "${name}" was not sent`));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, name, machine });
      this.socket.write(JSON.stringify({ t: 'via', m: machine, f: { t: 'req', id, name, req } }) + '\n');
    });
  }

  /** Acknowledge a far pane's output (its id as its machine gives it), as a window does; no answer. */
  ackVia(machine: string, paneId: string, chars: number): void {
    if (!this.closed) this.socket.write(JSON.stringify({ t: 'via', m: machine, f: { t: 'ack', paneId, chars } }) + '\n');
  }

  /** Resolve a file route (core.serveFiles) through the service: serve's HTTP and Electron's app:// ask here. */
  resolveFile(prefix: string, rest: string): Promise<FileAnswer['file']> {
    if (this.closed) return Promise.reject(new ServiceError('the service connection is closed'));
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.files.set(id, resolve);
      this.socket.write(JSON.stringify({ t: 'file', id, prefix, rest }) + '\n');
    });
  }

  /**
   * The theme and first paint for a window about to load (main/door/first-paint.ts), for a
   * relay's or Electron's index.html; undefined from a service too old to draw one, or gone.
   */
  firstPaint(ask: { theme?: string; prefers?: string; themeOnly?: boolean }, timeoutMs = 5_000): Promise<FirstPaintAnswer | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      // A service that never answers leaves nothing waiting here.
      const timer = setTimeout(() => {
        this.paints.delete(id);
        resolve(undefined);
      }, timeoutMs);
      timer.unref?.();
      this.paints.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.socket.write(JSON.stringify({ t: 'first-paint', id, ...ask }) + '\n');
    });
  }

  /**
   * Ask the service to open the browser's door (main/service/door.ts), open while this
   * connection is, or while `holder` runs (a serve at rest; the answer says `held`). A service
   * that does not know doors answers that it is not a request.
   */
  openDoor(spec: DoorSpec, holder?: DoorHolder): Promise<DoorAnswer> {
    if (this.closed) return Promise.resolve({ t: 'door', id: -1, ok: false, error: 'the service connection is closed' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.doors.set(id, resolve);
      this.socket.write(JSON.stringify({ t: 'door', id, ...spec, ...(holder ? { holder } : {}) }) + '\n');
    });
  }

  /** Events the service pushes (for clients that do not relay). */
  onEvent<K extends EventName>(name: K, fn: (payload: Events[K]) => void): () => void {
    const h = (n: EventName, p: unknown): void => {
      if (n === name) fn(p as Events[K]);
    };
    this.on('event', h);
    return () => this.off('event', h);
  }

  close(): void {
    if (this.closed) return;
    this.socket.destroy();
    this.gone();
  }

  private frame(bytes: Buffer): void {
    if (this.relay) return this.relay(bytes, true);
    if (bytes[0] === VIA_OUTPUT_FRAME && bytes.length > 2) {
      // Another machine's output: its name, then its frame.
      const n = bytes[1]!;
      const out = decodeOutputFrame(bytes.subarray(2 + n));
      if (out) this.emit('via', bytes.subarray(2, 2 + n).toString('latin1'), 'pane.output', out);
      return;
    }
    const out = decodeOutputFrame(bytes);
    if (out) this.emit('event', 'pane.output', out);
  }

  private via(v: ViaServerFrame): void {
    const f = v.f;
    if (!f || typeof f !== 'object' || typeof v.m !== 'string') return;
    if (f.t === 'ping') {
      this.socket.write(JSON.stringify({ t: 'via', m: v.m, f: { t: 'pong' } }) + '\n');
    } else if (f.t === 'res') {
      const p = this.pending.get(f.id);
      if (!p || p.machine !== v.m) return;
      this.pending.delete(f.id);
      if (f.ok) p.resolve(f.res);
      else p.reject(new ServiceError(f.error));
    } else if (f.t === 'evt') {
      this.emit('via', v.m, f.name, f.payload);
    }
  }

  private line(bytes: Buffer): void {
    if (this.relay) return this.relay(bytes, false);
    let frame: ServerFrame | { t: 'ping' } | ViaServerFrame | FileAnswer | DoorAnswer | FirstPaintFrameAnswer | Extract<ControlFrame, { t: 'bye' }>;
    try {
      frame = JSON.parse(bytes.toString('utf8')) as typeof frame;
    } catch {
      return;
    }
    if (frame.t === 'via') {
      this.via(frame);
    } else if (frame.t === 'bye') {
      this.emit('bye', frame);
    } else if (frame.t === 'door' || (frame.t === 'res' && this.doors.has(frame.id))) {
      const done = this.doors.get(frame.id);
      this.doors.delete(frame.id);
      done?.(frame.t === 'door' ? frame : { t: 'door', id: frame.id, ok: false, error: frame.ok ? 'the service did not open a door' : frame.error });
    } else if (frame.t === 'first-paint' || (frame.t === 'res' && this.paints.has(frame.id))) {
      // (A service that does not know the frame answers that it is not a request: no first paint.)
      const done = this.paints.get(frame.id);
      this.paints.delete(frame.id);
      // Only a theme a first paint can be in (withAnswer bounds the markup).
      done?.(frame.t === 'first-paint'
        ? { theme: frame.theme === 'light' || frame.theme === 'dark' ? frame.theme : null, markup: typeof frame.markup === 'string' ? frame.markup : null }
        : undefined);
    } else if (frame.t === 'file') {
      const done = this.files.get(frame.id);
      this.files.delete(frame.id);
      done?.(frame.file);
    } else if (frame.t === 'ping') {
      this.socket.write('{"t":"pong"}\n');
    } else if (frame.t === 'res') {
      const p = this.pending.get(frame.id);
      if (!p || p.machine !== undefined) return;
      this.pending.delete(frame.id);
      if (frame.ok) p.resolve(frame.res);
      else p.reject(new ServiceError(frame.error));
    } else if (frame.t === 'evt') {
      this.emit('event', frame.name, frame.payload);
    }
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new ServiceError(`the service went away before "${p.name}" was answered`));
    }
    for (const [id, done] of this.files) {
      this.files.delete(id);
      done(null);
    }
    for (const [id, done] of this.doors) {
      this.doors.delete(id);
      done({ t: 'door', id, ok: false, error: 'the service went away before it opened the door' });
    }
    for (const [id, done] of this.paints) {
      this.paints.delete(id);
      done(undefined);
    }
    this.emit('close');
  }
}

function clientHello(opts: ConnectOptions, token: string): ClientHello {
  const h: ClientHello = { t: 'hello', protocol: PROTOCOL, version: appVersion(), token, client: opts.client, pid: process.pid };
  if (opts.cwd) h.cwd = opts.cwd;
  if (opts.binary) h.binary = true;
  if (opts.firstPane) h.firstPane = true;
  return h;
}

/** One attempt: connect and say hello. Rejects with the socket error's code when nothing listens. */
function attempt(paths: Paths, opts: ConnectOptions, socketPath: string, tokenFile: string): Promise<ServiceConnection> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    let buf: Buffer = Buffer.alloc(0);
    let done = false;
    const fail = (err: Error): void => {
      if (done) return;
      done = true;
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(Object.assign(new ServiceError('the service accepted the connection but did not answer its hello within 10 s'), { code: 'ETIMEDOUT' })), 10_000);
    socket.once('error', (err) => {
      clearTimeout(timer);
      fail(err);
    });
    socket.once('connect', () => {
      let token: string;
      try {
        token = fs.readFileSync(tokenFile, 'utf8').trim();
      } catch {
        clearTimeout(timer);
        return fail(Object.assign(new ServiceError(`the service's token ${tokenFile} cannot be read`), { code: 'ENOTOKEN' }));
      }
      socket.write(JSON.stringify(clientHello(opts, token)) + '\n');
    });
    const onData = (chunk: Buffer): void => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const nl = buf.indexOf(10);
      if (nl < 0) {
        if (buf.length > 65536) fail(new ServiceError('the service answered the hello with something that is not a hello'));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      let hello: ServiceHello;
      try {
        hello = JSON.parse(buf.subarray(0, nl).toString('utf8')) as ServiceHello;
      } catch {
        return fail(new ServiceError('the service answered the hello with something that is not JSON'));
      }
      if (!hello || hello.t !== 'hello') return fail(new ServiceError('the service answered the hello with something that is not a hello'));
      if (!hello.ok) return fail(Object.assign(new ServiceError(hello.error), { code: 'EREFUSED', service: hello }));
      done = true;
      socket.removeAllListeners('error');
      resolve(new ServiceConnection(socket, hello, buf.subarray(nl + 1)));
    };
    socket.on('data', onData);
    void paths;
  });
}

const NOBODY = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTOKEN', 'ECONNRESET', 'EPIPE']);

/** Connect to the service, starting it when none answers (and `start` is not false). */
export async function connectService(opts: ConnectOptions): Promise<ServiceConnection> {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  const socketPath = opts.socketPath ?? paths.serviceSocket;
  const tokenFile = opts.tokenFile ?? paths.serviceToken;
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  let child: ChildProcess | undefined;
  let childExit: number | null | undefined;
  let childSignal: NodeJS.Signals | null = null;
  // serve's bound door socket: handed to a service started here, else closed when this call ends.
  let listener = opts.doorListener;
  const handover = (handed: Promise<boolean> | false): void => {
    const l = listener;
    if (!l) return;
    listener = undefined;
    if (handed === false) l.close();
    void Promise.resolve(handed).then((ok) => opts.onDoorHandover?.(ok));
  };
  try {
    return await connectOrStart();
  } finally {
    handover(false);
  }

  async function connectOrStart(): Promise<ServiceConnection> {
    for (let tries = 0; ; tries++) {
      try {
        return await attempt(paths, opts, socketPath, tokenFile);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (!NOBODY.has(code)) throw err;
      }
      // A service elsewhere (a forwarded socket) is never started from here.
      if (opts.socketPath) throw new ServiceError(`nothing answers on ${opts.socketPath}: check that the SSH forward runs and that Terminal Delight's service runs on the other side`);
      // One holds the lock and does not answer yet: it is starting (its core loading); wait for it.
      const starting = lockHeld(paths.serviceLock);
      if (opts.start === false && !starting) throw new ServiceError(`no Terminal Delight service runs for ${paths.state}: start the app (npm start) or \`terminal-delight service start\``);
      if (!child && !starting) {
        child = spawnService({ env, fresh: opts.fresh, door: opts.door, doorListener: listener });
        handover(listener && opts.door && HANDOVER_SUPPORTED ? handDoorOver(child, listener) : false);
        child.once('exit', (code, signal) => {
          childExit = code;
          childSignal = signal;
        });
      }
      if (childExit === null && childSignal) {
        throw new ServiceError(`the Terminal Delight service was stopped by ${childSignal} as it started; its log is ${paths.serviceLog}`);
      }
      if (childExit !== undefined && childExit !== 0) {
        const why = tail(paths.serviceLog).split('\n').filter(Boolean).pop() ?? '';
        throw new ServiceError(`the Terminal Delight service could not start (exit ${childExit})${why ? `: ${why}` : ''}; its log is ${paths.serviceLog}`);
      }
      if (Date.now() > deadline) {
        throw new ServiceError(`the Terminal Delight service did not answer on ${socketPath} within ${Math.round((opts.timeoutMs ?? 20_000) / 1000)} s; its log is ${paths.serviceLog}`);
      }
      // A service just spawned listens within about a second: asked often until then (a window's first prompt waits on it).
      await new Promise((r) => setTimeout(r, tries < 100 ? 20 : 200));
    }
  }
}

/** Whether a live service has written its record in this state folder's lock: it runs, or is starting and will answer soon. */
export function serviceStarting(env: NodeJS.ProcessEnv = process.env): boolean {
  const rec = readLock(statePaths(env).serviceLock);
  return rec !== undefined && rec !== 'empty' && holderAlive(rec);
}

/**
 * Stop the service that runs for this state folder, if one does: a `shutdown` line (every
 * protocol version takes it), then wait for the lock to go. `endPanes` asks through the
 * contract first, so every pane is ended cleanly. Resolves false when none ran. A live
 * service that does not answer its hello (busy, or stopped) is still sent the line; one that
 * still holds the lock `timeoutMs` (15 s) after it makes this reject with a ServiceError
 * naming its pid: a caller never goes on as if it had stopped (and, say, deletes its folders
 * under it).
 */
export async function stopService(opts: { env?: NodeJS.ProcessEnv; endPanes?: boolean; reason?: string; timeoutMs?: number } = {}): Promise<boolean> {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  // The live service holding the lock (or one writing its record, lockHeld), if any.
  const holder = (): LockRecord | 'empty' | undefined => (lockHeld(paths.serviceLock) ? readLock(paths.serviceLock) : undefined);
  let conn: ServiceConnection | undefined;
  try {
    conn = await connectService({ env, client: 'cli', start: false, timeoutMs: 3_000 });
  } catch (err) {
    // Nothing answers and no live process holds the lock: none runs.
    if ((err as { code?: string }).code !== 'EREFUSED' && !holder()) return false;
  }
  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  if (conn && opts.endPanes) {
    // Not past the deadline: a service that answers its hello, then never its quit (its loop held), is said below.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      conn.request('service.quit', { endPanes: true }).catch(() => undefined),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now())))),
    ]);
    clearTimeout(timer);
  } else {
    // A service of another protocol version refuses the hello but still takes this line.
    const token = (() => {
      try {
        return fs.readFileSync(paths.serviceToken, 'utf8').trim();
      } catch {
        return '';
      }
    })();
    conn?.close();
    await new Promise<void>((resolve) => {
      const s = net.createConnection(paths.serviceSocket);
      // A service that does not read (stopped, its loop held) never closes its end: the wait below says so.
      const t = setTimeout(() => {
        s.destroy();
        resolve();
      }, Math.max(0, deadline - Date.now()));
      const done = (): void => {
        clearTimeout(t);
        resolve();
      };
      s.on('error', done);
      s.on('connect', () => {
        s.end(JSON.stringify({ t: 'shutdown', token, reason: opts.reason ?? 'asked' }) + '\n');
      });
      s.on('close', done);
    });
  }
  while (holder() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  conn?.close();
  const left = holder();
  if (left) {
    const who = left === 'empty' ? 'a service starting' : `the service (pid ${left.pid})`;
    throw new ServiceError(`${who} did not stop within ${Math.round((opts.timeoutMs ?? 15_000) / 1000)} s of being asked to; it still holds ${paths.serviceLock} (its log is ${paths.serviceLog})`);
  }
  return true;
}
