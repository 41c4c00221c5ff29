/**
 * The service's entry (docs/design/service.md): `node main/service/main.ts [--fresh]`,
 * started detached by whichever client comes first (main/service/client.ts). Prints one
 * line when it listens, `service: ready (pid N) on <socket>`, or `service: already running
 * (pid N)` and exits 0 when another holds the lock. SIGTERM, SIGINT and SIGHUP stop it,
 * saving the session first (its panes come back ended, ready to resume).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { statePaths } from '../paths.ts';
import { appVersion, SERVICE_STARTED_AT } from '../version.ts';
import { persistCompileCacheSoon, useCompileCache } from '../compile-cache.ts';
import { takeServiceLock } from './lock.ts';
import { takeServiceOnlyEnv } from './service-env.ts';
import { askForDoorSocket } from '../door/handover.ts';
import type { Gc } from './memory.ts';

export const USAGE = 'usage: service [--fresh]';

/** How often the service keeps the screens of panes that changed (TD_SCREEN_SAVE_MS for tests). */
const SCREEN_SAVE_MS = 30_000;

/** The start is over this long after the service is ready (its compile cache is written at 3 s): what it made is given back then. */
const START_SETTLED_MS = 5_000;

/** Another service holds this state folder's lock: say which, and exit 0. */
function alreadyRunning(pid: number): number {
  process.stdout.write(`service: already running (pid ${pid})\n`);
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  let fresh = false;
  try {
    const { values } = parseArgs({ args: argv, options: { fresh: { type: 'boolean' } }, strict: true, allowPositionals: false });
    fresh = values.fresh === true;
  } catch (err) {
    process.stderr.write(`service: ${(err as Error).message.split('\n')[0]}; ${USAGE}\n`);
    return 2;
  }
  const idle = Number(process.env.TD_SERVICE_IDLE_MS);
  // A starting serve's door (main/service/door.ts): taken out of the environment before any
  // pane or Tick could inherit its token.
  const doorAtStart = process.env.TD_DOOR;
  delete process.env.TD_DOOR;
  // And what was set for the service alone (its allocator's settings, Electron's run-as-Node).
  takeServiceOnlyEnv();
  // The lock first, the core after: a client that finds the lock held waits for this service
  // to answer instead of starting another (main/service/client.ts), and serve can print its
  // URL while the core loads.
  let lock;
  try {
    lock = takeServiceLock(statePaths(), appVersion());
  } catch (err) {
    process.stderr.write(`service: ${(err as Error).message}\n`);
    return 1;
  }
  if (!lock.held) return alreadyRunning(lock.holder.pid);
  // serve's bound socket for the door, asked for once the lock is held (a command run after
  // serve's URL is out finds this service starting: main/door/handover.ts); the page
  // may wait in the socket's backlog from then on.
  const handedDoor = askForDoorSocket();
  // The bundles and dependencies loaded from here on come from the compile cache once warm.
  useCompileCache();
  // The door listens before the core loads: the page loads meanwhile.
  const { Doors } = await import('./door.ts');
  const doors = new Doors();
  const listener = await handedDoor;
  if (doorAtStart) {
    const why = await doors.openAtStart(doorAtStart, listener);
    if (why) process.stderr.write(`service: the door serve asked for was not opened: ${why}\n`);
  } else listener?.close();
  const [{ startService }, { returnMemoryWhenQuiet }] = await Promise.all([import('./service.ts'), import('./memory.ts')]);
  let result;
  try {
    result = await startService({
      lock,
      doors,
      fresh,
      idleMs: Number.isFinite(idle) && idle >= 0 && process.env.TD_SERVICE_IDLE_MS !== '' ? idle : undefined,
      onStopped: (code) => {
        process.stdout.write(`service: stopped at ${new Date().toISOString()}\n`);
        process.exitCode = code;
        // Whatever still holds the loop (a pane's last output being drained) is not waited for.
        setTimeout(() => process.exit(code), 200).unref();
      },
    });
  } catch (err) {
    process.stderr.write(`service: ${(err as Error).message}\n`);
    return 1;
  }
  if (!result.started) return alreadyRunning(result.holder.pid);
  const { service } = result;
  const memory = returnMemoryWhenQuiet(service.app.panes, (globalThis as { gc?: Gc }).gc, { windows: service.app.hub });
  // Screens kept as they change, so a crash loses at most this much of what panes showed; what
  // a round of saves made (a snapshot of each pane) is given back after it.
  const keepEvery = Number(process.env.TD_SCREEN_SAVE_MS);
  service.app.core.onDispose(service.app.panes.keepScreens(Number.isFinite(keepEvery) && keepEvery > 0 ? keepEvery : SCREEN_SAVE_MS, () => memory.afterWork()));
  // And what the start made (the modules loaded and compiled, the session read, the first
  // pane and window), once the start is over and its compile cache written.
  setTimeout(() => memory.afterWork(), START_SETTLED_MS).unref();
  // And what indexing a flood for search made, once the index has caught up with it (it reads
  // at most a fifth of the loop's time, so it ends after the flood and its own give-back).
  service.app.core.onDispose(service.app.search.onDrained(() => memory.afterWork()));
  process.stdout.write(`service: ready (pid ${process.pid}) on ${service.paths.serviceSocket} at ${SERVICE_STARTED_AT}\n`);
  // What the start compiled goes to the cache once the first window is likely served (main/compile-cache.ts).
  persistCompileCacheSoon(3_000);
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(sig, () => void service.stop(`the service was stopped (${sig})`));
  }
  // Detached, nobody reads a broken pipe's error: never die of one.
  process.on('SIGPIPE', () => {});
  process.on('uncaughtException', (err) => {
    // Logged, then the process ends without a clean-shutdown mark: the next start says it stopped unexpectedly.
    process.stderr.write(`service: ${new Date().toISOString()} uncaught: ${err.stack ?? err.message}\n`);
    process.exit(70);
  });
  return new Promise<number>(() => {});
}

/** Run as the process's entry: this file under Node, or the bundle (scripts/service-entry.mjs). */
export function main(): void {
  run(process.argv.slice(2)).then((code) => {
    if (code !== 0 || process.exitCode === undefined) process.exit(code);
  });
}

const invoked = process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : '';
if (invoked === import.meta.url) main();
