/**
 * The home service's machines (docs/design/remote.md): each a link over the person's own
 * `ssh`, a control channel of the home core's own (its running panes, qualified
 * `name/paneId`), and one channel per window that speaks to it through `via` frames.
 * Links that drop are reconnected with backoff; while a machine is unreachable a window's
 * request for it is refused at once in one sentence, and nothing is queued.
 */
import type { MachineInfo, MachineRecord, PaneInfo, Req, Res, ServerFrame, Settings } from '../../preload/contract.ts';
import { isQualifiedPaneId, splitPaneId } from '../../common/pane-id.ts';
import { OUTPUT_FRAME } from '../../preload/output-frame.ts';
import { VIA_OUTPUT_FRAME } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { ViaRouter, ViaWindow } from '../clients/hub.ts';
import fs from 'node:fs';
import path from 'node:path';
import { statePaths } from '../paths.ts';
import { FILE_BYTES_MAX } from '../clients/wire.ts';
import { FAR_FILES_PREFIX, farFileResolver } from './far-files.ts';
import { openLink, type Channel, type Link } from './link.ts';
import { backoffMs, checkFarCommand, machineName, parseTarget, targetText, type Target } from './reasons.ts';

const COLOURS = ['#2f81f7', '#d2691e', '#2da44e', '#a371f7', '#db61a2', '#bf8700'];
const PANE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** How often the clock is read for a jump (a laptop that slept). */
const CLOCK_MS = 5_000;

interface SettingsLike {
  get(): Settings;
  set(patch: Partial<Settings>): Settings;
}

/** What of the home layout the machines use: far panes are placed in it and taken out of it. */
interface LayoutLike {
  attach(paneId: string, splitOf?: string, direction?: 'right' | 'down'): void;
  dropFar(paneId: string): void;
}

interface WindowChannel {
  ch?: Channel;
  /** Frames a window sent while its channel was opening (milliseconds), sent once it is. */
  early: string[];
  /** Requests sent on the channel and not answered yet: answered with a sentence if the link drops first. */
  inFlight: Set<number>;
}

class Machine {
  record: MachineRecord;
  target: Target;
  state: MachineInfo['state'] = 'connecting';
  reason: string | undefined;
  link: Link | undefined;
  control: Channel | undefined;
  attempts = 0;
  retry: NodeJS.Timeout | undefined;
  panes: string[] = [];
  authSock: string | undefined;
  refreshing = false;
  refreshAgain = false;
  /** Saved, or connected once: windows hear of it (a first connect that fails is only the asker's). */
  kept = false;
  readonly windows = new Map<ViaWindow, WindowChannel>();
  private nextId = 1;
  private readonly pending = new Map<number, (f: { ok: boolean; res?: unknown; error?: string }) => void>();
  private readonly files = new Map<number, (file: { type?: string; data: Buffer } | null) => void>();

  constructor(record: MachineRecord, target: Target) {
    this.record = record;
    this.target = target;
  }

