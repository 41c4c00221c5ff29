/**
 * serve's listening socket, handed to the service it starts (docs/design/service.md, "The
 * browser's door"). serve binds the door's port itself; the service it spawns asks for that
 * socket as soon as it holds its lock, over a Node IPC channel made for this alone, and serve
 * hands it over, closes its own copy and prints its URL. The browser's start then overlaps
 * the service's: a page asking before the door is ready waits in the socket's backlog
 * instead of being refused, so serve need not wait for the service to listen.
 *
 * The socket arrives close-on-exec (Node receives handles with MSG_CMSG_CLOEXEC), so no
 * pane or other child of the service inherits the port; a socket passed as an inherited
 * descriptor would reach every shell the service starts. The channel is closed once the
 * socket is in. Unix only: on Windows, and whenever a hand-over fails, the service binds the
 * port itself, as before.
 */
import type { ChildProcess } from 'node:child_process';
import type net from 'node:net';

/** Set (to "1") in the environment of a service that should ask its parent for the door's socket. */
export const DOOR_HANDOVER_ENV = 'TD_DOOR_HANDOVER';

/** Where a listening socket can be handed to a child and listened on there. */
export const HANDOVER_SUPPORTED = process.platform !== 'win32';

interface Ask {
  t: 'door-socket?';
}
interface Give {
  t: 'door-socket';
}

/**
 * serve's side: answer the child's ask with `listener`, then close serve's copy and the
 * channel. Resolves true once the socket is on its way (serve can print its URL: the child
 * holds it), false when the child went away or could not take it (the listener is closed
 * either way; the service binds the port itself).
 */
export function handDoorOver(child: ChildProcess, listener: net.Server, timeoutMs = 10_000): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (ok: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      listener.close();
      if (child.connected) child.disconnect();
      resolve(ok);
    };
    const onMessage = (m: unknown): void => {
      if ((m as Ask | null)?.t !== 'door-socket?') return;
      try {
        child.send({ t: 'door-socket' } satisfies Give, listener, (err) => done(!err));
      } catch {
        done(false);
      }
    };
    const onExit = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * The service's side, called once it holds its lock (a command run after serve's URL is out
 * then finds it starting, and waits): when its parent handed the door over, ask for the
 * socket and resolve with it (a listening net.Server whose connections wait until the
 * door takes them: main/serve/server.ts `listener`). Resolves undefined when none was
 * offered, or none came within `timeoutMs`.
 */
export function askForDoorSocket(timeoutMs = 10_000): Promise<net.Server | undefined> {
  const offered = process.env[DOOR_HANDOVER_ENV] === '1';
  delete process.env[DOOR_HANDOVER_ENV];
  if (!offered || typeof process.send !== 'function') return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let settled = false;
    const done = (server: net.Server | undefined): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      process.off('message', onMessage);
      process.off('disconnect', onGone);
      // The channel was for this alone: closed, so it holds neither the loop nor a descriptor.
      if (process.connected) process.disconnect();
      resolve(server);
    };
    const onMessage = (m: unknown, handle: unknown): void => {
      if ((m as Give | null)?.t !== 'door-socket') return;
      const server = handle as net.Server | undefined;
      if (server && typeof server.address === 'function' && server.address()) holdConnections(server);
      done(server && server.address() ? server : undefined);
    };
    const onGone = (): void => done(undefined);
    const timer = setTimeout(() => done(undefined), timeoutMs);
    process.on('message', onMessage);
    process.once('disconnect', onGone);
    try {
      process.send!({ t: 'door-socket?' } satisfies Ask);
    } catch {
      done(undefined);
    }
  });
}

const HELD = Symbol('td.heldConnections');

/**
 * Connections the handed socket accepts before the door is ready: kept in order, reading
 * into their buffers (not paused: Node's HTTP server, given a paused socket, never reads
 * it), each one's errors caught until the door takes it.
 */
function holdConnections(server: net.Server): void {
  const held: net.Socket[] = [];
  const quiet = (): void => {};
  const hold = (socket: net.Socket): void => {
    socket.on('error', quiet);
    held.push(socket);
  };
  server.on('connection', hold);
  (server as net.Server & { [HELD]?: () => net.Socket[] })[HELD] = () => {
    server.off('connection', hold);
    const taken = held.splice(0).filter((s) => !s.destroyed);
    for (const s of taken) s.off('error', quiet);
    return taken;
  };
}

/** Stop holding the handed socket's connections: those it accepted so far and still open, in order, for the door to take. */
export function takeHeldConnections(server: net.Server): net.Socket[] {
  const take = (server as net.Server & { [HELD]?: () => net.Socket[] })[HELD];
  return take ? take() : [];
}
