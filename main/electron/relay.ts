/**
 * The Electron main as a thin relay to the per-user service (docs/design/service.md): one
 * service connection per window (its requests, its events, its flow control), and one of
 * the main's own for what outlives windows: file routes for app://, notifications, the
 * dock badge and the tray. No Electron import here, so it is tested under plain Node
 * against a real service; main.ts wires it to BrowserWindows and ipcMain.
 */
import type { EventName, Events, Req, RequestName, Res } from '../../preload/contract.ts';
import type { ResolvedFile } from '../core.ts';
import type { FirstPaintAnswer } from '../door/first-paint.ts';
import { qualifyEvent, qualifyResult, routeRequest } from '../../common/qualify.ts';
import { connectService, stopService, type ServiceConnection, ServiceError } from '../service/client.ts';

export interface RelayOptions {
  env?: NodeJS.ProcessEnv;
  /** Where a window's first pane starts when the layout is empty. */
  cwd?: string;
  /** A service this relay starts comes up with an empty session. */
  fresh?: boolean;
}

type Listener = (windowId: string, name: EventName, payload: unknown) => void;

export class ElectronRelay {
  private readonly opts: RelayOptions;
  private control: ServiceConnection | undefined;
  private controlPending: Promise<ServiceConnection> | undefined;
  private readonly windows = new Map<string, Promise<ServiceConnection>>();
  private readonly windowListeners = new Set<Listener>();
  private readonly appListeners = new Set<(name: EventName, payload: unknown) => void>();
  private readonly goneListeners = new Set<() => void>();
  private readonly lostListeners = new Set<(windowId: string) => void>();
  private closed = false;
  /** The service was stopped on purpose (its bye said so): this sentence, until a window asks for service.start. */
  private stopped: string | undefined;

  constructor(opts: RelayOptions = {}) {
    this.opts = opts;
  }

  /** The main's own connection (made now: the service is up before the first window loads). */
  async start(): Promise<ServiceConnection> {
    if (this.control && !this.control.isClosed) return this.control;
    // Stopped on purpose: nothing starts it again but a window's service.start.
    if (this.stopped) throw new ServiceError(this.stopped);
    this.controlPending ??= connectService({ env: this.opts.env, client: 'electron', cwd: this.opts.cwd, fresh: this.opts.fresh, firstPane: true }).then((c) => {
      this.control = c;
      this.controlPending = undefined;
      c.on('event', (name: EventName, payload: unknown) => {
        for (const l of [...this.appListeners]) l(name, payload);
      });
      c.on('bye', (f: { stopped?: boolean; reason?: string }) => {
        if (f.stopped) this.stopped = typeof f.reason === 'string' ? f.reason : 'The service was stopped.';
      });
      c.on('close', () => {
        this.control = undefined;
        // A restart or a crash: the main's link comes back (main.ts). A stop on purpose stays stopped.
        if (!this.closed && !this.stopped) for (const l of [...this.goneListeners]) l();
      });
      return c;
    }, (err: unknown) => {
      this.controlPending = undefined;
      throw err;
    });
    return this.controlPending;
  }

  /**
   * A request from a window (its own connection: the service knows each window apart). One
   * about another machine's pane (a qualified id, or `machine`) goes to that machine through
   * the home service as a `via` frame, as the browser's td-client sends it, and its answer
   * comes back qualified (docs/spec/remote.md, "The Electron window").
   */
  async request<K extends RequestName>(windowId: string, name: K, req: Req<K>): Promise<Res<K>> {
    if (this.stopped) {
      // The window's "Start the service" (renderer/service/StoppedBar.tsx): the one way back.
      if (name !== 'service.start') throw new ServiceError(this.stopped);
      this.stopped = undefined;
      await this.start();
      for (const l of [...this.goneListeners]) l();
    }
    const routed = routeRequest(name, req);
    if ('error' in routed) throw new ServiceError(routed.error);
    const conn = await this.window(windowId);
    if (routed.machine === undefined) return conn.request(name, req);
    if (name === 'pane.ack') {
      const a = routed.req as { paneId?: unknown; chars?: unknown };
      if (typeof a.paneId === 'string' && typeof a.chars === 'number') conn.ackVia(routed.machine, a.paneId, a.chars);
      return null as unknown as Res<K>;
    }
    return qualifyResult(routed.machine, name, await conn.requestVia(routed.machine, name, routed.req)) as Res<K>;
  }

