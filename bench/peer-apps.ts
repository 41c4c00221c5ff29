/**
 * The two apps the peer benchmark runs side by side, each started as a person starts it,
 * in a fresh HOME (bash with the prompt `td$ `) and state folder:
 *  - ours: `serve` from its bundle (out/serve/serve.mjs, as `npm start` runs it: the
 *    browser's door, a relay) which starts the per-user service from its bundle
 *    (out/service/service.mjs) with the core's V8 flags;
 *    its processes on the output path are the relay and the service;
 *  - WeTTY 3.2.0 (node-pty + xterm 6 + socket.io), installed from the registry into
 *    ~/.cache/terminal-delight-bench/wetty by this file (its node-pty built there; never
 *    committed), running `/bin/bash -l` as its command; one process.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { quietDotfiles } from '../main/panes/testing.ts';
import { CORE_V8_FLAGS, serviceCommand, stopService } from '../main/service/client.ts';
import { processAlive } from '../main/panes/proc.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');
const WETTY_VERSION = '3.2.0';
const WETTY_DIR = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'terminal-delight-bench', 'wetty');
const WETTY_MAIN = path.join(WETTY_DIR, 'node_modules', 'wetty', 'build', 'main.js');

export interface App {
  name: 'ours' | 'WeTTY';
  /** The page to open. */
  url: string;
  /** When the process was spawned (performance.now()). */
  spawnedAt: number;
  /** When it was ready for a page: ours printed its URL, WeTTY accepted a connection (performance.now()). */
  readyAt: number;
  /** Every process of the app on the output path (not the shell). */
  pids(): number[];
  /** Ours: the service's process. */
  servicePid?: number;
  stop(): Promise<void>;
}

/** WeTTY 3.2.0 in the cache folder, installed with npm the first time (node-pty built for this node). */
export function ensureWetty(log: (l: string) => void): string {
  const pkg = path.join(WETTY_DIR, 'node_modules', 'wetty', 'package.json');
  const have = fs.existsSync(pkg) ? (JSON.parse(fs.readFileSync(pkg, 'utf8')) as { version: string }).version : undefined;
  const pty = path.join(WETTY_DIR, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node');
  if (have === WETTY_VERSION && fs.existsSync(pty)) return WETTY_MAIN;
  log(`installing WeTTY ${WETTY_VERSION} into ${WETTY_DIR} (once)`);
  fs.mkdirSync(WETTY_DIR, { recursive: true });
  if (!fs.existsSync(path.join(WETTY_DIR, 'package.json'))) fs.writeFileSync(path.join(WETTY_DIR, 'package.json'), '{"name":"td-bench-wetty","private":true}\n');
  const npm = path.join(path.dirname(process.execPath), 'npm');
  const r = spawnSync(fs.existsSync(npm) ? npm : 'npm', ['install', '--no-audit', '--no-fund', '--save-exact', `wetty@${WETTY_VERSION}`], { cwd: WETTY_DIR, encoding: 'utf8', env: process.env });
  if (r.status !== 0 || !fs.existsSync(pty)) throw new Error(`installing WeTTY ${WETTY_VERSION} failed (exit ${r.status}): ${(r.stderr || r.stdout).slice(-800)}; run npm install wetty@${WETTY_VERSION} in ${WETTY_DIR} to see why`);
  return WETTY_MAIN;
}

/** Build what `npm start` would: the renderer, the service's and serve's bundles, when older than their sources. */
export function ensureBuilt(): void {
  const newest = (dir: string): number => {
    let t = 0;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      t = Math.max(t, e.isDirectory() ? newest(p) : fs.statSync(p).mtimeMs);
    }
    return t;
  };
  const mtime = (f: string) => (fs.existsSync(f) ? fs.statSync(f).mtimeMs : 0);
  const sources = Math.max(newest(path.join(ROOT, 'main')), newest(path.join(ROOT, 'preload')), newest(path.join(ROOT, 'renderer')));
  if (mtime(path.join(ROOT, 'out', 'renderer', 'index.html')) < sources || mtime(path.join(ROOT, 'out', 'service', 'service.mjs')) < sources || mtime(path.join(ROOT, 'out', 'serve', 'serve.mjs')) < sources) {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
    if (r.status !== 0) throw new Error('the build failed: run npm run build to see why');
  }
}

/**
 * One cache folder for the whole run (XDG_CACHE_HOME): the service's compile cache
 * (main/compile-cache.ts) is cold in the first round and warm from the second, as on a
 * person's machine from the second start on. Removed when the bench ends.
 */
