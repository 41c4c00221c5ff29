/**
 * serve at rest (docs/design/service.md, "serve at rest"): once its door is open and held by
 * its process rather than its connection (main/service/door.ts), serve has nothing to do but
 * wait, and a Node process waiting costs ~55 MiB. So it replaces itself (process.execve: the
 * same pid, the same terminal, the same parent) with /bin/sh running REST_SCRIPT, ~2 MiB:
 *  - the service keeps a FIFO of serve's open for writing; `cat` reads it, and its end says
 *    the service went away (a crash, kill -9, a stop for an upgrade): sh runs serve again in
 *    Node (the same command, `TD_SERVE_RESUME` giving the door and the failures so far), which
 *    starts the service with the same door and rests again;
 *  - SIGUSR1 from the service says it quit for good: serve stops too;
 *  - SIGUSR2 says it was stopped on purpose: sh runs serve again in Node with
 *    `TD_SERVE_STOPPED=1`, which holds the door for the windows without starting the service
 *    until one asks (main/serve/stopped.ts). Either signal can miss (sent while serve was
 *    still Node, just before it became sh), so the FIFO's end is also read against the file a
 *    service stopped on purpose or quit leaves (run/service.stopped, `how` in it, written
 *    before it tells anyone, removed by the next service as it starts): there, it went on
 *    purpose all the same;
 *  - SIGINT, SIGTERM and SIGHUP stop serve with the line Node's serve prints, and "stop" on
 *    the FIFO closes the door at once (killed with SIGKILL, the service finds the pid gone
 *    within HOLDER_CHECK_MS).
 * Not on Windows, nor where Node has no process.execve (before 22.15), nor with
 * TD_SERVE_REST=0: serve then waits in Node, as before.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { DoorHolder, DoorSpec } from '../clients/wire.ts';
import { parseDoorSpec } from '../clients/wire.ts';

/** How long after its door is held serve rests (main/serve/main.ts says why not at once). */
export const REST_AFTER_MS = 1000;

/** The environment variable a resting serve's sh passes the door on in, when it runs serve again. */
export const RESUME_ENV = 'TD_SERVE_RESUME';
/** Set ("1") by the resting sh when the service was stopped on purpose (SIGUSR2). */
export const STOPPED_ENV = 'TD_SERVE_STOPPED';

/** What serve, run again by its sh, carries on with. */
export interface Resume {
  door: DoorSpec;
  /** When starts failed within the last minute (three end serve). */
  failures: number[];
  /** The service was stopped on purpose: hold the door for the windows, start it only when one asks. */
  stopped?: boolean;
}

/**
 * The shell serve rests as. $1 is the FIFO, $2 the service's pid, $3 the file a service
 * stopped on purpose or quit leaves (run/service.stopped); the rest is serve's own command line, run again
 * when the service goes away. `cat` runs in the background so a signal's trap runs at once
 * (sh's `wait` returns for it) and the trap ends `cat` too.
 */
