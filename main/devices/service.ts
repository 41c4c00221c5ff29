/**
 * The device door's service in the core: the `devices.*` requests (the settings and
 * `terminal-delight devices`), the door's life (on at start when it was on), pairing,
 * revoking, and the device contract behind the door: the inbox and the agents list, pushed
 * to every device's socket as they change, and a device's answer, which goes through the
 * very request a click on the desktop sends (`surface.act`: the same actions.jsonl record,
 * the same line typed into the same pane).
 */
import net from 'node:net';
import type { DevicePairing, DevicesState } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { PaneServiceApi, SurfaceServiceApi } from '../services.ts';
import { madeCert, readSupplied, type CertPair } from './cert.ts';
import { startDeviceDoor, REVOKED_CODE, type DeviceApi, type DeviceDoor } from './door.ts';
import { agentsOf, answerProblem, inboxOf, newestFirst, programOf, type AgentRow, type InboxCard } from './inbox.ts';
import { FarCards, type MachinesLike } from './far.ts';
import { isQualifiedPaneId, splitPaneId } from '../../common/pane-id.ts';
import { PEEK_SCROLLBACK } from '../panes/handlers.ts';
import { endedSentence, makeOffer, Pairing, pairingMs } from './pairing.ts';
import { checkNotify, PushCenter } from './push.ts';
import { deviceInput } from '../../common/device-keys.ts';
import { DEFAULT_NOTIFY, DeviceStore, type DeviceRecord, type DoorConfig } from './store.ts';
import type { MachineInfo, PaneInfo } from '../../preload/contract.ts';

import { DEFAULT_PORT } from '../../common/device-address.ts';

export { DEFAULT_PORT };

/** An address a person typed, checked: a string says what is wrong. `0.0.0.0` and `::` only with `allInterfaces`. */
export function checkAddress(address: unknown, allInterfaces = false): string | undefined {
  if (typeof address !== 'string' || !address.trim()) return 'give the address the door listens on: a LAN or tailnet address of this machine (ip addr shows them), or 127.0.0.1 for a tunnel of your own';
  const a = address.trim();
  if (!net.isIP(a)) return `"${a}" is not an IP address: give one of this machine's addresses, such as 192.168.1.20 or 100.101.102.103`;
  if ((a === '0.0.0.0' || a === '::') && !allInterfaces) return `${a} would open the door on every network this machine is on: give one address, or confirm with --all-interfaces`;
  return undefined;
}

/** How often a watched agent's screen is sent at most. */
const SCREEN_MS = 250;
/** Lines of history a watched agent's screen carries (the phone scrolls back through them). */
const SCREEN_HISTORY = PEEK_SCROLLBACK;
/** How often a watched far agent's screen is read again (its output does not come here: it is peeked). */
const FAR_SCREEN_MS = 1000;

interface Open {
  door: DeviceDoor;
  config: DoorConfig;
  cert: CertPair;
}

export class DeviceService {
  /** The clock (tests move it to see a pairing expire). */
  now: () => number = Date.now;
  private readonly store: DeviceStore;
  private readonly core: Core;
  private readonly panes: PaneServiceApi;
  private readonly surfaces: SurfaceServiceApi;
  private open: Open | undefined;
  private problem: string | undefined;
  private pairing: { p: Pairing; owner: string; paired?: string } | undefined;
  private readonly revokedHashes = new Set<string>();
  private lastInbox = '';
  private lastAgents = '';
  private pushTimer: NodeJS.Timeout | undefined;
  private starting: Promise<unknown> = Promise.resolve();
  /** Web Push to the devices that subscribed (push.ts). */
  readonly pushes: PushCenter;
  private readonly machines: MachinesLike | undefined;
  /** The cards of connected machines (far.ts), once the door is open. */
  private far: FarCards | undefined;

  constructor(deps: DeviceDeps) {
    this.core = deps.core;
    this.panes = deps.panes;
    this.surfaces = deps.surfaces;
    this.machines = deps.machines;
    this.store = new DeviceStore(deps.stateDir);
    this.pushes = new PushCenter({ dir: this.store.dir, store: this.store, now: () => this.now() });
  }

