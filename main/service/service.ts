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
import type { Connection } from '../clients/hub.ts';
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
  /** Stop: save the session saying why, end the panes (cleanly with endPanes), release the lock. */
  stop(reason: string, endPanes?: boolean): Promise<void>;
}

export type StartResult = { started: true; service: RunningService } | { started: false; holder: LockRecord };

export { checkPrivateDir };

const HELLO_TIMEOUT_MS = 10_000;

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
    // Control connections (serve, the Electron main), told when the service quits for good.
    const controls = new Set<(line: string) => void>();
    const stop = (reason: string, endPanes = false, quit = false): Promise<void> => {
      stopping ??= (async () => {
        clearInterval(idleTimer);
        // "Quit and end all panes": serve stops too, instead of starting the service again.
        if (quit) {
          for (const send of controls) send(JSON.stringify({ t: 'bye', quit: true, reason }));
          doors.quitHolders();
        }
        if (endPanes) await app.endAll(reason).catch(() => undefined);
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

    app = await createApp({ env, fresh: opts.fresh, bootedAt: opts.bootedAt, quit: (endPanes) => void stop(endPanes ? 'you quit and ended all panes' : 'the service was stopped', endPanes, endPanes) });
    doors.ready(app);
    // The machines connected before are connected again (each retried with backoff until it answers).
    app.machines.connectSaved();

    const onSocket = (socket: net.Socket): void => {
      socket.setEncoding('utf8');
      let conn: Connection | undefined;
      const helloTimer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
      const answer = (h: ServiceHello): void => {
        socket.write(JSON.stringify(h) + '\n');
      };
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
              void stop(f.reason === 'upgrade' ? 'the service was restarted for an upgrade' : 'the service was stopped');
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
              onShutdown: (reason) => void stop(reason === 'upgrade' ? 'the service was restarted for an upgrade' : 'the service was stopped'),
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
      else if (idleMs > 0 && Date.now() - idleSince >= idleMs) void stop('the service stopped: nothing ran and no window was open');
    }, Math.min(30_000, Math.max(250, idleMs / 4)));
    idleTimer.unref();

    // settings.windowClose 'end': the last window closing ends every pane (after a grace for a reload).
    let lastWindowTimer: NodeJS.Timeout | undefined;
    app.hub.onWindows((n) => {
      clearTimeout(lastWindowTimer);
      if (n > 0 || app.settings.get().windowClose !== 'end') return;
      lastWindowTimer = setTimeout(() => {
        if (app.hub.windows === 0 && app.settings.get().windowClose === 'end') void stop('the last window was closed', true);
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
