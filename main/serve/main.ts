/**
 * `node --experimental-strip-types main/serve/main.ts [--port N] [--host H] [--fresh]
 * [--cwd DIR] [--no-open] [--service-socket PATH --service-token FILE]` (also
 * `terminal-delight serve`). The browser's door to the per-user service (started on demand):
 * prints exactly one line to stdout when ready, `serving http://127.0.0.1:<port>/?token=<token>`
 * (the service's door listens: main/service/door.ts; on Unix, serve's own bound socket was
 * handed to the service it started: main/door/handover.ts); everything else goes to stderr. The
 * door stays open while serve runs, and serve starts the service again (with the same door)
 * if it goes away, or dies starting once the URL is out; three failures within a minute, or
 * a service that cannot start before the URL is out, end serve with exit code 1 and why.
 * Without --port, serve listens on the port the last serve held its door on, where it is free
 * (the browser's cache is per origin), else on a free one; `--port 0` always picks a free one.
 * SIGINT/SIGTERM stop serve and close its door only: the service and every pane keep running
 * (docs/design/service.md). `--service-socket` and `--service-token` reach a service
 * elsewhere, such as one on another machine through an SSH-forwarded socket: its windows are
 * relayed by serve, as they are to a service too old to open a door.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connectService, serviceStarting, type ServiceConnection } from '../service/client.ts';
import { makeWayForFresh } from '../service/fresh.ts';
import { statePaths, type Paths } from '../paths.ts';
import { HANDOVER_SUPPORTED } from '../door/handover.ts';
import { processAlive } from '../panes/proc.ts';
import type { DoorHolder, DoorSpec } from '../clients/wire.ts';
import { canRest, letGo, makeHolder, REST_AFTER_MS, rest, takeResume, type Resume } from './rest.ts';
import { stoppedMessage, stoppedOnPurpose, waitStopped } from './stopped.ts';
import { loopbackBindAddress, newToken, serveUrl } from '../door/security.ts';

export const USAGE = 'usage: serve [--port N] [--host 127.0.0.1|::1|localhost] [--fresh] [--cwd DIR] [--no-open] [--service-socket PATH --service-token FILE]';

export interface ServeArgs {
  /** Undefined when not given: the port the last serve had, where it is free, else a free one. 0: a free one. */
  port?: number;
  host: string;
  fresh: boolean;
  cwd?: string;
  open: boolean;
  serviceSocket?: string;
  serviceToken?: string;
}

/** Parse serve's arguments; throws one sentence on anything wrong. */
export function parseServeArgs(argv: string[]): ServeArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        fresh: { type: 'boolean' },
        cwd: { type: 'string' },
        'no-open': { type: 'boolean' },
        open: { type: 'boolean' },
        'service-socket': { type: 'string' },
        'service-token': { type: 'string' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new Error(`${(err as Error).message.split('\n')[0].replace(/\.$/, '')}; ${USAGE}`);
  }
  const portText = values.port as string | undefined;
  if (portText !== undefined && (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535)) throw new Error(`--port ${portText} is not a port: give a number from 0 to 65535 (0 picks a free one)`);
  const cwd = values.cwd as string | undefined;
  if (cwd !== undefined) {
    let ok = false;
    try {
      ok = fs.statSync(cwd).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new Error(`--cwd ${cwd} is not a folder: give an existing folder for the first pane`);
  }
  const serviceSocket = values['service-socket'] as string | undefined;
  const serviceToken = values['service-token'] as string | undefined;
  if ((serviceSocket === undefined) !== (serviceToken === undefined)) throw new Error('--service-socket and --service-token go together: give both (the forwarded socket and a copy of that service\'s run/service.token)');
  if (serviceSocket !== undefined && values.fresh === true) throw new Error('--fresh starts this machine\'s service afresh and --service-socket reaches another\'s: give one of them');
  return {
    ...(serviceSocket ? { serviceSocket: path.resolve(serviceSocket), serviceToken: path.resolve(serviceToken!) } : {}),
    port: portText === undefined ? undefined : Number(portText),
    host: (values.host as string | undefined) ?? '127.0.0.1',
    fresh: values.fresh === true,
    cwd: cwd === undefined ? undefined : path.resolve(cwd),
    open: values['no-open'] !== true,
  };
}

