/**
 * Finding a browser (scripts/find-browser.mjs), as `npm start` and the e2e tests do:
 * real executable files in temp folders, and a real e2e run with no browser anywhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserPath } from '../e2e/harness.ts';
import { waitFor } from '../main/panes/testing.ts';
import { appSwitches, findBrowser, installLocations, NO_BROWSER, ROOT_NO_SANDBOX } from './find-browser.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-browser-')); });
// Retried: a browser's helper processes may still be writing its profile for a moment after it is killed.
afterEach(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 }));

function program(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return file;
}
const none = () => undefined;

describe('findBrowser', () => {
  it('finds Google Chrome on PATH when there is no Chromium (a Mac with Chrome, an Ubuntu without Debian\'s package)', () => {
    const chrome = program(path.join(dir, 'bin', 'google-chrome'));
    expect(findBrowser({ env: { PATH: path.join(dir, 'bin') }, platform: 'linux', home: dir, playwright: none })).toEqual({ path: chrome, from: 'PATH' });
  });

  it('prefers CHROMIUM_PATH, then chromium over chromium-browser over google-chrome', () => {
    const bin = path.join(dir, 'bin');
    program(path.join(bin, 'google-chrome'));
    const cb = program(path.join(bin, 'chromium-browser'));
    expect(findBrowser({ env: { PATH: bin }, platform: 'linux', home: dir, playwright: none })).toEqual({ path: cb, from: 'PATH' });
    const own = program(path.join(dir, 'mine', 'chrome'));
    expect(findBrowser({ env: { PATH: bin, CHROMIUM_PATH: own }, platform: 'linux', home: dir, playwright: none })).toEqual({ path: own, from: 'CHROMIUM_PATH' });
  });

  it('says in one sentence when CHROMIUM_PATH names no program', () => {
    const r = findBrowser({ env: { CHROMIUM_PATH: path.join(dir, 'nope') }, platform: 'linux', home: dir, playwright: none });
    expect(r).toEqual({ error: `CHROMIUM_PATH is ${path.join(dir, 'nope')}, which is not an executable file: point it at Chromium or Google Chrome, or unset it.` });
  });

  it('looks in the macOS and Windows install folders', () => {
    const app = program(path.join(dir, 'Applications', 'Google Chrome.app', 'Contents', 'MacOS', 'Google Chrome'));
    expect(findBrowser({ env: { PATH: '' }, platform: 'darwin', home: dir, playwright: none })).toEqual({ path: app, from: 'install' });
    expect(installLocations('darwin', {}, '/Users/ada')).toContain('/Applications/Google Chrome.app/Contents/MacOS/Google Chrome');
    expect(installLocations('win32', { LOCALAPPDATA: 'C:\\Users\\ada\\AppData\\Local', PROGRAMFILES: 'C:\\Program Files' }, 'C:\\Users\\ada')).toEqual([
      'C:\\Users\\ada\\AppData\\Local\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Users\\ada\\AppData\\Local\\Chromium\\Application\\chrome.exe',
      'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', 'C:\\Program Files\\Chromium\\Application\\chrome.exe',
    ]);
  });

  it('falls back to Playwright\'s own Chromium, then to one sentence on how to get a browser', () => {
    const pw = program(path.join(dir, 'ms-playwright', 'chrome'));
    expect(findBrowser({ env: { PATH: '' }, platform: 'linux', home: dir, playwright: () => pw })).toEqual({ path: pw, from: 'playwright' });
    expect(findBrowser({ env: { PATH: '' }, platform: 'linux', home: dir, playwright: none })).toEqual({ error: NO_BROWSER });
    expect(NO_BROWSER).toMatch(/^No Chromium or Google Chrome was found .*`sudo apt-get install chromium`.*`npx playwright install chromium`.*\.$/);
    expect(NO_BROWSER.split(/\.\s/)).toHaveLength(1);
  });
});

describe('the e2e harness', () => {
  it('launches the browser findBrowser finds', () => {
    const own = program(path.join(dir, 'chrome'));
    const before = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = own;
    try {
      expect(browserPath()).toBe(own);
    } finally {
      if (before === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = before;
    }
  });

  it('with no browser anywhere, an e2e run fails once, before any test, with the one sentence', () => {
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    for (const tool of ['sh', 'env']) fs.symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), path.join(bin, tool));
    const env: NodeJS.ProcessEnv = { PATH: `${path.dirname(process.execPath)}:${bin}`, HOME: dir, TD_TEST: '1' };
    const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'e2e', 'e2e/agent.e2e.ts'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.status).toBe(1);
    expect(out.split(NO_BROWSER).length - 1).toBe(1);
    expect(out).not.toMatch(/browserType\.launch|Executable doesn't exist|Failed to launch/);
    expect(out).toMatch(/no tests/);
  }, 120_000);
});

describe('the window npm start opens', () => {
  const url = 'http://127.0.0.1:8123/?token=t';
  it('is Chromium in --app mode with its own profile and a keystroke\'s echo not held for a frame; as root, with its sandbox off', () => {
    const user = appSwitches({ url, profile: '/p', root: false });
    expect(user).toEqual([
      `--app=${url}`, '--user-data-dir=/p', '--no-first-run', '--no-default-browser-check',
      '--disable-background-networking', '--disable-component-update', '--disable-features=DeferRendererTasksAfterInput',
    ]);
    expect(appSwitches({ url, profile: '/p', root: true })).toEqual([...user, '--no-sandbox']);
    // Left to itself, it asks the process (root on these build machines, in containers, in CI).
    expect(appSwitches({ url, profile: '/p' })).toEqual(process.geteuid!() === 0 ? [...user, '--no-sandbox'] : user);
    expect(ROOT_NO_SANDBOX).toBe('Running as root: Chromium\'s sandbox is off (--no-sandbox), as Chromium requires.');
  });

  it('a real Chromium started with those switches by this user (root here) loads the page', async () => {
    let seen = '';
    const server = http.createServer((req, res) => {
      if (req.url?.startsWith('/seen')) seen = decodeURIComponent(req.url.slice('/seen?'.length));
      res.setHeader('content-type', 'text/html');
      res.end('<title>t</title><script>fetch("/seen?" + encodeURIComponent(location.search))</script>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const page = `http://127.0.0.1:${(server.address() as { port: number }).port}/?token=t`;
    const found = findBrowser();
    if ('error' in found) throw new Error(found.error);
    // --headless: no display here; everything else is what npm start gives it.
    const home = path.join(dir, 'home');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') };
    const browser = spawn(found.path, [...appSwitches({ url: page, profile: path.join(dir, 'profile') }), '--headless', '--disable-gpu'], { env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    const gone = new Promise<void>((resolve) => browser.on('exit', () => resolve()));
    let err = '';
    browser.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    try {
      // Without --no-sandbox as root, Chromium exits at once ("Running as root without --no-sandbox is not supported").
      const exited = new Promise<never>((_, reject) => browser.on('exit', (code) => reject(new Error(`Chromium exited (${code}) before the page loaded: ${err.slice(-500)}`))));
      await Promise.race([waitFor(() => seen, 'the page to load in Chromium', 60_000), exited]);
      expect(seen).toBe('?token=t');
    } finally {
      // The whole group (its renderer, GPU and zygote processes too), and its end waited for, so none writes into the profile as it is removed.
      try { process.kill(-browser.pid!, 'SIGKILL'); } catch { browser.kill('SIGKILL'); }
      await gone;
      server.close();
    }
  }, 90_000);
});
