// The one way Terminal Delight finds a Chromium-family browser, shared by `npm start`
// (scripts/start.mjs: serve's window in --app mode) and the end-to-end tests
// (e2e/harness.ts, checked once before they run by e2e/global-setup.ts). In order:
// $CHROMIUM_PATH; chromium, chromium-browser, google-chrome, google-chrome-stable on
// PATH; the usual macOS and Windows install locations; Playwright's own downloaded
// Chromium, when present. Nothing is downloaded here.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

function isExecutableFile(p) {
  try {
    if (!fs.statSync(p).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name, env, platform) {
  const exts = platform === 'win32' ? (env.PATHEXT ?? '.EXE').split(';').filter(Boolean) : [''];
  for (const dir of (env.PATH ?? '').split(platform === 'win32' ? ';' : ':')) {
    if (!dir) continue;
    for (const ext of exts) {
      const p = path.join(dir, name + ext.toLowerCase());
      if (isExecutableFile(p)) return p;
    }
  }
  return undefined;
}

/** Install locations outside PATH, per platform. */
export function installLocations(platform = process.platform, env = process.env, home = os.homedir()) {
  if (platform === 'darwin') {
    return ['/Applications', path.join(home, 'Applications')].flatMap((dir) => [
      path.join(dir, 'Chromium.app/Contents/MacOS/Chromium'),
      path.join(dir, 'Google Chrome.app/Contents/MacOS/Google Chrome'),
    ]);
  }
  if (platform === 'win32') {
    const roots = [env.LOCALAPPDATA, env.PROGRAMFILES, env['PROGRAMFILES(X86)'], env.ProgramFiles, env['ProgramFiles(x86)']].filter(Boolean);
    return [...new Set(roots)].flatMap((r) => [path.win32.join(r, 'Google', 'Chrome', 'Application', 'chrome.exe'), path.win32.join(r, 'Chromium', 'Application', 'chrome.exe')]);
  }
  return [];
}

/** Playwright's own Chromium for the installed playwright-core, when it was downloaded (`npx playwright install chromium`). */
function playwrightChromium() {
  try {
    const p = createRequire(import.meta.url)('playwright-core').chromium.executablePath();
    return p && isExecutableFile(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The browser to use: `{ path, from }` (from: 'CHROMIUM_PATH', 'PATH', 'install', 'playwright'),
 * or `{ error }`: one sentence saying what is missing and how to get one.
 */
export function findBrowser({ env = process.env, platform = process.platform, home = os.homedir(), playwright = playwrightChromium } = {}) {
  if (env.CHROMIUM_PATH) {
    return isExecutableFile(env.CHROMIUM_PATH)
      ? { path: env.CHROMIUM_PATH, from: 'CHROMIUM_PATH' }
      : { error: `CHROMIUM_PATH is ${env.CHROMIUM_PATH}, which is not an executable file: point it at Chromium or Google Chrome, or unset it.` };
  }
  for (const name of NAMES) {
    const p = onPath(name, env, platform);
    if (p) return { path: p, from: 'PATH' };
  }
  for (const p of installLocations(platform, env, home)) if (isExecutableFile(p)) return { path: p, from: 'install' };
  const pw = playwright();
  if (pw) return { path: pw, from: 'playwright' };
  return { error: NO_BROWSER };
}

/** What start prints when it turns Chromium's sandbox off (Chromium will not run as root with it on). */
export const ROOT_NO_SANDBOX = "Running as root: Chromium's sandbox is off (--no-sandbox), as Chromium requires.";

/** Whether this process runs as root (euid 0), where Chromium and Electron refuse to start with their sandbox. */
export function runningAsRoot() {
  return typeof process.geteuid === 'function' && process.geteuid() === 0;
}

/**
 * The switches `npm start` opens the app's window with (scripts/start.mjs): --app mode on the
 * URL, the app's own profile, no first-run screens or background traffic, and, as in the
 * Electron shell (main/electron/main.ts), DeferRendererTasksAfterInput off: Chromium holds
 * network tasks after a keydown until the next frame, so a keystroke's echo would wait up to a
 * frame more (bench/window.bench.ts: p99 30.6 ms with it, 20.2 ms without). As root, Chromium
 * runs only with --no-sandbox (it exits at once otherwise), so root gets it.
 */
export function appSwitches({ url, profile, root = runningAsRoot() }) {
  return [
    `--app=${url}`,
    `--user-data-dir=${profile}`,
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-features=DeferRendererTasksAfterInput',
    ...(root ? ['--no-sandbox'] : []),
  ];
}

export const NO_BROWSER = 'No Chromium or Google Chrome was found (CHROMIUM_PATH, chromium, chromium-browser, google-chrome, the usual install folders, Playwright\'s own): install one (on Debian or Ubuntu `sudo apt-get install chromium`, or `npx playwright install chromium` where the network allows) or set CHROMIUM_PATH to its program.';