  install(): void {
    const { core } = this;
    core.handle('devices.state', () => this.state());
    core.handle('devices.enable', async (req) => {
      const bad = checkAddress(req.address, req.allInterfaces === true);
      if (bad) return { ok: false, error: bad };
      const port = req.port ?? DEFAULT_PORT;
      if (!Number.isInteger(port) || port < 0 || port > 65535) return { ok: false, error: `port ${String(port)} is not usable: give a whole number from 1 to 65535` };
      if ((req.cert === undefined) !== (req.key === undefined)) return { ok: false, error: 'give both --cert and --key (the certificate and its private key), or neither for one the app makes' };
      const config: DoorConfig = { address: req.address.trim(), port, ...(req.cert ? { cert: req.cert, key: req.key } : {}) };
      const err = await this.start(config);
      if (err) return { ok: false, error: err };
      // The port it got (a free one for 0), so the QR codes of devices paired now stay true.
      this.store.setDoor({ ...config, port: this.open!.door.port });
      this.changed();
      return { ok: true, state: this.state() };
    });
    core.handle('devices.disable', async () => {
      this.store.setDoor(undefined);
      await this.stop();
      this.problem = undefined;
      this.changed();
      return this.state();
    });
    core.handle('devices.pair', (_req, client) => this.openPairing(client.id));
    core.handle('devices.pairEnd', () => {
      this.endPairing('closed');
    });
    core.handle('devices.allowTyping', ({ name, allow }) => {
      const d = typeof name === 'string' ? this.store.byName(name) : undefined;
      if (!d) return { ok: false, error: `no device is named "${String(name)}": terminal-delight devices list shows them` };
      this.store.setCanType(d.hash, allow === true);
      this.changed();
      return { ok: true };
    });
    core.handle('devices.revoke', ({ name }) => {
      if (typeof name !== 'string' || !name.trim()) return { ok: false, error: 'give the name of the device to revoke (terminal-delight devices list shows them)' };
      const gone = this.store.remove(name);
      if (!gone) return { ok: false, error: `no device is named "${name}": terminal-delight devices list shows them` };
      this.revokedHashes.add(gone.hash);
      this.pushes.forget(gone.hash);
      this.open?.door.closeDevice(gone.hash, 'this device was revoked: pair it again');
      this.changed();
      return { ok: true };
    });
    // The opener of a pairing went (the dialog closed, the command ended): the pairing ends with it.
    core.onClientGone((client) => {
      if (this.pairing && this.pairing.owner === client.id && !this.pairing.p.ended(this.now())) this.endPairing('closed');
    });
    // The inbox follows the benches: any card or pane change is pushed once things settle (a tick).
    core.onEvent((name, payload) => {
      if (name === 'surface.changed' || name === 'pane.updated' || name === 'pane.removed') this.schedulePush(name !== 'surface.changed');
      if (name === 'pane.updated') this.paneNotes(payload as PaneInfo);
      if (name === 'pane.removed') this.lastSeen.delete((payload as { paneId: string }).paneId);
      if (name === 'machine.changed') this.far?.machineChanged(payload as MachineInfo);
    });
    // A watched agent's screen follows its output, at most 4 times a second.
    const screenTimers = new Map<string, NodeJS.Timeout>();
    this.panes.onOutput((paneId) => {
      const door = this.open?.door;
      if (!door || screenTimers.has(paneId) || !door.watched(paneId)) return;
      screenTimers.set(paneId, setTimeout(() => {
        screenTimers.delete(paneId);
        void this.open?.door.screenChanged(paneId);
      }, SCREEN_MS));
    });
    // A watched far agent's screen: read again every second while a phone watches it; far
    // agents' last lines every other second while a phone is connected.
    let tick = 0;
    const farScreens = setInterval(() => {
      const door = this.open?.door;
      if (!door || !this.far) return;
      for (const a of this.far.agents()) if (door.watched(a.paneId)) void door.screenChanged(a.paneId);
      if (++tick % 2 === 0 && this.store.list().some((d) => door.connected(d.hash) > 0)) this.far.refreshLines();
    }, FAR_SCREEN_MS);
    farScreens.unref();
    core.onDispose(() => {
      clearInterval(farScreens);
      for (const t of screenTimers.values()) clearTimeout(t);
    });
    core.onDispose(() => this.stop());
    const saved = this.store.door();
    if (saved) this.starting = this.start(saved).then((err) => {
      if (err) process.stderr.write(`terminal-delight: the device door is not open: ${err}\n`);
    });
  }

