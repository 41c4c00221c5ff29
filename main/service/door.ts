/**
 * The browser's door in the service (docs/design/service.md, "The browser's door"): serve's
 * HTTP server and WebSockets, run in the service's own process, so a window's bytes go from
 * the core to the browser without a second process reading and writing each of them again.
 *
 * `terminal-delight serve` asks for a door over its service connection (a `door` control
 * frame) and the door stays open while that connection does: serve stopping, or killed,
 * closes it. A serve that starts the service passes the door in the service's environment
 * (`TD_DOOR`), so the door listens before the core has loaded: the page loads meanwhile, and
 * its socket waits for the core. Such a door is claimed by serve's connection when it comes
 * (the same port and token), and closed if none does within a minute. On Unix, serve binds
 * the port itself and hands the listening socket over (main/door/handover.ts), so
 * its URL is out before this process has even loaded the door.
 *
 * A serve at rest (main/serve/rest.ts) asks with a `holder`: the door is then that process's,
 * not its connection's, and closes when the process ends (checked twice a second), so serve
 * can leave Node for /bin/sh. The service keeps the holder's FIFO open for writing while it
 * runs: the holder reads it, and its end (this process gone, however it went) tells the
 * holder to start the service again; a quit tells it to stop too (SIGUSR1). The holder
 * writes "stop" on it as it ends, so the door closes at once.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { App } from '../app.ts';
import { startDoorServer, type Served } from '../door/server.ts';
import { tokensEqual } from '../door/security.ts';
import { processAlive, processStartTicks } from '../panes/proc.ts';
import { parseDoorHolder, parseDoorSpec, type DoorAnswer, type DoorHolder, type DoorSpec } from '../clients/wire.ts';

/** The environment variable a serve that starts the service passes its door in (JSON: a DoorSpec). */
export const DOOR_ENV = 'TD_DOOR';

const UNCLAIMED_MS = 60_000;
/** How often a held door looks whether its holder still runs. */
export const HOLDER_CHECK_MS = 500;

/** A process holding doors (a serve at rest), and the FIFO this service writes to it. */
interface Holder {
  pid: number;
  startTicks?: number;
  /** The FIFO, open for reading and writing: never written here; read for the holder's "stop". */
  fifo: net.Socket;
  fifoPath: string;
  timer: NodeJS.Timeout;
}

interface Door {
  spec: DoorSpec;
  served: Served;
  owner?: object;
  unclaimed?: NodeJS.Timeout;
}

export class Doors {
  private readonly doors = new Map<number, Door>();
  private readonly opening = new Map<number, Promise<Door>>();
  private readonly holders = new Map<number, Holder>();
  private readonly core: Promise<App>;
  private resolveCore!: (app: App) => void;
  private rejectCore!: (err: Error) => void;
  private closed = false;

  constructor() {
    this.core = new Promise<App>((resolve, reject) => {
      this.resolveCore = resolve;
      this.rejectCore = reject;
    });
    this.core.catch(() => undefined);
  }

  /** The core has loaded: windows waiting at a door go in. */
  ready(app: App): void {
    this.resolveCore(app);
  }

  /** The core could not load: windows waiting at a door are told why. */
  failed(err: Error): void {
    this.rejectCore(err);
  }

