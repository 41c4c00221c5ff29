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
 * the port itself and hands the listening socket over (main/service/door-handover.ts), so
 * its URL is out before this process has even loaded the door.
 */
import type net from 'node:net';
import type { App } from '../app.ts';
import { startServe, type Served } from '../serve/server.ts';
import { tokensEqual } from '../serve/security.ts';
import { parseDoorSpec, type DoorAnswer, type DoorSpec } from './wire.ts';

/** The environment variable a serve that starts the service passes its door in (JSON: a DoorSpec). */
export const DOOR_ENV = 'TD_DOOR';

const UNCLAIMED_MS = 60_000;

interface Door {
  spec: DoorSpec;
  served: Served;
  owner?: object;
  unclaimed?: NodeJS.Timeout;
}

export class Doors {
  private readonly doors = new Map<number, Door>();
  private readonly opening = new Map<number, Promise<Door>>();
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
   * it: on `listener` when serve handed its bound socket over (main/service/door-handover.ts).
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

  /** A `door` control frame from `owner` (a service connection): open it, or claim the one opened at start. */
  async answer(frame: { id?: unknown; host?: unknown; port?: unknown; token?: unknown }, owner: object, ownerGone: () => boolean): Promise<DoorAnswer> {
    const id = typeof frame.id === 'number' && Number.isSafeInteger(frame.id) ? frame.id : -1;
    const spec = parseDoorSpec(frame);
    if (typeof spec === 'string') return { t: 'door', id, ok: false, error: spec };
    if (this.closed) return { t: 'door', id, ok: false, error: 'the service is stopping: start serve again in a moment' };
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
      door.owner = owner;
      // The connection went while the door opened: nobody will close it.
      if (ownerGone()) {
        this.release(owner);
        return { t: 'door', id, ok: false, error: 'the connection closed while its door opened' };
      }
      return { t: 'door', id, ok: true, url: door.served.url, port: door.served.port };
    } catch (err) {
      return { t: 'door', id, ok: false, error: (err as Error).message };
    }
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
  }

  private async open(spec: DoorSpec, listener?: net.Server): Promise<Door> {
    const opening = (async (): Promise<Door> => {
      const served = await startServe({ core: this.core, host: spec.host, port: spec.port, token: spec.token, listener });
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