  info(): MachineInfo {
    return {
      ...this.record,
      state: this.state,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.link?.hello ? { hostname: this.link.hello.hostname, version: this.link.hello.service?.version ?? this.link.hello.version } : {}),
      panes: this.panes.map((p) => `${this.record.name}/${p}`),
      attempts: this.attempts,
      ...(this.link && !this.link.isDown && this.link.child.pid ? { sshPid: this.link.child.pid } : {}),
    };
  }

  /** A request over the control channel (its answer checked to be one). */
  request(name: string, req: unknown): Promise<unknown> {
    const ch = this.control;
    if (!ch || ch.closed) return Promise.reject(new Error(`${this.record.name} is unreachable`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (f) => (f.ok ? resolve(f.res) : reject(new Error(String(f.error).slice(0, 500)))));
      ch.sendLine(JSON.stringify({ t: 'req', id, name, req }));
    });
  }

  /** A file of one of its service's routes, as bytes over the control channel (main/machines/far-files.ts); null when there is none, or no answer within 15 s. */
  readFile(prefix: string, rest: string): Promise<{ type?: string; data: Buffer } | null> {
    const ch = this.control;
    if (!ch || ch.closed) return Promise.resolve(null);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.files.get(id)?.(null), 15_000);
      timer.unref();
      this.files.set(id, (file) => {
        clearTimeout(timer);
        this.files.delete(id);
        resolve(file);
      });
      ch.sendLine(JSON.stringify({ t: 'file', id, prefix, rest, bytes: true }));
    });
  }

  /** A line on the control channel: an answer, or an event (which may change the panes). */
  controlLine(bytes: Buffer, changed: () => void, removed: (paneId: string) => void = () => undefined, event: (name: string, payload: unknown) => void = () => undefined): string | undefined {
    let f: { t?: unknown; id?: unknown; ok?: unknown; res?: unknown; error?: unknown; name?: unknown };
    try {
      f = JSON.parse(bytes.toString('utf8')) as typeof f;
    } catch {
      return 'a line that is not JSON';
    }
    if (!f || typeof f !== 'object') return 'a line that is not a frame';
    if (f.t === 'res' && typeof f.id === 'number') {
      const done = this.pending.get(f.id);
      this.pending.delete(f.id);
      done?.({ ok: f.ok === true, res: f.res, error: typeof f.error === 'string' ? f.error : 'refused' });
    } else if (f.t === 'evt') {
      if (f.name === 'pane.updated' || f.name === 'pane.removed') changed();
      const gone = (f as { payload?: { paneId?: unknown } }).payload?.paneId;
      if (f.name === 'pane.removed' && typeof gone === 'string') removed(gone);
      if (typeof f.name === 'string') event(f.name, (f as { payload?: unknown }).payload);
    } else if (f.t === 'file' && typeof f.id === 'number') {
      const file = (f as { file?: { type?: unknown; data?: unknown } | null }).file;
      if (file !== null && (typeof file !== 'object' || typeof file.data !== 'string' || file.data.length > Math.ceil(FILE_BYTES_MAX / 3) * 4)) return 'a file answer that is not one';
      this.files.get(f.id)?.(file ? { ...(typeof file.type === 'string' ? { type: file.type } : {}), data: Buffer.from(file.data as string, 'base64') } : null);
    } else if (f.t !== 'ping') {
      return `a frame of type ${JSON.stringify(f.t).slice(0, 20)}`;
    }
    return undefined;
  }

  dropPending(why: string): void {
    for (const done of this.pending.values()) done({ ok: false, error: why });
    this.pending.clear();
    for (const done of [...this.files.values()]) done(null);
  }
}

export class Machines implements ViaRouter {
  private readonly core: Core;
  private readonly settings: SettingsLike;
  private readonly env: NodeJS.ProcessEnv;
  private readonly layout: LayoutLike | undefined;
  private readonly byName = new Map<string, Machine>();
  /** Who follows the events of machines' services (the device door's inbox: far cards). */
  private readonly controlListeners = new Set<(machine: string, name: string, payload: unknown) => void>();
  private disposed = false;
  private clock: NodeJS.Timeout | undefined;

  constructor(deps: { core: Core; settings: SettingsLike; env: NodeJS.ProcessEnv; layout?: LayoutLike }) {
    this.core = deps.core;
    this.settings = deps.settings;
    this.env = deps.env;
    this.layout = deps.layout;
    // A pane on a machine (`machine`, or a qualified `splitOf`): made there, placed here.
    if (deps.layout) {
      deps.core.around('pane.create', (req, _c, next) => this.createFar('pane.create', req, next));
      deps.core.around('agent.new', (req, _c, next) => this.createFar('agent.new', req, next));
      deps.core.around('pane.close', (req, _c, next) => this.closeFar(req, next));
      deps.core.around('worktree.new', (req, _c, next) => this.worktreeFar(req, next));
      deps.core.around('tick.open', (req, _c, next) => this.tickFar(req, next));
    }
    // Another machine's files (a far artifact's page or image): /m/<machine>/<prefix>/<rest>.
    const farDir = path.join(statePaths(deps.env).run, 'far-files');
    deps.core.serveFiles(FAR_FILES_PREFIX, farFileResolver((name, prefix, rest) => {
      const m = this.byName.get(name);
      return m && m.state === 'connected' ? m.readFile(prefix, rest) : Promise.resolve(null);
    }, farDir));
    deps.core.onDispose(() => fs.rmSync(farDir, { recursive: true, force: true }));
    deps.core.handle('machine.connect', (req) => this.connect(req));
    deps.core.handle('machine.list', () => this.list());
    deps.core.handle('machine.retry', (req) => this.retryNow(req.name));
    deps.core.handle('machine.restart', (req) => this.restart(req.name));
    deps.core.onDispose(() => this.dispose());
    // The clock jumped (the laptop slept): machines waiting for their next try are tried at once.
    let last = Date.now();
    this.clock = setInterval(() => {
      const now = Date.now();
      if (now - last > CLOCK_MS * 3) for (const m of this.byName.values()) if (m.state === 'reconnecting' && m.retry) void this.attempt(m).catch(() => undefined);
      last = now;
    }, CLOCK_MS);
    this.clock.unref();
  }