  /** Resolves once a door that was on at start is open (or failed). */
  ready(): Promise<unknown> {
    return this.starting;
  }

  state(): DevicesState {
    const o = this.open;
    const pairing = this.pairing;
    return {
      on: !!o,
      ...(o ? { url: o.door.url, address: o.config.address, port: o.door.port, fingerprint: o.cert.fingerprint, certMade: o.cert.made } : {}),
      ...(this.problem ? { problem: this.problem } : {}),
      devices: this.store.list().map((d) => ({ name: d.name, pairedAt: d.pairedAt, ...(d.lastSeen ? { lastSeen: d.lastSeen } : {}), connected: o?.door.connected(d.hash) ?? 0, push: !!d.push, canType: d.canType })),
      ...(pairing ? { pairing: { open: !pairing.p.ended(this.now()), expiresAt: new Date(pairing.p.offer.expiresAt).toISOString(), ...(pairing.p.ended(this.now()) ? { ended: pairing.p.ended(this.now()) } : {}), ...(pairing.paired ? { paired: pairing.paired } : {}) } } : {}),
    };
  }

  private changed(): void {
    this.core.emit('devices.changed', this.state());
  }

  private async start(config: DoorConfig): Promise<string | undefined> {
    await this.stop();
    this.store.ensureDir();
    let cert: CertPair | string;
    try {
      cert = config.cert && config.key ? readSupplied(config.cert, config.key, config.address) : await madeCert(this.store.dir, config.address);
    } catch (e) {
      cert = `the certificate could not be made: ${(e as Error).message}`;
    }
    if (typeof cert === 'string') {
      this.problem = cert;
      return cert;
    }
    try {
      const door = await startDeviceDoor({ address: config.address, port: config.port, cert, api: this.api() });
      this.open = { door, config, cert };
      // Other machines' cards are read only while a door is open to show them.
      if (this.machines) this.far = new FarCards(this.machines, (agents) => this.schedulePush(agents));
      this.problem = undefined;
      return undefined;
    } catch (e) {
      this.problem = (e as Error).message;
      return this.problem;
    }
  }

  private async stop(): Promise<void> {
    const o = this.open;
    this.open = undefined;
    this.far?.dispose();
    this.far = undefined;
    this.endPairing('closed');
    clearTimeout(this.pushTimer);
    if (o) await o.door.close();
  }

  private async openPairing(owner: string): Promise<{ ok: true; pairing: DevicePairing } | { ok: false; error: string }> {
    const o = this.open;
    if (!o) return { ok: false, error: 'the device door is off: turn it on first (terminal-delight devices on --address ADDRESS)' };
    this.endPairing('closed');
    const p = new Pairing(makeOffer(this.now(), undefined, pairingMs()));
    this.pairing = { p, owner };
    const url = `${o.door.url}pair#${p.offer.secret}`;
    // Its end by expiry is told to the window and the command waiting on it.
    setTimeout(() => {
      if (this.pairing?.p === p) this.changed();
    }, p.offer.expiresAt - this.now() + 50).unref();
    this.changed();
    const QR = await import('qrcode');
    const qrSvg = await QR.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return { ok: true, pairing: { url, code: p.offer.code, expiresAt: new Date(p.offer.expiresAt).toISOString(), fingerprint: o.cert.fingerprint, qrSvg } };
  }

  private endPairing(why: 'closed'): void {
    if (!this.pairing || this.pairing.p.ended(this.now())) return;
    this.pairing.p.end(why);
    this.changed();
  }