/** Open a URL in the desktop's browser, quietly doing nothing where there is none. */
function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer.exe' : 'xdg-open';
  try {
    const child = spawn(cmd, [url], { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no browser opener: the printed URL is enough
  }
}

/**
 * Claim port `port` on `bind` (0: pick a free one): the port, and with `keep` the socket still
 * listening on it, for the service serve starts to take over (main/door/handover.ts);
 * otherwise closed again. Throws the sentence when the port cannot be had.
 */
async function claimPort(bind: string, port: number, keep: boolean): Promise<{ port: number; listener?: net.Server }> {
  // Until it is handed over, nobody has the URL: whatever connects is turned away.
  const probe = net.createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen(port, bind, () => resolve());
    });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new Error(e.code === 'EADDRINUSE' ? `port ${port} is in use: pick another with --port, or 0 for a free one` : `serve could not listen on ${bind}:${port}: ${e.message}`);
  }
  const got = (probe.address() as net.AddressInfo).port;
  if (keep) return { port: got, listener: probe };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return { port: got };
}

/**
 * The port the last serve listened on (run/serve-port), tried first when no --port is given: the
 * browser keys its cache (HTTP and V8's code cache) by origin, so a window opened by the next
 * serve on the same port loads the renderer from its cache (docs/spec/performance.md).
 */