  /** A request of the main's own (the tray, a native dialog). */
  async ask<K extends RequestName>(name: K, req: Req<K>): Promise<Res<K>> {
    return (await this.start()).request(name, req);
  }

  /** Resolve an app:// file route through the service. */
  async resolveFile(prefix: string, rest: string): Promise<ResolvedFile | undefined> {
    return (await (await this.start()).resolveFile(prefix, rest)) ?? undefined;
  }

  /**
   * The theme and first paint for a window about to load app://td/ (main/door/first-paint.ts),
   * given what the desktop's setting prefers; undefined when the service has none to give, and
   * at once while the main's connection is still being made (a service starting has no screen
   * to draw yet, and the page's scripts should load while it starts, not after).
   */
  async firstPaint(prefers: 'light' | 'dark'): Promise<FirstPaintAnswer | undefined> {
    if (!this.control || this.control.isClosed) return undefined;
    return this.control.firstPaint({ prefers });
  }

  /** Events for one window, from its own connection. */
  onWindowEvent(l: Listener): () => void {
    this.windowListeners.add(l);
    return () => this.windowListeners.delete(l);
  }

  /** Every event, from the main's own connection (notifications, badge, tray), windows or not. */
  onEvent(l: (name: EventName, payload: unknown) => void): () => void {
    this.appListeners.add(l);
    return () => this.appListeners.delete(l);
  }

  /** The service went away (a restart, a crash): windows reconnect on their next request. */
  onServiceGone(l: () => void): () => void {
    this.goneListeners.add(l);
    return () => this.goneListeners.delete(l);
  }

  /**
   * A window's connection closed under it (the service restarted or let it go): its next
   * request connects again; the window should say hello again to be a window once more.
   */
  onWindowLost(l: (windowId: string) => void): () => void {
    this.lostListeners.add(l);
    return () => this.lostListeners.delete(l);
  }

  /** The window went away: its connection closes, its flow-control debts are forgiven. */
  closeWindow(windowId: string): void {
    const p = this.windows.get(windowId);
    this.windows.delete(windowId);
    void p?.then((c) => c.close(), () => undefined);
  }

  /** Restart the service for an upgrade: the old one stops (its panes come back through resume), the next request starts the new one. */
  async restartService(): Promise<void> {
    await stopService({ env: this.opts.env, reason: 'upgrade' });
    for (const id of [...this.windows.keys()]) this.closeWindow(id);
  }

  close(): void {
    this.closed = true;
    for (const id of [...this.windows.keys()]) this.closeWindow(id);
    this.control?.close();
  }

  private window(windowId: string): Promise<ServiceConnection> {
    const known = this.windows.get(windowId);
    if (known) {
      return known.then((c) => {
        if (!c.isClosed) return c;
        this.windows.delete(windowId);
        return this.window(windowId);
      });
    }
    if (this.closed) return Promise.reject(new ServiceError('the app is quitting'));
    // Pane output as binary frames: never JSON-escaped in the service nor parsed here (decoded to the same events).
    const p = connectService({ env: this.opts.env, client: 'electron', cwd: this.opts.cwd, binary: true }).then((c) => {
      c.on('event', (name: EventName, payload: Events[EventName]) => {
        for (const l of [...this.windowListeners]) l(windowId, name, payload);
      });
      // Another machine's events for this window, its pane ids qualified (none of its own window state).
      c.on('via', (machine: string, name: EventName, payload: Events[EventName]) => {
        const q = qualifyEvent(machine, name, payload);
        if (q !== undefined) for (const l of [...this.windowListeners]) l(windowId, name, q);
      });
      c.on('close', () => {
        if (this.windows.get(windowId) !== p || this.closed) return;
        this.windows.delete(windowId);
        for (const l of [...this.lostListeners]) l(windowId);
      });
      return c;
    });
    this.windows.set(windowId, p);
    p.catch(() => this.windows.delete(windowId));
    return p;
  }
}