  /**
   * Open the door a starting serve passed in `TD_DOOR`, unowned until its connection claims
   * it: on `listener` when serve handed its bound socket over (main/door/handover.ts).
   */
  async openAtStart(raw: string, listener?: net.Server): Promise<string | undefined> {
    let v: unknown;
    try {
      v = JSON.parse(raw);
    } catch {
      return `${DOOR_ENV} is not JSON: serve passes {"host":...,"port":N,"token":"..."}`;
    }
    const spec = parseDoorSpec(v);
    if (typeof spec === 'string') {
      listener?.close();
      return spec;
    }
    try {
      const door = await this.open(spec, listener);
      door.unclaimed = setTimeout(() => {
        if (!door.owner) this.close(door);
      }, UNCLAIMED_MS);
      door.unclaimed.unref();
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  }

  /**
   * A `door` control frame from `owner` (a service connection): open it, or claim the one
   * opened at start. With a `holder`, the door is that process's from then on (its FIFO, in
   * `runDir`, opened for writing), and the connection may close.
   */
  async answer(frame: { id?: unknown; host?: unknown; port?: unknown; token?: unknown; holder?: unknown }, owner: object, ownerGone: () => boolean, runDir?: string): Promise<DoorAnswer> {
    const id = typeof frame.id === 'number' && Number.isSafeInteger(frame.id) ? frame.id : -1;
    const spec = parseDoorSpec(frame);
    if (typeof spec === 'string') return { t: 'door', id, ok: false, error: spec };
    if (this.closed) return { t: 'door', id, ok: false, error: 'the service is stopping: start serve again in a moment' };
    let holder: Holder | undefined;
    if (frame.holder !== undefined) {
      const h = parseDoorHolder(frame.holder);
      if (typeof h === 'string') return { t: 'door', id, ok: false, error: h };
      const held = this.holderFor(h, runDir);
      if (typeof held === 'string') return { t: 'door', id, ok: false, error: held };
      holder = held;
    }
    try {
      const existing = this.doors.get(spec.port) ?? (await this.opening.get(spec.port));
      let door: Door;
      if (existing) {
        if (existing.owner && existing.owner !== owner) return { t: 'door', id, ok: false, error: `port ${spec.port} is already another serve's door: pick another with --port, or 0 for a free one` };
        if (!tokensEqual(spec.token, existing.spec.token) || existing.spec.host !== spec.host) return { t: 'door', id, ok: false, error: `port ${spec.port} is already a door with another token: pick another with --port, or 0 for a free one` };
        door = existing;
      } else {
        door = await this.open(spec);
      }
      clearTimeout(door.unclaimed);
      if (holder) {
        door.owner = holder;
        return { t: 'door', id, ok: true, url: door.served.url, port: door.served.port, held: true };
      }
      door.owner = owner;
      // The connection went while the door opened: nobody will close it.
      if (ownerGone()) {
        this.release(owner);
        return { t: 'door', id, ok: false, error: 'the connection closed while its door opened' };
      }
      return { t: 'door', id, ok: true, url: door.served.url, port: door.served.port };
    } catch (err) {
      if (holder) this.dropHolder(holder);
      return { t: 'door', id, ok: false, error: (err as Error).message };
    }
  }

  /**
   * Before this service stops for good: every holder hears it. SIGUSR1, a quit ("Quit and end
   * all panes"): serve stops too; SIGUSR2, a stop on purpose: serve waits for a window to ask
   * for the service again instead of starting it (main/serve/rest.ts).
   */
  signalHolders(sig: 'SIGUSR1' | 'SIGUSR2'): void {
    for (const h of this.holders.values()) {
      try {
        process.kill(h.pid, sig);
      } catch {
        // gone already
      }
    }
  }

  /** The holder `h` names, watched from now on; or why it cannot hold a door. */
  private holderFor(h: DoorHolder, runDir: string | undefined): Holder | string {
    const known = this.holders.get(h.pid);
    if (known) return known;
    if (!runDir || path.dirname(h.fifo) !== runDir) return 'the door\'s holder FIFO is not in the service\'s run folder: make it there';
    let fd: number;
    try {
      const st = fs.lstatSync(h.fifo);
      if (!st.isFIFO() || (process.getuid && st.uid !== process.getuid())) return `${h.fifo} is not a FIFO of this user's: make it with mkfifo -m 600`;
      // Read and write, so opening waits for no reader; written only to say nothing (its end is the message).
      fd = fs.openSync(h.fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK | fs.constants.O_NOFOLLOW);
    } catch (err) {
      return `the door's holder FIFO could not be opened: ${(err as Error).message}`;
    }
    if (!processAlive(h.pid)) {
      fs.closeSync(fd);
      return `process ${h.pid} does not run: a door's holder is the serve asking`;
    }
    // The holder says "stop" on the FIFO as it ends (its door closes at once, the port free for
    // the next serve); ended any other way, the check twice a second finds it gone.
    const fifo = new net.Socket({ fd, readable: true, writable: false });
    const holder: Holder = { pid: h.pid, startTicks: processStartTicks(h.pid), fifo, fifoPath: h.fifo, timer: setInterval(() => {
      if (!processAlive(holder.pid, holder.startTicks)) this.dropHolder(holder);
    }, HOLDER_CHECK_MS) };
    holder.timer.unref();
    let said = '';
    fifo.setEncoding('utf8');
    fifo.on('data', (d: string) => {
      said = (said + d).slice(-64);
      if (said.includes('stop\n')) this.dropHolder(holder);
    });
    fifo.on('error', () => this.dropHolder(holder));
    fifo.unref();
    this.holders.set(h.pid, holder);
    return holder;
  }

  /**
   * A holder ended (or this service stops): its doors close, and its FIFO with them, whose
   * end lets a reader the holder left behind (killed with SIGKILL, its `cat` lives on) go too.
   */
  private dropHolder(holder: Holder): void {
    if (this.holders.get(holder.pid) !== holder) return;
    this.holders.delete(holder.pid);
    clearInterval(holder.timer);
    this.release(holder);
    // (Removed before it is closed: a holder starting the service again makes a new one only after its end.)
    fs.rmSync(holder.fifoPath, { force: true });
    holder.fifo.destroy();
  }

  /** `owner`'s connection closed: its doors close (their windows reconnect to the next serve's). */
  release(owner: object): void {
    for (const door of [...this.doors.values()]) if (door.owner === owner) this.close(door);
  }

  /** How many doors are open. */
  get size(): number {
    return this.doors.size;
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.doors.values()].map((d) => this.close(d)));
    // Their FIFOs' end tells the holders this service went (the process ending would too).
    for (const h of [...this.holders.values()]) this.dropHolder(h);
  }

  private async open(spec: DoorSpec, listener?: net.Server): Promise<Door> {
    const opening = (async (): Promise<Door> => {
      const served = await startDoorServer({ core: this.core, host: spec.host, port: spec.port, token: spec.token, listener });
      const door: Door = { spec, served };
      this.doors.set(spec.port, door);
      return door;
    })();
    this.opening.set(spec.port, opening);
    try {
      return await opening;
    } finally {
      this.opening.delete(spec.port);
    }
  }

  private close(door: Door): Promise<void> {
    clearTimeout(door.unclaimed);
    if (this.doors.get(door.spec.port) === door) this.doors.delete(door.spec.port);
    return door.served.close();
  }
}