export const REST_SCRIPT = [
  'fifo=$1; svc=$2; marker=$3; shift 3; stopped=',
  // "stop" on the FIFO closes the door at once; <> opens it without waiting for a reader.
  'stop() { kill "$reader" "$checker" 2>/dev/null; wait "$reader" 2>/dev/null; printf \'stop\\n\' 1<>"$fifo"; rm -f "$fifo"; printf \'%s\\n\' "$1" >&2; exit 0; }',
  'trap \'stop "serve: SIGINT, shutting down"\' INT',
  'trap \'stop "serve: SIGTERM, shutting down"\' TERM',
  'trap \'stop "serve: SIGHUP, shutting down"\' HUP',
  'quit() { stop "serve: Terminal Delight quit and ended every pane; serve stops too"; }',
  'trap quit USR1',
  // Stopped on purpose: the same as the service going away, but serve then waits for a window to ask for it.
  'trap \'stopped=1; kill "$reader" 2>/dev/null\' USR2',
  // Whether a process runs (a zombie, ended and not yet collected, does not).
  'alive() { kill -0 "$1" 2>/dev/null || return 1; [ -r "/proc/$1/stat" ] || return 0; read -r s < "/proc/$1/stat" || return 1; case ${s##*") "} in Z*|X*) return 1;; esac; }',
  'cat "$fifo" >/dev/null & reader=$!',
  // A service gone before cat opened the FIFO would leave cat waiting for a writer for good:
  // look once, a moment after (a service alive then had the FIFO open, so cat's open went through).
  '(sleep 1; alive "$svc" || kill "$reader" 2>/dev/null) & checker=$!',
  'wait "$reader"',
  'kill "$checker" 2>/dev/null',
  'rm -f "$fifo"',
  // A service stopped on purpose (or quit) says so in this file before it signals or closes anything:
  // the signal may have gone to serve while it was still Node, the FIFO gone before cat opened it.
  'if [ -z "$stopped" ] && [ -e "$marker" ]; then case $(cat "$marker" 2>/dev/null) in *\'"how":"quit"\'*) quit;; *) stopped=1;; esac; fi',
  // Stopped: wait (up to 30 s, looking every 50 ms: a window reloaded meanwhile is refused until serve holds the door again) for the service to end first, so its port is free and it is collected here, not left a zombie.
  // (sh's wait collects any child that ended, the service among them: one more after it is gone.)
  'if [ -n "$stopped" ]; then n=0; while alive "$svc" && [ $n -lt 600 ]; do sleep 0.05 & wait $!; n=$((n+1)); done; sleep 0 & wait $!; fi',
  'if [ -n "$stopped" ]; then export TD_SERVE_STOPPED=1; else printf \'%s\\n\' "serve: the service went away; starting it again with this door" >&2; fi',
  'exec "$@"',
].join('\n');

/** Whether serve can rest here (and has not been told not to). */
export function canRest(env: NodeJS.ProcessEnv = process.env): boolean {
  return process.platform !== 'win32' && typeof process.execve === 'function' && env.TD_SERVE_REST !== '0' && fs.existsSync('/bin/sh');
}

/** Make the FIFO a door's holder reads (mode 0600, in the service's run folder), or undefined where it cannot be made. */
export function makeHolder(runDir: string): DoorHolder | undefined {
  const fifo = path.join(runDir, `serve-${process.pid}.fifo`);
  try {
    fs.mkdirSync(runDir, { recursive: true, mode: 0o700 });
    fs.rmSync(fifo, { force: true });
    const made = spawnSync('mkfifo', ['-m', '600', fifo], { stdio: 'ignore' });
    if (made.status !== 0 || !fs.lstatSync(fifo).isFIFO()) return undefined;
  } catch {
    return undefined;
  }
  return { pid: process.pid, fifo };
}

/** Let the door go now, rather than when this process has ended (as sh does in REST_SCRIPT's stop). */
export function letGo(holder: DoorHolder): void {
  try {
    const fd = fs.openSync(holder.fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
    try {
      fs.writeSync(fd, 'stop\n');
    } finally {
      fs.closeSync(fd);
    }
    fs.rmSync(holder.fifo, { force: true });
  } catch {
    // gone already: the service finds this process gone instead
  }
}

/** Take the door a resting serve's sh passed back (and out of the environment, so no child sees its token). */
export function takeResume(env: NodeJS.ProcessEnv = process.env): Resume | string | undefined {
  const raw = env[RESUME_ENV];
  const stopped = env[STOPPED_ENV] === '1';
  delete env[STOPPED_ENV];
  if (raw === undefined) return undefined;
  delete env[RESUME_ENV];
  let v: { door?: unknown; failures?: unknown };
  try {
    v = JSON.parse(raw) as typeof v;
  } catch {
    return `${RESUME_ENV} is not JSON: it is serve's own, passed to itself`;
  }
  const door = parseDoorSpec(v?.door);
  if (typeof door === 'string') return door;
  const failures = Array.isArray(v.failures) ? v.failures.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)) : [];
  return { door, failures, ...(stopped ? { stopped } : {}) };
}

/**
 * Replace this process with the resting shell. Returns only if that failed (serve then
 * waits in Node); never returns otherwise.
 */
export function rest(holder: DoorHolder, resume: Resume, servicePid: number, stoppedFile: string): void {
  const again = [process.execPath, ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env[RESUME_ENV] = JSON.stringify(resume);
  try {
    process.execve!('/bin/sh', ['sh', '-c', REST_SCRIPT, 'serve', holder.fifo, String(servicePid), stoppedFile, ...again], env);
  } catch (err) {
    process.stderr.write(`serve: could not rest as /bin/sh (${(err as Error).message}); waiting in Node instead\n`);
  }
}