function lastPort(paths: Paths): number | undefined {
  try {
    const text = fs.readFileSync(paths.servePort, 'utf8').trim();
    const n = Number(text);
    return /^\d{4,5}$/.test(text) && n >= 1024 && n <= 65535 ? n : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The last serve's port where it can be had, else a free one. The last port is only a wish; but
 * the service closes a door a moment after the serve that asked for it stops (up to half a second
 * when it was killed outright: main/service/door.ts), so a serve started again at once tries for
 * about a second before it takes a free port.
 */
async function claimLastPort(bind: string, last: number | undefined): Promise<{ port: number; listener?: net.Server }> {
  for (let attempt = 0; last !== undefined && attempt < 20; attempt++) {
    try {
      return await claimPort(bind, last, HANDOVER_SUPPORTED);
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return claimPort(bind, 0, HANDOVER_SUPPORTED);
}

function rememberPort(paths: Paths, port: number): void {
  try {
    fs.writeFileSync(paths.servePort, `${port}\n`, { mode: 0o600 });
  } catch {
    // Only a wish for the next start: nothing is lost without it.
  }
}

/** Something accepts connections on host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createConnection({ host, port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

const OLD_SERVICE = /^the frame is not a request/;

/**
 * Serve through the service's door: ask the service (started with the door when none runs)
 * to open it, print the URL once it listens, keep it open while serve runs, and open it again
 * on the next service if this one goes away. Resolves undefined when the service is too old
 * to open a door (serve then relays, as before).
 */
async function serveThroughDoor(args: ServeArgs, print: (url: string) => void, resume: Resume | undefined, onHolder: (h: DoorHolder) => void): Promise<{ done: Promise<number | 'stopped'>; stop: () => void; spec: DoorSpec } | undefined> {
  const bind = loopbackBindAddress(args.host);
  if (!bind) throw new Error(`host "${args.host}" is not a loopback address: serve listens only on 127.0.0.1, ::1 or localhost`);
  // Where the service can take over serve's bound socket, the URL goes out as soon as a service
  // this serve starts holds it (it accepts from then on, its core loading meanwhile).
  const paths = statePaths(process.env);
  // Run again by its resting sh (main/serve/rest.ts): the same door, the URL already out.
  const { port, listener } = resume ? { port: resume.door.port, listener: undefined } : args.port !== undefined ? await claimPort(bind, args.port, HANDOVER_SUPPORTED) : await claimLastPort(bind, lastPort(paths));
  const spec: DoorSpec = resume?.door ?? { host: bind, port, token: newToken() };
  // The same URL the door gives (startServe): printed before the door answers, when serve starts the service.
  const url = serveUrl(bind, port, spec.token);
  // Where serve can rest, its door is held by its process, not its connection.
  const holder = canRest() ? makeHolder(paths.run) : undefined;
  if (holder) onHolder(holder);
  let held = false;
  let printed = resume !== undefined;
  const say = (): void => {
    if (printed) return;
    printed = true;
    print(url);
  };
  // Elsewhere, a service this serve starts opens the door before its core loads: the URL goes
  // out as soon as the door listens, and the page loads while the core does.
  let watching = !listener;
  void (async () => {
    while (watching && !printed) {
      if (serviceStarting() && (await accepts(bind, port)) && watching) return say();
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const open = async (first: boolean): Promise<ServiceConnection | undefined> => {
    const handover = first && listener ? { doorListener: listener, onDoorHandover: (handed: boolean) => handed && say() } : {};
    const conn = await connectService({ client: 'serve', cwd: args.cwd ?? process.cwd(), fresh: first && args.fresh, firstPane: first, door: spec, ...handover });
    const answer = await conn.openDoor(spec, holder);
    if (answer.ok) {
      held = answer.held === true;
      return conn;
    }
    conn.close();
    if (OLD_SERVICE.test(answer.error)) return undefined;
    throw new Error(answer.error);
  };
  let conn: ServiceConnection | undefined;
  let startFailed: Error | undefined;
  try {
    if (!resume) conn = await open(true);
  } catch (err) {
    // Before the URL is out, serve ends with why. After (a page may be loading it), a service
    // that died starting is started again, as one that goes away later is.
    if (!printed) throw err;
    startFailed = err as Error;
  } finally {
    watching = false;
  }
  if (!conn && !startFailed && !resume) return undefined;

  let stopping = false;
  let finish!: (code: number | 'stopped') => void;
  const done = new Promise<number | 'stopped'>((resolve) => (finish = resolve));
  const failures: number[] = resume ? [...resume.failures] : [];
  // The door is this process's and the URL out: nothing is left to do but wait, which sh does
  // for ~2 MiB where Node takes ~55 (main/serve/rest.ts). A second after, not at once: while
  // Node becomes sh, a signal finds neither's handler (it ends the process, and the door
  // closes only when the service next looks), and a serve stopped as soon as it started
  // (a script, a test, a quick Ctrl-C) is then still Node, stopping cleanly.
  let restTimer: NodeJS.Timeout | undefined;
  let quit = false;
  let stopped = false;
  // The service is going for good (its bye said so, or the file it leaves as it stops on purpose
  // or quits is there): serve stays Node for its connection's close, whose signal to a resting
  // sh is already spent (it came while this was Node).
  const going = (): boolean => quit || stopped || stoppedOnPurpose(paths.serviceStopped) !== undefined;
  const restNow = async (): Promise<void> => {
    if (!holder || !held || stopping || !printed) return;
    clearTimeout(restTimer);
    await new Promise<void>((r) => (restTimer = setTimeout(r, REST_AFTER_MS)));
    // Whatever serve printed reaches its pipe or terminal before Node goes.
    await new Promise<void>((r) => process.stdout.write('', () => process.stderr.write('', () => r())));
    // (A service gone meanwhile is started again by this Node, its connection's close says so.)
    const service = conn?.hello.pid;
    if (!stopping && held && !going() && service !== undefined && processAlive(service)) rest(holder, { door: spec, failures }, service, paths.serviceStopped);
  };
  const keep = (c: ServiceConnection): void => {
    c.once('bye', (f: { quit?: boolean; stopped?: boolean }) => {
      if (f.quit) quit = true;
      else if (f.stopped) stopped = true;
    });
    c.once('close', () => {
      if (stopping) return;
      // Its bye says how it went, and so does the file it wrote before the bye (should the bye not arrive).
      const left = quit || stopped ? undefined : stoppedOnPurpose(paths.serviceStopped);
      if (quit || left === 'quit') {
        process.stderr.write('serve: Terminal Delight quit and ended every pane; serve stops too\n');
        stopping = true;
        return finish(0);
      }
      // Stopped on purpose: not started again by itself (run() holds the door for the windows).
      if (stopped || left === 'stop') {
        stopping = true;
        clearTimeout(restTimer);
        return finish('stopped');
      }
      process.stderr.write('serve: the service went away; starting it again with this door\n');
      void again();
    });
  };
  const again = async (): Promise<void> => {
    while (!stopping) {
      try {
        const c = await open(false);
        if (!c) throw new Error('the service that answered is too old to open a door: restart serve');
        if (stopping) return c.close();
        conn = c;
        keep(c);
        return await restNow();
      } catch (err) {
        const now = Date.now();
        failures.push(now);
        while (failures.length && failures[0]! < now - 60_000) failures.shift();
        if (failures.length >= 3) {
          process.stderr.write(`serve: ${(err as Error).message}\n`);
          stopping = true;
          return finish(1);
        }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  };
  if (conn) {
    say();
    // Once this serve holds its door (a door nobody claimed lingers a minute, its port taken).
    rememberPort(paths, port);
    keep(conn);
    void restNow();
  } else if (resume) {
    void again();
  } else {
    failures.push(Date.now());
    process.stderr.write(`serve: ${startFailed!.message}; starting the service again with this door\n`);
    void again();
  }
  return {
    done,
    spec,
    stop: () => {
      stopping = true;
      clearTimeout(restTimer);
      // The door closes with serve's connection, or when a held one is let go.
      if (holder && held) letGo(holder);
      conn?.close();
      finish(0);
    },
  };
}

/** What `terminal-delight serve --help` prints. */
export const HELP = `${USAGE.replace('usage: serve', 'usage: terminal-delight serve')}
  Serves the window over HTTP and WebSocket on 127.0.0.1 (the per-user service holds the panes;
  it starts on demand) and prints one line: serving http://127.0.0.1:<port>/?token=<token>.
  --port N             the port (0: a free one; default: the last serve's, where it is free)
  --host HOST          127.0.0.1 (default), ::1 or localhost: loopback only
  --fresh              start the service with an empty session when it is not running
  --cwd DIR            the folder the first pane starts in
  --no-open            print the URL only (the default here; npm start opens the window)
  --service-socket PATH --service-token FILE   relay to a service elsewhere
`;

export async function run(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HELP);
    return 0;
  }
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv);
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message}\n`);
    return 2;
  }
  // Handled from the start: a signal before the door is serve's (its URL may be out already)
  // stops serve at once, letting go of the door it asked for.
  let holder: DoorHolder | undefined;
  let onStop = (signal: string): void => {
    process.stderr.write(`serve: ${signal}, shutting down\n`);
    if (holder) letGo(holder);
    process.exit(0);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => onStop(signal));
  // The service's word to a holder that a stop was on purpose (SIGUSR2) or a quit (SIGUSR1)
  // (main/service/door.ts), which reaches serve while it is still Node too (before it rests,
  // or run again by its sh): the bye on serve's connection says the same. Node's default would
  // end serve for SIGUSR2, and for SIGUSR1 open its inspector on 127.0.0.1:9229 (anyone on the
  // machine could then run code as this user).
  process.on('SIGUSR2', () => {});
  process.on('SIGUSR1', () => {});
  const onSignals = (stop: (signal: string) => void): void => {
    onStop = stop;
  };
  const resume = takeResume();
  if (typeof resume === 'string') {
    process.stderr.write(`serve: ${resume}\n`);
    return 1;
  }
  // --fresh with a service running: stopped and started afresh when that loses nothing, else
  // nothing is touched and serve says why (main/service/fresh.ts).
  if (args.fresh && !resume && !args.serviceSocket) {
    const way = await makeWayForFresh();
    if (!way.ok) {
      process.stderr.write(`serve: ${way.error}\n`);
      return 1;
    }
  }
  if (!args.serviceSocket) {
    const print = (url: string): void => {
      process.stdout.write(`serving ${url}\n`);
      if (args.open) openBrowser(url);
    };
    let next: Resume | undefined = resume;
    for (;;) {
      // Stopped on purpose (told by its bye, or by the resting sh): hold the door until a window asks.
      if (next?.stopped) {
        const paths = statePaths(process.env);
        const message = stoppedMessage(paths.serviceStopped);
        let held;
        try {
          held = await waitStopped(next.door, message, () => serviceStarting());
        } catch (err) {
          process.stderr.write(`serve: ${message} Its door could not be held for the windows (${(err as Error).message}); serve stops\n`);
          return 1;
        }
        process.stderr.write(`serve: ${message} Not starting it again: a window can (Start the service), or \`terminal-delight service start\`; Ctrl-C stops serve\n`);
        const h = held;
        onSignals((signal) => {
          process.stderr.write(`serve: ${signal}, shutting down\n`);
          h.stop();
        });
        if ((await h.done) === 'stop') return 0;
        process.stderr.write('serve: the service is wanted again (a window asked, or it was started); opening this door on it\n');
        next = { door: next.door, failures: [] };
      }
      let door;
      try {
        door = await serveThroughDoor(args, print, next, (h) => (holder = h));
      } catch (err) {
        process.stderr.write(`serve: ${(err as Error).message}\n`);
        return 1;
      }
      if (!door) break;
      const d = door;
      onSignals((signal) => {
        process.stderr.write(`serve: ${signal}, shutting down\n`);
        d.stop();
      });
      const code = await d.done;
      if (code !== 'stopped') return code;
      next = { door: d.spec, failures: [], stopped: true };
    }
    process.stderr.write('serve: the running service is too old to open a door: relaying windows to it instead (restart it to update)\n');
  }
  let served;
  try {
    // Only a relay loads the HTTP server here: through a door, the service runs it.
    const { startServe } = await import('./server.ts');
    served = await startServe({
      port: args.port ?? 0, host: args.host, fresh: args.fresh, cwd: args.cwd ?? process.cwd(),
      service: args.serviceSocket ? { socketPath: args.serviceSocket, tokenFile: args.serviceToken } : true,
    });
  } catch (err) {
    process.stderr.write(`serve: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`serving ${served.url}\n`);
  if (args.open) openBrowser(served.url);
  return new Promise<number>((resolve) => {
    // The service was starting when the URL went out, and did not come up after all.
    served.service.catch((err: Error) => {
      process.stderr.write(`serve: ${err.message}\n`);
      void served.close().finally(() => resolve(1));
    });
    let stopping = false;
    const stop = (signal: string): void => {
      if (stopping) return;
      stopping = true;
      process.stderr.write(`serve: ${signal}, shutting down\n`);
      const force = setTimeout(() => resolve(0), 5000);
      force.unref();
      served.close().then(
        () => resolve(0),
        () => resolve(1),
      );
    };
    onSignals(stop);
  });
}

/** Run as the process's entry: this file under Node, or the bundle (scripts/serve-entry.mjs). */
export function main(): void {
  run(process.argv.slice(2)).then((code) => process.exit(code));
}

const invoked = process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : '';
if (invoked === import.meta.url) main();