  /** Each pane's agent status and last command as last seen, to notify of an agent done or a command failed once. */
  private readonly lastSeen = new Map<string, { status?: string; commandAt?: string }>();

  private paneNotes(p: PaneInfo): void {
    const before = this.lastSeen.get(p.id);
    this.lastSeen.set(p.id, { status: p.agent?.status, commandAt: p.lastCommand?.at });
    if (!before || !this.open) return;
    const who = programOf(p);
    if (p.agent?.status === 'done' && before.status !== 'done') this.pushes.note('done', p.id, `${who} is done`, p.agent.detail ?? p.title);
    const c = p.lastCommand;
    if (c && c.at !== before.commandAt && c.exitCode !== 0) this.pushes.note('failed', p.id, `A command failed (exit ${c.exitCode})`, `${p.title} · ${p.cwd}`);
  }

  private schedulePush(agents: boolean): void {
    if (!this.open) return;
    if (agents) this.pushAgents = true;
    if (this.pushTimer) return;
    this.pushTimer = setTimeout(() => {
      this.pushTimer = undefined;
      this.push();
    }, 0);
  }

  private pushAgents = false;

  private push(): void {
    const o = this.open;
    if (!o) return;
    const cards = this.inbox();
    const text = JSON.stringify(cards);
    if (text !== this.lastInbox) {
      this.lastInbox = text;
      o.door.broadcast({ t: 'inbox', cards });
      this.pushes.inboxChanged(cards);
    }
    if (this.pushAgents) {
      this.pushAgents = false;
      const agents = this.agents();
      const text = JSON.stringify(agents);
      if (text !== this.lastAgents) {
        this.lastAgents = text;
        o.door.broadcast({ t: 'agents', agents });
      }
    }
  }

  private inbox(): InboxCard[] {
    const home = inboxOf(this.panes.list(), (id) => this.surfaces.list(id));
    const far = this.far?.cards() ?? [];
    return far.length ? newestFirst([...home, ...far]) : home;
  }

  private agents(): AgentRow[] {
    const home = agentsOf(this.panes.list(), (id) => this.panes.screenText(id));
    const far = this.far?.agents() ?? [];
    return far.length ? [...home, ...far] : home;
  }

  private api(): DeviceApi {
    return {
      device: (hash) => this.store.byHash(hash),
      revoked: (hash) => this.revokedHashes.has(hash),
      seen: (hash) => this.store.seen(hash, new Date(this.now())),
      sockets: () => this.changed(),
      screen: async (paneId) => {
        // A far agent's: peeked on its machine, read-only.
        if (isQualifiedPaneId(paneId)) {
          const { machine, local } = splitPaneId(paneId);
          return this.far ? this.far.screen(machine!, local) : undefined;
        }
        if (!this.agents().some((a) => a.paneId === paneId)) return undefined;
        // The screen with some history, without making the device a reader of the pane's output.
        const snap = await this.panes.snapshot(paneId, undefined, SCREEN_HISTORY);
        return { text: this.panes.screenText(paneId), data: snap.data, cols: snap.cols, rows: snap.rows };
      },
      pair: (body) => {
        const pairing = this.pairing;
        if (!pairing) return { ok: false, error: endedSentence('closed') };
        const r = pairing.p.attempt({ secret: typeof body.secret === 'string' ? body.secret : undefined, code: typeof body.code === 'string' ? body.code : undefined }, this.now());
        if (r !== true) {
          this.changed();
          return { ok: false, error: r };
        }
        const { device, credential } = this.store.add(typeof body.name === 'string' ? body.name : '', new Date(this.now()));
        pairing.paired = device.name;
        this.changed();
        return { ok: true, device, credential };
      },
      inbox: () => this.inbox(),
      agents: () => this.agents(),
      act: (device, body) => this.act(device, body),
      pushKey: async () => (await this.pushes.vapid()).publicKey,
      subscribe: async (device, body) => {
        const r = await this.pushes.subscribe(device, body);
        if (r.ok) this.changed();
        return r;
      },
      notify: (device, body) => {
        const current = { ...DEFAULT_NOTIFY, ...device.notify };
        if (!body) return { ok: true, notify: current };
        const next = checkNotify(body, current);
        if (typeof next === 'string') return { ok: false, error: next };
        this.store.setNotify(device.hash, next);
        return { ok: true, notify: next };
      },
      type: async (device, body) => {
        // Read again: the desktop may have just taken typing away.
        if (!this.store.byHash(device.hash)?.canType) return { ok: false, error: 'this device may not type: allow it on the desktop (Settings → Phone and other devices); nothing was sent' };
        const paneId = body.paneId;
        if (typeof paneId !== 'string' || !this.agents().some((a) => a.paneId === paneId && a.status !== 'ended')) return { ok: false, error: 'that is not a running agent\'s terminal; nothing was sent' };
        const input = deviceInput(body);
        if ('error' in input) return { ok: false, error: `${input.error}; nothing was sent` };
        // A far agent's terminal: the same input, to its machine's service.
        if (isQualifiedPaneId(paneId) && this.machines) {
          const { machine, local } = splitPaneId(paneId);
          try {
            await this.machines.ask(machine!, 'pane.input', { paneId: local, data: input.data });
            return { ok: true };
          } catch (e) {
            const why = (e as Error).message.slice(0, 300);
            return { ok: false, error: why.includes('nothing was sent') ? why : `${why}; nothing was sent` };
          }
        }
        // The window's own input path.
        await this.core.request('pane.input', { paneId, data: input.data }, { id: `device-${device.id}` });
        return { ok: true };
      },
      pushAct: (device, body) => this.pushes.act(device, body, () => this.inbox(), (b) => this.act(device, b)),
    };
  }

