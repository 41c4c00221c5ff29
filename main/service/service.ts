/**
 * The service: the core (createApp) behind its Unix socket, holding the lock
 * (docs/design/service.md). `startService` does everything but exit the process, so
 * tests can run one in-process; main.ts is the entry that runs it detached.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { createApp, type App } from '../app.ts';
import { statePaths, type Paths } from '../paths.ts';
import { appVersion, PROTOCOL, SERVICE_STARTED_AT } from '../version.ts';
import { firstPaintFor } from '../door/first-paint.ts';
import { Doors } from './door.ts';
import { binaryHeader } from '../clients/frames.ts';
import { FrameSender } from './sender.ts';
import { HELLO_WITHIN_MS, type Connection } from '../clients/hub.ts';
import { checkPrivateDir, takeServiceLock, type Acquired, type LockRecord } from './lock.ts';
import { LineSplitter, parseClientHello, type ServiceHello } from '../clients/wire.ts';

export interface ServiceOptions {
  env?: NodeJS.ProcessEnv;
  fresh?: boolean;
  /** No pane running and no client for this long: the service stops (default 10 minutes; 0: never). */
  idleMs?: number;
  /** The last window gone and settings.windowClose 'end': wait this long (a reload) before ending every pane. */
  lastWindowGraceMs?: number;
  /** Called once the service has stopped (main.ts exits the process). */
  onStopped?: (code: number) => void;
  /** The lock, already taken (main.ts takes it before loading the core: takeServiceLock). */
  lock?: Extract<Acquired, { held: true }>;
  bootedAt?: number;
  /** The browser's doors (main.ts opens a starting serve's before the core loads); a new set otherwise. */
  doors?: Doors;
}

export interface RunningService {
  app: App;
  doors: Doors;
  paths: Paths;
  record: LockRecord;
  /**
   * Stop: tell every client why (`how`: a stop on purpose, default, is not undone by serve;
   * a restart is), save the session saying `reason`, end the panes (escalating:
   * main/panes/ending.ts), release the lock.
   */
  stop(reason: string, how?: StopHow, message?: string): Promise<void>;
}

/** How the service goes: on purpose, and stays stopped; for a restart; or a quit that ended everything. */
export type StopHow = 'stop' | 'restart' | 'quit';

/** What a pane's header says ended it ("ended by service stop"), for each way the service goes. */
const ENDED_BY: Record<StopHow, string> = { stop: 'service stop', restart: 'service restart', quit: 'Quit' };

/** What a window says when the service was stopped on purpose, by `terminal-delight service stop` (its shutdown line). */
export const STOPPED_BY_COMMAND = 'The service was stopped with `terminal-delight service stop`.';
export const STOPPED_FOR_FRESH = 'The service was stopped to start afresh (--fresh).';

/** The window's sentence for a stop whose reason is `reason` (a signal names itself). */
function stopMessage(reason: string): string {
  const signal = /\((SIG[A-Z]+)\)$/.exec(reason)?.[1];
  return signal ? `The service was stopped by ${signal}.` : `The service was stopped (${reason}).`;
}

/**
 * Why the service was stopped on purpose (or quit), for the serve that waits for a window to
 * start it again, or stops too (main/serve/stopped.ts, main/serve/rest.ts).
 */
function writeStopped(file: string, how: 'stop' | 'quit', message: string): void {
  try {
    fs.writeFileSync(file, JSON.stringify({ how, message, at: new Date().toISOString() }) + '\n', { mode: 0o600 });
  } catch {
    // serve then says it in general words
  }
}

export type StartResult = { started: true; service: RunningService } | { started: false; holder: LockRecord };

export { checkPrivateDir };