  /**
   * Restart a machine's service for an upgrade: a `shutdown` on the control channel (every
   * protocol keeps it); its bridge ends with it, and the link's reconnect starts the new one.
   */
  restart(name: string): { ok: true } {
    const m = this.byName.get(name);
    if (!m) throw new Error(`no machine is named "${String(name).slice(0, 40)}": connect it with \`terminal-delight connect HOST\``);
    if (m.state !== 'connected' || !m.control) throw new Error(`${m.record.name} is unreachable (${m.state}): its service was not restarted`);
    m.control.sendLine(JSON.stringify({ t: 'shutdown', reason: 'upgrade' }));
    return { ok: true };
  }

  /**
   * The machine a request for a new pane names (`machine`, or a qualified `splitOf`;
   * `machine: ""` is this machine, even beside a far pane), connected, and the request as
   * that machine takes it: without `machine` and `cwd` (a home folder means nothing there),
   * `splitOf` unwrapped when it is that machine's. Undefined for this machine. Refused in one
   * sentence (`nothing` says what was not done) while it is not connected; nothing is queued.
   */
  private farTarget<R extends { machine?: string; splitOf?: string; cwd?: string }>(req: R, nothing: string): { m: Machine; farReq: Omit<R, 'machine' | 'splitOf' | 'cwd'> & { splitOf?: string } } | undefined {
    const split = typeof req.splitOf === 'string' && isQualifiedPaneId(req.splitOf) ? splitPaneId(req.splitOf) : undefined;
    const mName = req.machine === '' ? undefined : (req.machine ?? split?.machine);
    if (mName === undefined) return undefined;
    const m = this.byName.get(mName);
    if (!m) throw new Error(`no machine is named "${String(mName).slice(0, 40)}": connect it with + Machine… or \`terminal-delight connect HOST\``);
    if (m.state !== 'connected') throw new Error(`${m.record.name} is unreachable (${m.state === 'failed' ? m.reason ?? 'failed' : m.state}): ${nothing}`);
    const { machine: _m, splitOf: _s, cwd: _c, ...rest } = req;
    return { m, farReq: { ...rest, ...(split && split.machine === mName ? { splitOf: split.local } : {}) } };
  }

  /** A pane its machine made: its id qualified, known as running there, and placed in the home layout beside `splitOf` or the focused pane. */
  private placeFar(m: Machine, what: string, id: unknown, splitOf?: string, direction?: 'right' | 'down'): string {
    if (typeof id !== 'string' || !PANE_ID.test(id)) throw new Error(`${m.record.name} answered ${what} with no pane id: nothing was placed`);
    const q = `${m.record.name}/${id}`;
    if (!m.panes.includes(id)) m.panes = [...m.panes, id];
    this.layout!.attach(q, splitOf, direction);
    return q;
  }

  /** `pane.create` or `agent.new` for a machine: asked of its service over the control channel, placed here. */
  private async createFar<R extends { machine?: string; splitOf?: string; direction?: 'right' | 'down'; cwd?: string }>(name: 'pane.create' | 'agent.new', req: R, next: (req: R) => PaneInfo | Promise<PaneInfo>): Promise<PaneInfo> {
    const far = this.farTarget(req, 'no pane was made there');
    if (!far) return next(req);
    const info = (await far.m.request(name, far.farReq)) as PaneInfo;
    return { ...info, id: this.placeFar(far.m, name, info?.id, req.splitOf, req.direction) };
  }

