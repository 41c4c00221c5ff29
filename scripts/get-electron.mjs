// How `npm start` gets its Electron (scripts/start.mjs): the binary the electron package
// already has, else the package's own installer (`node node_modules/electron/install.js`,
// which downloads it from GitHub's releases, or $ELECTRON_MIRROR, once) with a one-line
// progress, bounded: no data for STALL seconds, or the whole download past TOTAL seconds,
// ends the attempt. When there is none, the answer is one line saying why and how to retry,
// and start uses the browser shell instead.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bytesUnder } from './files.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The electron package start uses. */
export const ELECTRON_PACKAGE = path.join(here, '..', 'node_modules', 'electron');
/** Seconds with no byte downloaded or unpacked after which the attempt ends. */
export const STALL_S = 20;
/** Seconds the whole download and unpacking may take. */
export const TOTAL_S = 900;

function programName(platform = process.platform) {
  return platform === 'win32' ? 'electron.exe' : platform === 'darwin' ? 'Electron.app/Contents/MacOS/Electron' : 'electron';
}

/** The Electron binary the package at `dir` has (or ELECTRON_OVERRIDE_DIST_PATH names), or undefined. Never downloads. */
export function electronBinary(dir = ELECTRON_PACKAGE, env = process.env) {
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = path.join(env.ELECTRON_OVERRIDE_DIST_PATH, programName());
    return fs.existsSync(p) ? p : undefined;
  }
  try {
    const rel = fs.readFileSync(path.join(dir, 'path.txt'), 'utf8').trim();
    const p = path.join(dir, 'dist', rel);
    return rel && fs.existsSync(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

const mb = (n) => `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0)} MB`;
/** The progress line's figure: bytes downloaded, then (the download moved into the cache) bytes unpacked. */
const progress = (bytes, unpacked) => (unpacked > 0 ? `unpacking, ${mb(unpacked)}` : mb(bytes));

/** The installer's reason, from what it printed (its error's first line, "Error: " and the like left out). */
export function installerReason(stderr) {
  const line = stderr.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('at '));
  return line ? line.replace(/^[A-Za-z]*Error: /, '').replace(/[.\s]+$/, '') : 'the installer failed without saying why';
}

/** `p` as a person would type it from `cwd`. */
function shown(p, cwd) {
  const rel = path.relative(cwd, p);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : p;
}

/**
 * The Electron binary to start: `{ path }`, downloading it first when the package lacks it, or
 * `{ reason }`: one line saying why there is none, that the browser is used instead, and how to
 * retry (`interrupted` too when Ctrl-C stopped the download). `log` gets whole lines (and,
 * when `tty`, a progress line rewritten in place).
 */
export async function getElectron({ dir = ELECTRON_PACKAGE, env = process.env, cwd = process.cwd(), log = (s) => process.stderr.write(s), tty = Boolean(process.stderr.isTTY), stallS = Number(env.TD_ELECTRON_STALL_S) > 0 ? Number(env.TD_ELECTRON_STALL_S) : STALL_S, totalS = TOTAL_S } = {}) {
  if (env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = electronBinary(dir, env);
    return p ? { path: p } : { reason: `ELECTRON_OVERRIDE_DIST_PATH is ${env.ELECTRON_OVERRIDE_DIST_PATH}, which holds no ${programName()}; using the browser instead. Point it at an unpacked Electron, or unset it.` };
  }
  const have = electronBinary(dir, env);
  if (have) return { path: have };
  const installer = path.join(dir, 'install.js');
  if (!fs.existsSync(installer)) return { reason: `the electron package is not installed (${shown(dir, cwd)} has no install.js); using the browser instead. Retry: npm install, then npm start.` };
  let version = '';
  try {
    version = ` ${JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version}`;
  } catch {
    // said without it
  }
  const retry = `Retry: node ${shown(installer, cwd)}, or npm start again.`;
  const head = `start: downloading Electron${version} for the desktop window (once, about 110 MB; Ctrl-C stops)`;
  log(tty ? `${head}…` : `${head}…\n`);
  // Its temporary download goes into a folder of ours, so its size is the progress.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'td-electron-'));
  const child = spawn(process.execPath, ['--import', pathToFileURL(path.join(here, 'electron-install-why.mjs')).href, installer], {
    cwd: dir,
    env: { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, ELECTRON_GET_NO_PROGRESS: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d) => { out = (out + d).slice(-4000); });
  child.stderr.setEncoding('utf8').on('data', (d) => { out = (out + d).slice(-4000); });
  const started = Date.now();
  let seen = -1;
  let lastChange = started;
  let ended;
  const poll = setInterval(() => {
    const unpacked = bytesUnder(path.join(dir, 'dist'));
    const bytes = bytesUnder(tmp) + unpacked;
    const now = Date.now();
    if (bytes !== seen) {
      seen = bytes;
      lastChange = now;
      if (tty && bytes > 0) log(`\r${head}: ${progress(bytes, unpacked)}\x1b[K`);
    }
    if (now - lastChange > stallS * 1000) ended = `no data for ${stallS} s`;
    else if (now - started > totalS * 1000) ended = `it took more than ${Math.round(totalS / 60)} min`;
    if (ended) child.kill('SIGKILL');
  }, 250);
  // Ctrl-C ends the download (and, in start, start itself) without leaving a partial one behind.
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    child.kill('SIGKILL');
  };
  process.once('SIGINT', onInterrupt);
  const code = await new Promise((resolve) => {
    child.on('error', (err) => { ended ??= err.message; resolve(1); });
    child.on('close', (c, signal) => {
      if (signal === 'SIGINT') interrupted = true; // the terminal's Ctrl-C reached it first
      resolve(c);
    });
  });
  process.off('SIGINT', onInterrupt);
  clearInterval(poll);
  fs.rmSync(tmp, { recursive: true, force: true });
  if (interrupted) {
    if (tty) log('\n');
    return { reason: `the Electron download was stopped (Ctrl-C). ${retry}`, interrupted: true };
  }
  if (tty) {
    // Where it got to (all of it, once unpacked), however soon it ended.
    const unpacked = bytesUnder(path.join(dir, 'dist'));
    log(unpacked > 0 && unpacked !== seen ? `\r${head}: ${progress(unpacked, unpacked)}\x1b[K\n` : '\n');
  }
  const got = code === 0 ? electronBinary(dir, env) : undefined;
  if (got) {
    log(`start: Electron${version} is in place (${shown(path.join(dir, 'dist'), cwd)}).\n`);
    return { path: got };
  }
  const why = ended ?? (code === 0 ? 'the installer ended without putting it in place' : installerReason(out));
  return { reason: `Electron could not be downloaded (${why}); using the browser instead. ${retry}` };
}
