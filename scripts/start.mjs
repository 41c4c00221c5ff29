#!/usr/bin/env node
// `npm start`: Terminal Delight in Electron, downloading its binary first when the electron
// package has none; when that cannot be (no network, as on the build machines), one line
// says why and how to retry, and the `serve` shell starts instead, in Chromium's --app mode
// when a Chromium and a display are there, else with its URL printed (and how to reach it
// over SSH). `--serve` (npm run serve)
// forces serve. Other arguments (--port N, --fresh, --cwd DIR, --no-open) go to serve.
// Ctrl-C, or closing the window, stops the window's side only: the per-user service keeps
// every pane running, and the next `npm start` attaches to it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appSwitches, findBrowser, ROOT_NO_SANDBOX, runningAsRoot } from './find-browser.mjs';
import { newestUnder } from './files.mjs';
import { getElectron } from './get-electron.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The Node package.json's engines names (main/node-version.ts: its search index needs SQLite's FTS5).
{
  const want = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node.replace(/^>=/, '').split('.').map(Number);
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < want[0] || (major === want[0] && minor < want[1])) {
    console.error(`Terminal Delight needs Node ${want.join('.')} or newer (its search index needs SQLite's FTS5 in node:sqlite); this is Node ${process.versions.node}.`);
    process.exit(1);
  }
}
const args = process.argv.slice(2);
const forceServe = args.includes('--serve');
const noOpen = args.includes('--no-open');
const serveArgs = args.filter((a) => a !== '--serve' && a !== '--no-open');

function rendererStale() {
  const index = path.join(root, 'out', 'renderer', 'index.html');
  if (!fs.existsSync(index)) return true;
  const built = fs.statSync(index).mtimeMs;
  const sources = Math.max(newestUnder(path.join(root, 'renderer')), newestUnder(path.join(root, 'preload')), newestUnder(path.join(root, 'common')));
  return sources > built;
}

/**
 * A Node bundle (out/service/service.mjs, out/serve/serve.mjs) is missing or older than the
 * core's sources (main/service/client.ts would then run the service's sources).
 */
function bundleStale(name) {
  const bundle = path.join(root, 'out', name, `${name}.mjs`);
  if (!fs.existsSync(bundle)) return true;
  return Math.max(newestUnder(path.join(root, 'main')), newestUnder(path.join(root, 'preload')), newestUnder(path.join(root, 'common'))) > fs.statSync(bundle).mtimeMs;
}

function build(extra = []) {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs'), ...extra], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('start: the build failed (see above); fix it and run npm start again.');
    process.exit(1);
  }
}

function runElectron(bin) {
  build(['--electron']);
  // Electron is Chromium: as root it too runs only with its sandbox off.
  const asRoot = runningAsRoot();
  if (asRoot) console.error(`start: ${ROOT_NO_SANDBOX}`);
  const child = spawn(bin, [root, ...serveArgs.filter((a) => a === '--fresh'), ...(asRoot ? ['--no-sandbox'] : [])], { cwd: process.cwd(), stdio: 'inherit' });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}