  /** `worktree.new` on a machine: the worktree and its agent made there (its `repo` is a folder there), the pane placed here; its refusal as it is. */
  private async worktreeFar(req: Req<'worktree.new'>, next: (req: Req<'worktree.new'>) => Res<'worktree.new'> | Promise<Res<'worktree.new'>>): Promise<Res<'worktree.new'>> {
    const far = this.farTarget(req, 'no worktree was made there');
    if (!far) return next(req);
    const res = (await far.m.request('worktree.new', far.farReq)) as Res<'worktree.new'>;
    if (!res || res.ok !== true) return res;
    return { ...res, pane: { ...res.pane, id: this.placeFar(far.m, 'worktree.new', res.pane?.id, req.splitOf, req.direction) } };
  }

  /** `tick.open` on a machine: opened there (a package by its name there), its pane placed here; its refusal as it is. */
  private async tickFar(req: Req<'tick.open'>, next: (req: Req<'tick.open'>) => Res<'tick.open'> | Promise<Res<'tick.open'>>): Promise<Res<'tick.open'>> {
    const far = this.farTarget(req, 'no Tick was opened there');
    if (!far) return next(req);
    // Its working folder is one the dialog chose on that machine (unlike a new pane's, which is this window's).
    const res = (await far.m.request('tick.open', { ...far.farReq, ...(req.cwd ? { cwd: req.cwd } : {}) })) as Res<'tick.open'>;
    if (!res || res.ok !== true) return res;
    return { ...res, paneId: this.placeFar(far.m, 'tick.open', res.paneId) };
  }

  /**
   * `pane.close` of a far pane: closed on its machine, and out of the home layout (also when
   * its machine no longer knows it). A machine no longer kept: out of the layout only. While
   * its machine is not connected, refused in one sentence.
   */
  private async closeFar(req: { paneId: string }, next: (req: { paneId: string }) => { closed: boolean } | Promise<{ closed: boolean }>): Promise<{ closed: boolean }> {
    if (!isQualifiedPaneId(req.paneId)) return next(req);
    const { machine, local } = splitPaneId(req.paneId);
    const m = this.byName.get(machine!);
    if (!m) {
      this.layout!.dropFar(req.paneId);
      return { closed: true };
    }
    if (m.state !== 'connected') throw new Error(`${m.record.name} is unreachable (${m.state === 'failed' ? m.reason ?? 'failed' : m.state}): the pane was not closed; close it once ${m.record.name} is back`);
    const r = (await m.request('pane.close', { paneId: local })) as { closed?: unknown };
    this.layout!.dropFar(req.paneId);
    return { closed: r?.closed === true };
  }

  /** "Retry now": a machine not connected is tried at once; its answer says how it went. */
  async retryNow(name: string): Promise<MachineInfo> {
    const m = this.byName.get(name);
    if (!m) throw new Error(`no machine is named "${String(name).slice(0, 40)}": connect it with \`terminal-delight connect HOST\``);
    if (m.state === 'connected') return m.info();
    if (m.state === 'connecting' || (m.state === 'reconnecting' && !m.retry)) throw new Error(`${m.record.name} is being tried already: wait for its answer`);
    if (m.state === 'failed') m.state = 'reconnecting';
    await this.attempt(m).catch(() => undefined);
    return m.info();
  }

  list(): MachineInfo[] {
    return [...this.byName.values()].map((m) => m.info());
  }

  /** Names of the machines connected now. */
  connected(): string[] {
    return [...this.byName.values()].filter((m) => m.state === 'connected').map((m) => m.record.name);
  }

  /**
   * A request of the home service's own to a machine's service, over its control channel
   * (a search on it, a far pane's cards, a device's answer to one). Refused in one sentence
   * while the machine is unknown or not connected; nothing is queued.
   */
  ask(name: string, request: string, req: unknown): Promise<unknown> {
    const m = this.byName.get(name);
    if (!m) return Promise.reject(new Error(`no machine is named "${String(name).slice(0, 40)}": connect it with + Machine… or \`terminal-delight connect HOST\``));
    if (m.state !== 'connected' || !m.control) return Promise.reject(new Error(`${m.record.name} is unreachable (${m.state === 'failed' ? m.reason ?? 'failed' : m.state}): nothing was sent`));
    return m.request(request, req);
  }

