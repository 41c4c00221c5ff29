#!/usr/bin/env node
// `npm start`: Terminal Delight in Electron when its binary is present; otherwise (as on
// machines where the electron package could not download it) one line says so and the
// `serve` shell starts instead, in Chromium's --app mode when a Chromium is installed,
// else with its URL printed. `--serve` (npm run serve) forces serve. Other arguments
// (--port N, --fresh, --cwd DIR, --no-open) go to serve. Ctrl-C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBrowser } from './find-browser.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const forceServe = args.includes('--serve');
const noOpen = args.includes('--no-open');
const serveArgs = args.filter((a) => a !== '--serve' && a !== '--no-open');

/** The Electron binary, when the electron package has it (never triggers its download). */
function electronBinary() {
  const dir = path.join(root, 'node_modules', 'electron');
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, process.platform === 'win32' ? 'electron.exe' : 'electron');
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

/** Newest modification time of any file under dir (0 when none). */
function newest(dir) {
  let t = 0;
  let entries = [];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else {
      try {
        t = Math.max(t, fs.statSync(p).mtimeMs);
      } catch {
        // vanished
      }
    }
  }
  return t;
}

function rendererStale() {
  const index = path.join(root, 'out', 'renderer', 'index.html');
  if (!fs.existsSync(index)) return true;
  const built = fs.statSync(index).mtimeMs;
  const sources = Math.max(newest(path.join(root, 'renderer')), newest(path.join(root, 'preload')));
  return sources > built;
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
  const child = spawn(bin, [root, ...serveArgs.filter((a) => a === '--fresh')], { cwd: process.cwd(), stdio: 'inherit' });
  const stop = () => child.kill('SIGTERM');
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  child.on('exit', (code) => process.exit(code ?? 0));
}

function runServe() {
  // TD_SKIP_BUILD=1 (tests) serves whatever out/renderer holds.
  if (process.env.TD_SKIP_BUILD !== '1' && rendererStale()) build();
  const serve = spawn(
    process.execPath,
    // A small young generation: a flood's garbage is collected early instead of growing
    // the core's resident memory (bench/window.bench.ts: peak 2.07x idle without, ~1.3x with).
    ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', '--max-semi-space-size=8', path.join(root, 'main', 'serve', 'main.ts'), '--no-open', ...serveArgs],
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
    const found = noOpen ? undefined : findBrowser();
    if (!found || 'error' in found) {
      if (found) console.error(`start: ${found.error} Meanwhile, open ${url} in a browser.`);
      return;
    }
    const chromium = found.path;
    const state = process.env.XDG_STATE_HOME && path.isAbsolute(process.env.XDG_STATE_HOME) ? process.env.XDG_STATE_HOME : path.join(os.homedir(), '.local', 'state');
    const profile = path.join(state, 'terminal-delight', 'chromium-profile');
    fs.mkdirSync(profile, { recursive: true });
    browser = spawn(chromium, [`--app=${url}`, `--user-data-dir=${profile}`, '--no-first-run', '--no-default-browser-check', '--disable-background-networking', '--disable-component-update'], { stdio: 'ignore' });
    browser.on('error', (err) => console.error(`start: could not open Chromium (${err.message}): open ${url} in a browser.`));
    // Closing the window ends the session.
    browser.on('exit', () => stop());
  });
  serve.on('exit', (code) => {
    if (browser && browser.exitCode === null) browser.kill('SIGTERM');
    process.exit(code ?? 0);
  });
}

const electron = forceServe ? undefined : electronBinary();
if (electron) runElectron(electron);
else {
  if (!forceServe) console.error('start: the Electron binary is missing (node_modules/electron has no dist/), so starting the browser shell (serve) instead.');
  runServe();
}