export async function startService(opts: ServiceOptions = {}): Promise<StartResult> {
  const env = opts.env ?? process.env;
  const paths = statePaths(env);
  const lock = opts.lock ?? takeServiceLock(paths, appVersion());
  if (!lock.held) return { started: false, holder: lock.holder };

  let app: App;
  let server: net.Server | undefined;
  const doors = opts.doors ?? new Doors();
  try {
    const token = randomBytes(32).toString('hex');
    const tmp = `${paths.serviceToken}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, token + '\n', { mode: 0o600 });
    fs.renameSync(tmp, paths.serviceToken);
    const tokenBytes = Buffer.from(token);
    const tokenOk = (t: string): boolean => {
      const b = Buffer.from(t);
      return b.length === tokenBytes.length && timingSafeEqual(b, tokenBytes);
    };

    let stopping: Promise<void> | undefined;
    let idleTimer: NodeJS.Timeout | undefined;
    // Control connections (serve, the Electron main), told when the service quits or stops for good.
    const controls = new Set<(line: string) => void>();
    // A stop on purpose (or a quit) is left for the windows' side to say (run/service.stopped), not undone.
    fs.rmSync(paths.serviceStopped, { force: true });
    const stop = (reason: string, how: StopHow = 'stop', message = stopMessage(reason)): Promise<void> => {
      stopping ??= (async () => {
        clearInterval(idleTimer);
        // Every client hears why first: windows as an event, relays (serve, the Electron main) as
        // a bye, a serve at rest as a signal (quit: SIGUSR1; a stop on purpose: SIGUSR2). After a
        // quit or a stop, nothing starts the service again by itself; after a restart, it is.
        // The file first: serve reads its connection's close and its resting sh the FIFO's end
        // against it, should the bye or the signal miss a serve just then becoming sh.
        if (how !== 'restart') writeStopped(paths.serviceStopped, how, message);
        app.core.emit('service.stopping', { how, message });
        for (const send of controls) send(JSON.stringify({ t: 'bye', quit: how === 'quit', stopped: how === 'stop', reason: message }));
        if (how !== 'restart') doors.signalHolders(how === 'quit' ? 'SIGUSR1' : 'SIGUSR2');
        // Every pane is ended before the service goes, whatever stops it (a stop, a restart, a
        // signal, Quit): a hang-up, then SIGTERM and SIGKILL to what is left in each pane's
        // session (a program that ignores SIGHUP), so nothing it ran outlives it.
        await app.endAll(reason, ENDED_BY[how]).catch(() => undefined);
        await doors.closeAll().catch(() => undefined);
        app.hub.closeAll('the Terminal Delight service stopped');
        server?.close();
        await app.dispose(reason).catch(() => undefined);
        for (const f of [paths.serviceSocket, paths.serviceToken]) fs.rmSync(f, { force: true });
        lock.release();
        opts.onStopped?.(0);
      })();
      return stopping;
    };
    const shutdown = (asked: string): Promise<void> =>
      asked === 'upgrade' ? stop('the service was restarted for an upgrade', 'restart') : stop('the service was stopped', 'stop', asked === 'fresh' ? STOPPED_FOR_FRESH : STOPPED_BY_COMMAND);

    // "Quit and end all panes" quits; the window's Restart service (endPanes false) restarts.
    app = await createApp({ env, fresh: opts.fresh, bootedAt: opts.bootedAt, quit: (endPanes) => void (endPanes ? stop('you quit and ended all panes', 'quit', 'Terminal Delight has quit and every pane has ended.') : stop('the service was restarted', 'restart')) });
    doors.ready(app);
    // The machines connected before are connected again (each retried with backoff until it answers).
    app.machines.connectSaved();

    const onSocket = (socket: net.Socket): void => {
      socket.setEncoding('utf8');
      let conn: Connection | undefined;
      const answer = (h: ServiceHello): void => {
        socket.write(JSON.stringify(h) + '\n');
      };
      // A client that never says hello is let go, saying why (as a window's WebSocket is: main/clients/hub.ts).
      const helloTimer = setTimeout(() => {
        answer({ t: 'hello', ok: false, error: `no hello came within ${HELLO_WITHIN_MS / 1000} s: a client's first line is {"t":"hello",...} (docs/spec/service.md)`, protocol: PROTOCOL, version: appVersion() });
        socket.end();
        setTimeout(() => socket.destroy(), 1000).unref();
      }, HELLO_WITHIN_MS);
      const split = new LineSplitter(
        (line) => {
          if (conn) return conn.receive(line);
          clearTimeout(helloTimer);
          // A shutdown as the first line: honoured whatever protocol the client speaks (an upgrade needs it).
          if (line.includes('"shutdown"')) {
            let f: { t?: unknown; token?: unknown; reason?: unknown } = {};
            try {
              f = JSON.parse(line);
            } catch {
              // not a shutdown after all
            }
            if (f.t === 'shutdown' && typeof f.token === 'string' && tokenOk(f.token)) {
              socket.end();
              void shutdown(typeof f.reason === 'string' ? f.reason : 'asked');
              return;
            }
          }
          const hello = parseClientHello(line);
          const refuse = (error: string): void => {
            answer({ t: 'hello', ok: false, error, protocol: PROTOCOL, version: appVersion() });
            socket.end();
          };
          if (typeof hello === 'string') return refuse(hello);
          if (!tokenOk(hello.token)) return refuse('the token is wrong: read it from run/service.token in the state folder (the service makes a new one each time it starts)');
          if (hello.protocol !== PROTOCOL) {
            return refuse(`this service (version ${appVersion()}) speaks protocol ${PROTOCOL} and the client (version ${hello.version}) speaks ${hello.protocol}: restart the service to update (your panes come back through resume)`);
          }
          answer({ t: 'hello', ok: true, protocol: PROTOCOL, version: appVersion(), pid: process.pid, startedAt: SERVICE_STARTED_AT });
          // The socket is given a little at a time, so a quiet pane's output can pass a flood (sender.ts).
          const sender = new FrameSender(socket, binaryHeader);
          socket.on('drain', () => sender.pump());
          conn = app.hub.connect(
            {
              send: (text) => sender.line(text),
              ...(hello.binary ? { sendBinary: (frame: Buffer, paneId: string) => sender.output(paneId, frame) } : {}),
              backlog: () => socket.writableLength + sender.queued,
              close: () => socket.destroy(),
            },
            { idPrefix: `sock-${hello.client}`, shell: hello.client, cwd: hello.cwd },
            {
              control: true,
              onShutdown: (reason) => void shutdown(reason),
              onDoor: (frame) => doors.answer(frame, socket, () => socket.destroyed, paths.run),
              onFirstPaint: (ask) => firstPaintFor(app, ask),
            },
          );
          const control = (line: string): void => sender.line(line);
          controls.add(control);
          socket.once('close', () => controls.delete(control));
          // The window's app.hello would start it anyway; a pane that cannot start now is left to it (it says why).
          if (hello.firstPane && !app.panes.layout) {
            try {
              app.panes.create({ cwd: hello.cwd });
            } catch {
              // app.hello tries again and answers the window with the error
            }
          }
        },
        () => {
          socket.destroy();
        },
      );
      socket.on('data', (chunk: string) => split.push(chunk));
      socket.on('close', () => {
        clearTimeout(helloTimer);
        conn?.gone();
        doors.release(socket);
      });
      socket.on('error', () => socket.destroy());
    };

    server = net.createServer(onSocket);
    // A dead socket file left by a crash: only the lock's holder removes it, just before it listens.
    fs.rmSync(paths.serviceSocket, { force: true });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(paths.serviceSocket, () => {
        server!.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(paths.serviceSocket, 0o600);

    // Idle: nothing running and nobody attached for idleMs stops the service.
    const idleMs = opts.idleMs ?? 10 * 60_000;
    let idleSince = Date.now();
    idleTimer = setInterval(() => {
      const busy = app.hub.size > 0 || app.panes.list().some((p) => p.status === 'running');
      if (busy) idleSince = Date.now();
      else if (idleMs > 0 && Date.now() - idleSince >= idleMs) void stop('the service stopped: nothing ran and no window was open', 'stop', `The service stopped by itself: nothing ran and no window was open for ${idleMs >= 120_000 ? `${Math.round(idleMs / 60_000)} minutes` : `${Math.round(idleMs / 1000)} seconds`}.`);
    }, Math.min(30_000, Math.max(250, idleMs / 4)));
    idleTimer.unref();

    // settings.windowClose 'end': the last window closing ends every pane (after a grace for a reload).
    let lastWindowTimer: NodeJS.Timeout | undefined;
    app.hub.onWindows((n) => {
      clearTimeout(lastWindowTimer);
      if (n > 0 || app.settings.get().windowClose !== 'end') return;
      lastWindowTimer = setTimeout(() => {
        if (app.hub.windows === 0 && app.settings.get().windowClose === 'end') void stop('the last window was closed', 'stop', 'The service stopped and ended every pane when the last window closed (the windowClose setting).');
      }, opts.lastWindowGraceMs ?? 3_000);
      lastWindowTimer.unref();
    });

    return { started: true, service: { app, doors, paths, record: lock.record, stop } };
  } catch (err) {
    doors.failed(err as Error);
    void doors.closeAll();
    server?.close();
    lock.release();
    throw err;
  }
}