  /** Every event a connected machine's service sends on its control channel (its name, the event's name and payload). */
  onControlEvent(listener: (machine: string, name: string, payload: unknown) => void): () => void {
    this.controlListeners.add(listener);
    return () => this.controlListeners.delete(listener);
  }

  /** Connect the machines saved in settings (the service starting): each retried with backoff until it answers. */
  connectSaved(): void {
    for (const rec of this.settings.get().machines ?? []) {
      const target = parseTarget(rec.target);
      if (typeof target === 'string' || this.byName.has(rec.name)) continue;
      const m = new Machine(rec, target);
      m.state = 'reconnecting';
      m.kept = true;
      this.byName.set(rec.name, m);
      void this.attempt(m).catch(() => undefined);
    }
  }

  async connect(req: { target: string; name?: string; colour?: string; command?: string; authSock?: string }): Promise<MachineInfo> {
    const target = parseTarget(req.target);
    if (typeof target === 'string') throw new Error(target);
    const name = machineName(req.name, target);
    if (typeof name !== 'string') throw new Error(name.error);
    if (req.colour !== undefined && !/^#[0-9a-fA-F]{6}$/.test(req.colour)) throw new Error(`colour ${JSON.stringify(req.colour).slice(0, 40)} is not a colour: give it as #rrggbb`);
    const command = checkFarCommand(req.command ?? 'terminal-delight');
    if (typeof command !== 'string') throw new Error(command.error);
    const saved = (this.settings.get().machines ?? []).find((r) => r.name === name);
    const colour = req.colour ?? saved?.colour ?? COLOURS[(this.settings.get().machines ?? []).length % COLOURS.length]!;
    const record: MachineRecord = { name, target: targetText(target), colour, ...(command !== 'terminal-delight' ? { command } : {}) };
    let m = this.byName.get(name);
    if (m && m.state === 'connected' && m.record.target === record.target) return m.info();
    if (m) {
      clearTimeout(m.retry);
      m.link?.close('connected again');
      m.record = record;
      m.target = target;
    } else {
      m = new Machine(record, target);
      this.byName.set(name, m);
    }
    m.authSock = req.authSock;
    try {
      await this.attempt(m);
    } catch (err) {
      // A machine never connected is not kept: nothing retries what the person must fix first.
      if (!saved) this.byName.delete(name);
      throw err;
    }
    const others = (this.settings.get().machines ?? []).filter((r) => r.name !== name);
    this.settings.set({ machines: [...others, record] });
    // Connected for the first time: its running panes come into the home layout, tiled; after that the layout remembers what it shows.
    if (!saved && this.layout) for (const p of m.panes) this.layout.attach(`${name}/${p}`);
    return m.info();
  }

  /** One try at a link; on success the machine is connected, on failure it says why (and a dropped one retries). */
  private async attempt(m: Machine): Promise<void> {
    clearTimeout(m.retry);
    m.retry = undefined;
    if (m.state !== 'reconnecting') m.state = 'connecting';
    this.changed(m);
    const name = m.record.name;
    const env = { ...this.env };
    if (m.authSock) env.SSH_AUTH_SOCK = m.authSock;
    let link: Link;
    try {
      link = await openLink({ name, target: m.target, farCommand: m.record.command ?? 'terminal-delight', env, connectCmd: `terminal-delight connect ${name === m.target.host ? m.record.target : `${m.record.target} --name ${name}`}` });
      if (this.disposed) {
        link.close('the service stopped');
        return;
      }
      m.link = link;
      // A link that drops while connecting fails the attempt (its pending requests end here); once connected, it reconnects.
      link.once('down', (why: string) => {
        m.dropPending(why);
        if (m.state === 'connected') this.dropped(m, link, why);
      });
      const control = await link.openChannel({ client: 'cli' });
      m.control = control;
      control.on('line', (b: Buffer) => {
        const wrong = m.controlLine(b, () => this.panesChanged(m), (paneId) => this.layout?.dropFar(`${name}/${paneId}`), (event, payload) => {
          for (const l of this.controlListeners) l(name, event, payload);
        });
        if (wrong) link.close(`${name} sent ${wrong} on its control channel: the link was cut off`);
      });
      control.on('binary', () => link.close(`${name} sent output on its control channel: the link was cut off`));
      await this.refreshPanes(m, true);
    } catch (err) {
      m.link?.close((err as Error).message);
      m.link = undefined;
      m.control = undefined;
      m.reason = (err as Error).message;
      if (m.state === 'reconnecting') this.scheduleRetry(m);
      else m.state = 'failed';
      this.changed(m);
      throw err;
    }
    m.state = 'connected';
    m.reason = undefined;
    m.attempts = 0;
    m.kept = true;
    this.changed(m);
  }

  private dropped(m: Machine, link: Link, why: string): void {
    if (m.link !== link) return;
    m.link = undefined;
    m.control = undefined;
    for (const [win, wc] of m.windows) {
      wc.ch?.close();
      this.refuseEarly(win, m.record.name, wc.early, `${m.record.name} is unreachable (reconnecting): nothing was sent`);
      this.unanswered(win, m.record.name, wc, why);
    }
    m.windows.clear();
    if (this.disposed) return;
    m.state = 'reconnecting';
    m.reason = why;
    this.scheduleRetry(m);
    this.changed(m);
  }

  private scheduleRetry(m: Machine): void {
    if (this.disposed) return;
    const wait = backoffMs(m.attempts, Math.random());
    m.attempts++;
    m.retry = setTimeout(() => void this.attempt(m).catch(() => undefined), wait);
    m.retry.unref();
  }

  /**
   * The far panes changed (pane.updated comes often: titles, status): one service.info at a
   * time, and one more after it when more changes came meanwhile.
   */
  private panesChanged(m: Machine): void {
    if (m.refreshing) {
      m.refreshAgain = true;
      return;
    }
    m.refreshing = true;
    void this.refreshPanes(m).finally(() => {
      m.refreshing = false;
      if (m.refreshAgain) {
        m.refreshAgain = false;
        this.panesChanged(m);
      }
    });
  }

  private async refreshPanes(m: Machine, strict = false): Promise<void> {
    try {
      const info = (await m.request('service.info', {})) as { running?: unknown };
      const running = Array.isArray(info?.running) ? info.running : [];
      const panes = running.slice(0, 1024).map((p: { paneId?: unknown }) => p?.paneId).filter((id): id is string => typeof id === 'string' && PANE_ID.test(id));
      const same = panes.length === m.panes.length && panes.every((p, i) => p === m.panes[i]);
      m.panes = panes;
      if (!strict && !same) this.changed(m);
    } catch (err) {
      if (strict) throw err;
    }
  }

  private changed(m: Machine): void {
    if (!this.disposed && m.kept) this.core.emit('machine.changed', m.info());
  }

  // ── windows: via frames ──

  receive(win: ViaWindow, mName: unknown, f: unknown): void {
    const inner = f as { t?: unknown; id?: unknown } | null;
    const name = typeof mName === 'string' ? mName.slice(0, 40) : '';
    const refuse = (error: string): void => {
      if (inner && typeof inner === 'object' && inner.t === 'req') {
        const id = typeof inner.id === 'number' && Number.isSafeInteger(inner.id) ? inner.id : -1;
        win.sendText(wrap(name, JSON.stringify({ t: 'res', id, ok: false, error } satisfies ServerFrame)));
      }
    };
    if (!inner || typeof inner !== 'object' || (inner.t !== 'req' && inner.t !== 'ack' && inner.t !== 'pong')) {
      return win.sendText(JSON.stringify({ t: 'res', id: -1, ok: false, error: 'a via frame carries a request, an ack or a pong: send {"t":"via","m":"<machine>","f":{"t":"req",…}}' }));
    }
    const m = this.byName.get(name);
    if (!m) return refuse(`no machine is named "${name}": connect it with \`terminal-delight connect HOST\``);
    if (m.state !== 'connected' || !m.link) return refuse(`${name} is unreachable (${m.state === 'failed' ? m.reason ?? 'failed' : m.state}): nothing was sent`);
    const text = JSON.stringify(inner);
    const reqId = inner.t === 'req' && typeof inner.id === 'number' && Number.isSafeInteger(inner.id) ? inner.id : undefined;
    const wc = m.windows.get(win);
    if (wc?.ch) {
      if (reqId !== undefined) wc.inFlight.add(reqId);
      return wc.ch.sendLine(text);
    }
    if (wc) {
      wc.early.push(text);
      return;
    }
    const fresh: WindowChannel = { early: [text], inFlight: new Set() };
    m.windows.set(win, fresh);
    const link = m.link;
    link.openChannel({ client: 'serve', binary: win.binary }).then(
      (ch) => {
        if (m.windows.get(win) !== fresh) return ch.close();
        fresh.ch = ch;
        ch.on('line', (b: Buffer) => {
          const f = serverFrame(b);
          if (!f) return link.close(`${name} sent a window a frame that is not the contract's: the link was cut off`);
          if (f.t === 'res' && typeof f.id === 'number') fresh.inFlight.delete(f.id);
          win.sendText(wrap(name, b.toString('utf8')));
        });
        ch.on('binary', (b: Buffer) => {
          if (b.length < 7 || b[0] !== OUTPUT_FRAME || b.length < 2 + b[1]! + 4) return link.close(`${name} sent a window an output frame that is not one: the link was cut off`);
          const paneId = b.subarray(2, 2 + b[1]!).toString('latin1');
          const head = Buffer.from([VIA_OUTPUT_FRAME, name.length, ...Buffer.from(name, 'latin1')]);
          win.sendBinary(Buffer.concat([head, b]), `${name}/${paneId}`);
        });
        ch.on('close', (why?: string) => {
          if (m.windows.get(win) === fresh) m.windows.delete(win);
          this.unanswered(win, name, fresh, why || 'its channel closed');
        });
        for (const t of fresh.early.splice(0)) {
          const f = JSON.parse(t) as { t?: unknown; id?: unknown };
          if (f.t === 'req' && typeof f.id === 'number') fresh.inFlight.add(f.id);
          ch.sendLine(t);
        }
      },
      (err: Error) => {
        if (m.windows.get(win) === fresh) m.windows.delete(win);
        this.refuseEarly(win, name, fresh.early, `${name} could not be reached (${err.message}): nothing was sent`);
      },
    );
  }

  /** Asked but not answered when a window's channel ends: the window must not wait for ever; whether it was done there is not known. */
  private unanswered(win: ViaWindow, name: string, wc: WindowChannel, why: string): void {
    for (const id of wc.inFlight) win.sendText(wrap(name, JSON.stringify({ t: 'res', id, ok: false, error: `the link to ${name} dropped before it answered (${why}): it may not have been done` })));
    wc.inFlight.clear();
  }

  private refuseEarly(win: ViaWindow, name: string, early: string[], error: string): void {
    for (const t of early.splice(0)) {
      const f = JSON.parse(t) as { t?: unknown; id?: unknown };
      if (f.t === 'req') win.sendText(wrap(name, JSON.stringify({ t: 'res', id: typeof f.id === 'number' ? f.id : -1, ok: false, error })));
    }
  }

  gone(win: ViaWindow): void {
    for (const m of this.byName.values()) {
      const wc = m.windows.get(win);
      if (!wc) continue;
      m.windows.delete(win);
      wc.inFlight.clear();
      wc.ch?.close('the window went away');
    }
  }

  dispose(): void {
    this.disposed = true;
    clearInterval(this.clock);
    for (const m of this.byName.values()) {
      clearTimeout(m.retry);
      m.link?.close('the service stopped');
    }
  }
}

/** A far frame for a window: one JSON object the contract's server frames allow (else undefined). Checked before it is wrapped. */
function serverFrame(b: Buffer): { t: 'res' | 'evt' | 'ping'; id?: unknown } | undefined {
  try {
    const f = JSON.parse(b.toString('utf8')) as { t?: unknown; id?: unknown } | null;
    return !!f && typeof f === 'object' && !Array.isArray(f) && (f.t === 'res' || f.t === 'evt' || f.t === 'ping') ? (f as { t: 'res' | 'evt' | 'ping'; id?: unknown }) : undefined;
  } catch {
    return undefined;
  }
}

/** The far frame's text (checked JSON) inside the home's `via` frame, not re-encoded. */
function wrap(name: string, inner: string): string {
  return `{"t":"via","m":${JSON.stringify(name)},"f":${inner}}`;
}