/** Whether a desktop window can be opened here (Linux needs an X or Wayland display). */
function displayAvailable(env = process.env) {
  if (process.platform !== 'linux') return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** How to reach serve from another machine's browser (an SSH session, a container). */
function reachLine(url) {
  const u = new URL(url);
  return `start: open ${url} in a browser here, or from your own machine: ssh -N -L ${u.port}:127.0.0.1:${u.port} ${os.userInfo().username}@${os.hostname()} and open the same URL there.`;
}

/** A browser that exits this soon after it was started did not open a window a person could close. */
const BROWSER_GRACE_MS = Number(process.env.TD_BROWSER_GRACE_MS) > 0 ? Number(process.env.TD_BROWSER_GRACE_MS) : 5000;

function runServe() {
  // TD_SKIP_BUILD=1 (tests) serves whatever out/ holds. serve and the core start from their
  // bundles (scripts/build.mjs builds them), not type-stripped at every start.
  if (process.env.TD_SKIP_BUILD !== '1') {
    if (rendererStale()) build();
    else if (bundleStale('service') || bundleStale('serve')) build(['--service']);
  }
  // serve is only the browser's door: it starts the per-user service (the core, with every
  // pane) when none runs, and the service outlives it (docs/design/service.md).
  const entry = bundleStale('serve')
    ? ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(root, 'main', 'serve', 'main.ts')]
    : [path.join(root, 'out', 'serve', 'serve.mjs')];
  const serve = spawn(
    process.execPath,
    [...entry, '--no-open', '--cwd', process.cwd(), ...serveArgs],
    { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let browser;
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (browser && browser.exitCode === null) browser.kill('SIGTERM');
    if (serve.exitCode === null) serve.kill('SIGINT');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let out = '';
  let opened = false;
  serve.stdout.setEncoding('utf8');
  serve.stdout.on('data', (chunk) => {
    out += chunk;
    process.stdout.write(chunk);
    if (opened) return;
    const m = /^serving (\S+)\n/m.exec(out);
    if (!m) return;
    opened = true;
    const url = m[1];
    if (noOpen) return;
    if (!displayAvailable()) {
      console.error('start: there is no display here (no DISPLAY or WAYLAND_DISPLAY), so no window opens; serving until Ctrl-C.');
      console.error(reachLine(url));
      return;
    }
    const found = findBrowser();
    if ('error' in found) {
      console.error(`start: ${found.error} Serving until Ctrl-C.`);
      console.error(reachLine(url));
      return;
    }
    const chromium = found.path;
    const state = process.env.XDG_STATE_HOME && path.isAbsolute(process.env.XDG_STATE_HOME) ? process.env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
    const profile = path.join(state, 'terminal-delight', 'chromium-profile');
    fs.mkdirSync(profile, { recursive: true });
    const startedAt = Date.now();
    // Only a Chromium this starts gets these switches: one already running with this profile keeps its own.
    if (runningAsRoot()) console.error(`start: ${ROOT_NO_SANDBOX}`);
    browser = spawn(chromium, appSwitches({ url, profile }), { stdio: ['ignore', 'ignore', 'pipe'] });
    let browserErr = '';
    browser.stderr.setEncoding('utf8').on('data', (d) => { browserErr = (browserErr + d).slice(-2000); });
    browser.on('error', (err) => {
      console.error(`start: could not open Chromium (${err.message}); serving until Ctrl-C.`);
      console.error(reachLine(url));
    });
    browser.on('exit', (code, signal) => {
      if (stopping) return;
      const quick = Date.now() - startedAt < BROWSER_GRACE_MS;
      if (quick || code !== 0) {
        // It never showed a window a person could close (no display, a crash, or the URL
        // handed to a Chromium already running): keep serving.
        const why = browserErr.split('\n').map((l) => l.trim()).filter(Boolean).pop();
        console.error(`start: Chromium ${quick ? 'exited at once' : 'ended'} (${signal ?? `code ${code}`})${why ? `: ${why}` : ''}; serving until Ctrl-C.`);
        console.error(reachLine(url));
        return;
      }
      // The person closed the window: serve stops; the service keeps every pane running.
      console.error('start: the window was closed; your panes keep running (npm start attaches again).');
      stop();
    });
  });
  serve.on('exit', (code) => {
    if (browser && browser.exitCode === null) browser.kill('SIGTERM');
    process.exit(code ?? 0);
  });
}

// Electron when a window can open (not --serve or --no-open, and a display on Linux): the
// electron package's binary, downloaded now when it has none (scripts/get-electron.mjs);
// when that fails, one line says why and how to retry, and serve starts instead.
// TD_ELECTRON_DIR names another electron package (the tests' copy).
if (forceServe || noOpen || !displayAvailable()) runServe();
else {
  const got = await getElectron(process.env.TD_ELECTRON_DIR ? { dir: process.env.TD_ELECTRON_DIR } : {});
  if ('path' in got) runElectron(got.path);
  else if (got.interrupted) {
    console.error(`start: ${got.reason}`);
    process.exit(130);
  } else {
    console.error(`start: ${got.reason}`);
    runServe();
  }
}