  /** A device's answer: only to a card of its inbox, only with one of the card's answers; then exactly a desktop click. */
  private async act(device: DeviceRecord, body: Record<string, unknown>): Promise<{ ok: true } | { ok: false; error: string }> {
    const { paneId, surfaceId, action, target, comment } = body;
    if (typeof paneId !== 'string' || typeof surfaceId !== 'string') return { ok: false, error: 'the answer names no card: send paneId and surfaceId' };
    const card = this.inbox().find((c) => c.paneId === paneId && c.surfaceId === surfaceId);
    if (!card) return { ok: false, error: 'this card is no longer waiting: it was answered, cancelled or retired; nothing was sent' };
    if (typeof body.revision === 'string' && body.revision !== card.revision) return { ok: false, error: 'this card changed since your phone showed it: look at it again; nothing was sent' };
    const bad = answerProblem(card, action, target, comment);
    if (bad) return { ok: false, error: bad };
    const answer = {
      surfaceId, action: action as string,
      ...(typeof target === 'string' ? { target } : {}),
      ...(typeof comment === 'string' && comment.trim() ? { comment } : {}),
    };
    // A far card: the same request, to its machine's service (its actions.jsonl, its pane).
    if (card.machine && this.machines) {
      try {
        const r = (await this.machines.ask(card.machine, 'surface.act', { paneId: splitPaneId(paneId).local, ...answer })) as { ok?: unknown; error?: unknown } | null;
        return r?.ok === true ? { ok: true } : { ok: false, error: typeof r?.error === 'string' ? r.error.slice(0, 500) : `${card.machine} did not take the answer; nothing was sent` };
      } catch (e) {
        return { ok: false, error: (e as Error).message };
      }
    }
    const r = await this.core.request('surface.act', { paneId, ...answer }, { id: `device-${device.id}` });
    return r.ok ? { ok: true } : { ok: false, error: r.error };
  }
}

export interface DeviceDeps {
  core: Core;
  panes: PaneServiceApi;
  surfaces: SurfaceServiceApi;
  stateDir: string;
  /** Other machines (main/machines): their cards join the inbox. */
  machines?: MachinesLike;
}

export function installDevices(deps: DeviceDeps): DeviceService {
  const s = new DeviceService(deps);
  s.install();
  return s;
}

export { REVOKED_CODE };
