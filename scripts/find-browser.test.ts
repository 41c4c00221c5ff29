/**
 * Finding a browser (scripts/find-browser.mjs), as `npm start` and the e2e tests do:
 * real executable files in temp folders, and a real e2e run with no browser anywhere.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { browserPath } from '../e2e/harness.ts';
import { findBrowser, installLocations, NO_BROWSER } from './find-browser.mjs';

const ROOT = path.resolve(import.meta.dirname, '..');
let dir: string;
beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-browser-')); });
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

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