let cacheHome: string | undefined;
function benchCacheHome(): string {
  if (!cacheHome) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-cache-'));
    cacheHome = dir;
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return cacheHome;
}

/** A fresh HOME (quiet bash, prompt `td$ `), cwd and state folder; removed by cleanup. */
function folders(): { dir: string; home: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-peer-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  quietDotfiles(home, 'td$ ');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(dir, 'state'), XDG_CACHE_HOME: benchCacheHome(), SHELL: '/bin/bash', TD_SOCKET: path.join(dir, 'state', 'app.sock') };
  delete env.NODE_OPTIONS;
  // TD_BENCH_NODE_OPTIONS: NODE_OPTIONS for serve and the service it starts (e.g. `--cpu-prof --cpu-prof-dir=DIR` to see where their time goes).
  if (process.env.TD_BENCH_NODE_OPTIONS) env.NODE_OPTIONS = process.env.TD_BENCH_NODE_OPTIONS;
  return { dir, home, env, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Ours as `npm start` runs it (serve's bundle: a relay, and the service it starts), or with
 * `inProcess` the core inside serve's own process (bench/serve-inproc.ts, with the core's V8
 * flags): the baseline for the extra hop.
 */
export async function startOurs(opts: { inProcess?: boolean } = {}): Promise<App> {
  // A file under main/ or preload/ edited during a run makes the bundle stale, and the service
  // would start from its sources (type-stripped, ~250 ms slower): figures that are not the app's.
  if (!opts.inProcess && !serviceCommand().args.some((a) => a.endsWith(path.join('out', 'service', 'service.mjs')))) {
    throw new Error('the service\'s bundle is older than a file under main/ or preload/ (edited while the bench ran?), so the service would start from its sources: run the bench again');
  }
  const f = folders();
  const spawnedAt = performance.now();
  const entry = opts.inProcess
    ? [...CORE_V8_FLAGS, '--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(ROOT, 'bench', 'serve-inproc.ts'), '--cwd', f.dir]
    : [path.join(ROOT, 'out', 'serve', 'serve.mjs'), '--port', '0', '--fresh', '--no-open', '--cwd', f.dir];
  const child = spawn(process.execPath, entry, { cwd: f.dir, env: f.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /^serving (\S+)$/m.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it was ready: ${err}`)));
  });
  const readyAt = performance.now();
  const lock = path.join(f.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock');
  const servicePid = opts.inProcess ? undefined : (JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid;
  return {
    name: 'ours',
    url,
    spawnedAt,
    readyAt,
    pids: () => (servicePid ? [child.pid!, servicePid] : [child.pid!]),
    servicePid,
    async stop() {
      await stopChild(child);
      // A service that does not stop is killed by its pid before its folders go, and the bench fails saying so
      // (deleted under a running service, its floods went on beside the next benches).
      const failed = await stopService({ env: f.env }).then(() => undefined, (err: Error) => err);
      // (Its lock goes last; the process exits within about 200 ms after.)
      if (!failed && servicePid !== undefined) for (const until = Date.now() + 5_000; processAlive(servicePid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
      const left = failed || (servicePid !== undefined && processAlive(servicePid));
      if (left && servicePid !== undefined) {
        try {
          process.kill(servicePid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
        for (const until = Date.now() + 10_000; processAlive(servicePid) && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
      }
      f.cleanup();
      if (left) throw new Error(`the bench's service did not stop (${failed ? failed.message : `pid ${servicePid} still ran 5 s after its lock went`}); killed by its pid with SIGKILL before its folders were removed`);
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startWetty(main: string): Promise<App> {
  const f = folders();
  const port = await freePort();
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [main, '--host', '127.0.0.1', '--port', String(port), '--command', '/bin/bash -l', '--log-level', 'warn'], {
    cwd: f.dir, env: f.env, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
  // Listening: a connection is accepted.
  const until = Date.now() + 30_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) break;
    if (child.exitCode !== null || Date.now() > until) throw new Error(`WeTTY did not listen on ${port}: ${err}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const readyAt = performance.now();
  return {
    name: 'WeTTY',
    url: `http://127.0.0.1:${port}/`,
    spawnedAt,
    readyAt,
    pids: () => [child.pid!],
    async stop() {
      await stopChild(child);
      f.cleanup();
    },
  };
}

/** CPU seconds (user + system) a process has used. */
export function cpuSeconds(pid: number): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks (100 a second on Linux).
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return 0;
  }
}
