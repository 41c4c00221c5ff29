/**
 * The core: one registry of request handlers and one event bus, shared by both
 * shells. Services (panes, surfaces, tick, agent-channel, mcp) install their
 * handlers here; a shell turns wire frames into `core.request()` calls and
 * forwards `core.events` to its windows. Plain Node: no Electron import.
 */
import { EventEmitter } from 'node:events';
import type { EventName, Events, Req, RequestName, Res } from '../preload/contract.ts';
import { REQUEST_NAMES } from '../preload/contract.ts';
import { payloadProblem } from './contract-check.ts';

/** Who is asking: one window (an Electron webContents or a browser tab, through its relay) or a command. */
export interface Client {
  id: string;
  /** The shell the window runs in (app.hello tells the renderer); absent for in-process callers. */
  shell?: 'electron' | 'serve' | 'cli';
  /** Where this client's first pane starts when the layout is empty. */
  cwd?: string;
  /** A transport's client: false until it says app.hello (a window), then true; before, it reads no pane's output. Absent for in-process callers. */
  saidHello?: boolean;
}

/** Decides whether one client gets one event (for example a pane's output while that window is left out of its flow). */
export type EventFilter<K extends EventName> = (payload: Events[K], client: Client) => boolean;

export type Handler<K extends RequestName> = (req: Req<K>, client: Client) => Res<K> | Promise<Res<K>>;

export interface ResolvedFile {
  path: string;
  /** MIME type; guessed from the name when absent. */
  type?: string;
  csp?: string;
}
/** A file route's resolver: the file, or undefined for 404; a promise where it is fetched (another machine's files: main/machines/far-files.ts). */
export type FileResolver = (rest: string) => ResolvedFile | undefined | Promise<ResolvedFile | undefined>;

/** A request that names no known channel or breaks its payload's shape. */
export class ContractError extends Error {}

export class Core {
  private readonly handlers = new Map<RequestName, Handler<RequestName>>();
  private readonly bus = new EventEmitter();
  private readonly disposers: Array<() => void | Promise<void>> = [];
  private readonly fileRoutes = new Map<string, FileResolver>();
  private readonly filters = new Map<EventName, EventFilter<EventName>>();

  constructor() {
    this.bus.setMaxListeners(0);
  }

  handle<K extends RequestName>(name: K, handler: Handler<K>): void {
    if (this.handlers.has(name)) throw new Error(`a handler for ${name} is already installed`);
    this.handlers.set(name, handler as unknown as Handler<RequestName>);
  }

  /** Put `f` in front of an installed handler: it answers, or passes the request on to the handler (`next`). */
  around<K extends RequestName>(name: K, f: (req: Req<K>, client: Client, next: (req: Req<K>) => Res<K> | Promise<Res<K>>) => Res<K> | Promise<Res<K>>): void {
    const inner = this.handlers.get(name) as unknown as Handler<K> | undefined;
    if (!inner) throw new Error(`no handler for ${name} is installed to go around`);
    this.handlers.set(name, ((req: Req<K>, client: Client) => f(req, client, (r) => inner(r, client))) as unknown as Handler<RequestName>);
  }

  async request<K extends RequestName>(name: K, req: Req<K>, client: Client): Promise<Res<K>> {
    if (!REQUEST_NAMES.includes(name)) throw new ContractError(`unknown request "${String(name)}"`);
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
      throw new ContractError(`request "${name}" needs an object payload`);
    }
    const handler = this.handlers.get(name);
    if (!handler) throw new ContractError(`request "${name}" is not available in this build`);
    // Every transport (IPC, serve's WebSocket, the service socket) ends here: the payload
    // must fit the contract's types before any handler sees it.
    const problem = payloadProblem(name, req);
    if (problem) throw new ContractError(problem);
    return (await handler(req, client)) as Res<K>;
  }

  emit<K extends EventName>(name: K, payload: Events[K]): void {
    this.bus.emit('event', name, payload);
  }

  /** An event for one client only (by Client.id). */
  emitTo<K extends EventName>(clientId: string, name: K, payload: Events[K]): void {
    this.bus.emit('event-to', clientId, name, payload);
  }

  onEventTo(listener: <K extends EventName>(clientId: string, name: K, payload: Events[K]) => void): () => void {
    this.bus.on('event-to', listener);
    return () => this.bus.off('event-to', listener);
  }

  /** Let a service decide, per client, whether an event of this name reaches it (one filter per name). */
  filterEvents<K extends EventName>(name: K, filter: EventFilter<K>): void {
    if (this.filters.has(name)) throw new Error(`a filter for ${name} is already installed`);
    this.filters.set(name, filter as unknown as EventFilter<EventName>);
  }

  /** Whether this client gets this event (no filter: every client does). */
  accepts<K extends EventName>(name: K, payload: Events[K], client: Client): boolean {
    const f = this.filters.get(name);
    return f ? f(payload, client) : true;
  }

  /** Every event, for shells that forward them all. Returns an unsubscribe function. */
  onEvent(listener: <K extends EventName>(name: K, payload: Events[K]) => void): () => void {
    this.bus.on('event', listener);
    return () => this.bus.off('event', listener);
  }

  /** A client went away (window closed, socket dropped). */
  clientGone(client: Client): void {
    this.bus.emit('client-gone', client);
  }

  onClientGone(listener: (client: Client) => void): () => void {
    this.bus.on('client-gone', listener);
    return () => this.bus.off('client-gone', listener);
  }

  /**
   * Files a shell serves to windows under `/<prefix>/...` (serve: HTTP behind the
   * token; Electron: the app's custom protocol). The resolver gets the rest of the
   * path and returns the file to send, or undefined for 404. `csp` is sent as the
   * response's Content-Security-Policy (untrusted HTML gets a sandboxing one).
   */
  serveFiles(prefix: string, resolve: FileResolver): void {
    if (!/^[a-z][a-z0-9-]*$/.test(prefix)) throw new Error(`bad file route prefix "${prefix}"`);
    this.fileRoutes.set(prefix, resolve);
  }

  resolveFile(prefix: string, rest: string): ResolvedFile | undefined | Promise<ResolvedFile | undefined> {
    return this.fileRoutes.get(prefix)?.(rest);
  }

  /** Run at shutdown, last installed first. */
  onDispose(fn: () => void | Promise<void>): void {
    this.disposers.push(fn);
  }

  async dispose(): Promise<void> {
    for (const fn of this.disposers.splice(0).reverse()) {
      try {
        await fn();
      } catch {
        // shutting down: keep going
      }
    }
  }
}
