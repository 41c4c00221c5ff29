/**
 * How npm start gets Electron (scripts/get-electron.mjs): the electron package's own installer
 * run against a mirror on 127.0.0.1 (ELECTRON_MIRROR), never the network, in a copy of the
 * package in a temp folder with its own HOME and XDG folders (the download cache among them).
 */
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../main/panes/testing.ts';
import { stopService } from '../main/service/client.ts';
import { ELECTRON_PACKAGE, electronBinary, getElectron, installerReason } from './get-electron.mjs';

const VERSION: string = JSON.parse(fs.readFileSync(path.join(ELECTRON_PACKAGE, 'package.json'), 'utf8')).version;
const ZIP = `electron-v${VERSION}-${process.platform}-${process.arch}.zip`;

let dir: string;
let env: NodeJS.ProcessEnv;
let pkg: string;
let servers: http.Server[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-electron-test-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
  };
  // The electron package as npm leaves it with its install script off (no dist/, no path.txt);
  // its dependencies are the real ones.
  const nm = path.join(dir, 'node_modules');
  pkg = path.join(nm, 'electron');
  fs.mkdirSync(pkg, { recursive: true });
  for (const f of ['install.js', 'package.json', 'checksums.json', 'index.js', 'cli.js']) fs.copyFileSync(path.join(ELECTRON_PACKAGE, f), path.join(pkg, f));
  for (const scope of ['@electron', '@electron-internal']) fs.symlinkSync(fs.realpathSync(path.join(ELECTRON_PACKAGE, '..', scope)), path.join(nm, scope));
});

afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((resolve) => { s.closeAllConnections(); s.close(resolve); })));
  servers = [];
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A mirror on 127.0.0.1: its base URL, and the paths asked of it. */
async function mirror(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; asked: string[] }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    handle(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`, asked };
}

async function get(extra: NodeJS.ProcessEnv, opts: { stallS?: number; tty?: boolean } = {}) {
  let log = '';
  const got = await getElectron({ dir: pkg, env: { ...env, ...extra }, cwd: dir, log: (s) => (log += s), ...opts });
  return { got, log };
}

const RETRY = 'using the browser instead. Retry: node node_modules/electron/install.js, or npm start again.';

describe('getting Electron for npm start', () => {
  it('says in one line why the download failed and how to retry, and leaves the package as it was (the mirror answers 404)', async () => {
    const m = await mirror((_req, res) => { res.statusCode = 404; res.end('no'); });
    const { got, log } = await get({ ELECTRON_MIRROR: m.url });
    expect(got).toEqual({ reason: `Electron could not be downloaded (Response code 404 (Not Found) for ${m.url}v${VERSION}/${ZIP}); ${RETRY}` });
    expect(m.asked).toEqual([`/v${VERSION}/${ZIP}`]);
    expect(log).toBe(`start: downloading Electron ${VERSION} for the desktop window (once, about 110 MB; Ctrl-C stops)…\n`);
    expect(fs.existsSync(path.join(pkg, 'dist'))).toBe(false);
    expect(fs.existsSync(path.join(pkg, 'path.txt'))).toBe(false);
  });

  it('says what the network said, not only "fetch failed" (a refused connection)', async () => {
    const closed = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const { got } = await get({ ELECTRON_MIRROR: `http://127.0.0.1:${closed}/` });
    expect(got).toEqual({ reason: `Electron could not be downloaded (connect ECONNREFUSED 127.0.0.1:${closed}); ${RETRY}` });
  });

  it('gives up when no data comes (a mirror that never answers), rather than hanging', async () => {
    const m = await mirror(() => { /* never answers */ });
    const { got } = await get({ ELECTRON_MIRROR: m.url }, { stallS: 1 });
    expect(got).toEqual({ reason: `Electron could not be downloaded (no data for 1 s); ${RETRY}` });
    expect(m.asked).toHaveLength(1);
  });

  it('downloads, checks and unpacks the binary when it can, with its progress on a terminal, and uses it from then on', async () => {
    // An Electron release as the mirror serves it: a zip with the program and its version, whose
    // sha256 the package's checksums.json lists.
    const release = path.join(dir, 'release');
    fs.mkdirSync(release);
    fs.writeFileSync(path.join(release, 'electron'), '#!/bin/sh\necho electron\n', { mode: 0o755 });
    fs.writeFileSync(path.join(release, 'version'), `v${VERSION}`);
    fs.writeFileSync(path.join(release, 'filler'), crypto.randomBytes(2_000_000));
    execFileSync('zip', ['-q', '-r', path.join(dir, ZIP), '.'], { cwd: release });
    const zip = fs.readFileSync(path.join(dir, ZIP));
    const checksums = JSON.parse(fs.readFileSync(path.join(pkg, 'checksums.json'), 'utf8'));
    checksums[ZIP] = crypto.createHash('sha256').update(zip).digest('hex');
    fs.writeFileSync(path.join(pkg, 'checksums.json'), JSON.stringify(checksums));
    const m = await mirror((_req, res) => {
      res.setHeader('content-length', zip.length);
      res.end(zip);
    });
    const { got, log } = await get({ ELECTRON_MIRROR: m.url }, { tty: true });
    const program = path.join(pkg, 'dist', 'electron');
    expect(got).toEqual({ path: program });
    expect(execFileSync(program, { encoding: 'utf8' })).toBe('electron\n');
    expect(log.startsWith(`start: downloading Electron ${VERSION} for the desktop window (once, about 110 MB; Ctrl-C stops)…`)).toBe(true);
    expect(log).toMatch(/\r\S.*: (unpacking, )?\d+(\.\d)? MB\x1b\[K/);
    expect(log.endsWith(`\nstart: Electron ${VERSION} is in place (node_modules/electron/dist).\n`)).toBe(true);
    // From then on it is there: no download.
    expect(await get({ ELECTRON_MIRROR: m.url })).toEqual({ got: { path: program }, log: '' });
    expect(m.asked).toHaveLength(1);
  });

  it('uses ELECTRON_OVERRIDE_DIST_PATH as it is, and says so when it holds no Electron', async () => {
    const none = path.join(dir, 'none');
    expect(await get({ ELECTRON_OVERRIDE_DIST_PATH: none })).toEqual({ got: { reason: `ELECTRON_OVERRIDE_DIST_PATH is ${none}, which holds no electron; using the browser instead. Point it at an unpacked Electron, or unset it.` }, log: '' });
    const own = path.join(dir, 'own');
    fs.mkdirSync(own);
    fs.writeFileSync(path.join(own, 'electron'), '#!/bin/sh\n', { mode: 0o755 });
    expect(electronBinary(pkg, { ELECTRON_OVERRIDE_DIST_PATH: own })).toBe(path.join(own, 'electron'));
  });

  it('reads the installer\'s reason from its error, without the error\'s name or stack', () => {
    expect(installerReason('TypeError: fetch failed\n    at node:internal/deps/undici:1:1\n')).toBe('fetch failed');
    expect(installerReason('HTTPError: Response code 404 (Not Found) for http://x/y.zip\n    at FetchDownloader.download\n')).toBe('Response code 404 (Not Found) for http://x/y.zip');
    expect(installerReason('')).toBe('the installer failed without saying why');
  });
});

/** scripts/start.mjs in its own state, its output gathered. */
function startScript(st: ReturnType<typeof tempState>, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'start.mjs'), '--fresh', '--cwd', st.dir], {
    env: { ...st.env, XDG_CACHE_HOME: path.join(st.dir, 'cache'), TD_SKIP_BUILD: '1', TD_ELECTRON_DIR: pkg, DISPLAY: ':97', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { child, out: '', err: '', exited: new Promise<number | null>((resolve) => child.on('close', resolve)) };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (run.out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (run.err += d));
  return run;
}

describe('npm start without Electron', () => {
  it('stops on Ctrl-C during the download, leaving no partial download behind', async () => {
    const st = tempState();
    try {
      const m = await mirror(() => { /* never answers */ });
      const tmp = path.join(st.dir, 'tmp');
      fs.mkdirSync(tmp);
      const run = startScript(st, { ELECTRON_MIRROR: m.url, TMPDIR: tmp, TD_ELECTRON_STALL_S: '120' });
      await waitFor(() => m.asked.length === 1 && fs.readdirSync(tmp).some((f) => f.startsWith('td-electron-')), 'the download to be under way', 60_000);
      expect(run.err).toContain('start: downloading Electron');
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(130);
      expect(run.err).toContain('start: the Electron download was stopped (Ctrl-C). Retry: node ');
      expect(run.out).toBe('');
      expect(fs.readdirSync(tmp)).toEqual([]);
    } finally {
      await stopService({ env: st.env });
      st.cleanup();
    }
  }, 90_000);

  it('tries the download, says in one line why it failed and how to retry, and serves the browser shell instead', async () => {
    const st = tempState();
    try {
      const m = await mirror((_req, res) => { res.statusCode = 404; res.end(); });
      // A browser that stays open (so none is started for real), on a display that need not exist.
      const browser = path.join(st.dir, 'browser.sh');
      fs.writeFileSync(browser, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
      const run = startScript(st, { ELECTRON_MIRROR: m.url, CHROMIUM_PATH: browser });
      await waitFor(() => /^serving http:\/\/127\.0\.0\.1:\d+\/\?token=/m.test(run.out), 'the serving line', 60_000);
      const err = run.err;
      const lines = err.split('\n').filter((l) => l.includes('Electron could not be downloaded'));
      expect(lines).toEqual([`start: Electron could not be downloaded (Response code 404 (Not Found) for ${m.url}v${VERSION}/${ZIP}); using the browser instead. Retry: node ${path.join(pkg, 'install.js')}, or npm start again.`]);
      expect(m.asked).toHaveLength(1);
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(0);
    } finally {
      await stopService({ env: st.env });
      st.cleanup();
    }
  }, 90_000);
});
