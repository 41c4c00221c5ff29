import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../core.ts';
import { tempState } from '../panes/testing.ts';
import { APP_CSP, appCspFor, routeAppUrl, trustedSenderUrl, WINDOW_BACKGROUND } from './routes.ts';

let state: ReturnType<typeof tempState>;
let renderer: string;
const core = new Core();
const files = (prefix: string, rest: string) => core.resolveFile(prefix, rest);

beforeAll(() => {
  state = tempState();
  renderer = path.join(state.dir, 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html>');
  fs.writeFileSync(path.join(renderer, 'assets', 'a.js'), '1');
  fs.writeFileSync(path.join(state.dir, 'outside.txt'), 'no');
  const doc = path.join(state.dir, 'doc.html');
  fs.writeFileSync(doc, '<p>x</p>');
  core.serveFiles('artifact', (rest) => (rest === 'p1/doc.html' ? { path: doc, csp: 'sandbox' } : undefined));
});
afterAll(() => state.cleanup());

describe('app:// routes of the Electron shell', () => {
  it('opens windows in the page\'s own background, in each theme (theme.css --bg)', () => {
    const css = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'renderer', 'theme.css'), 'utf8');
    const bg = (block: string) => /--bg:\s*(#[0-9a-f]{6})/i.exec(block)?.[1];
    expect(bg(css.slice(css.indexOf(':root {'), css.indexOf('}', css.indexOf(':root {'))))).toBe(WINDOW_BACKGROUND.dark);
    const light = css.indexOf(':root[data-theme="light"] {');
    expect(bg(css.slice(light, css.indexOf('}', light)))).toBe(WINDOW_BACKGROUND.light);
  });

  it('serves the renderer with the strict CSP', async () => {
    expect(await routeAppUrl('app://td/index.html', files, renderer)).toEqual({ file: path.join(renderer, 'index.html'), type: 'text/html; charset=utf-8', csp: APP_CSP });
    expect(await routeAppUrl('app://td/', files, renderer)).toMatchObject({ file: path.join(renderer, 'index.html') });
    expect(await routeAppUrl('app://td/assets/a.js', files, renderer)).toMatchObject({ type: 'text/javascript; charset=utf-8' });
    expect(APP_CSP).toContain("script-src 'self'");
    expect(APP_CSP).toContain("object-src 'none'");
    // index.html's own inline script (the early one) is allowed by its hash; no other file gets it.
    const built = Buffer.from('<html><head><script>globalThis.e=1</script></head></html>');
    expect(appCspFor(path.join(renderer, 'index.html'), built, renderer, APP_CSP)).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+';/);
    expect(appCspFor(path.join(renderer, 'assets', 'a.js'), built, renderer, APP_CSP)).toBe(APP_CSP);
  });

  it('serves core file routes first, with their own CSP', async () => {
    expect(await routeAppUrl('app://td/artifact/p1/doc.html', files, renderer)).toEqual({ file: path.join(state.dir, 'doc.html'), type: 'text/html; charset=utf-8', csp: 'sandbox' });
    expect(await routeAppUrl('app://td/artifact/p1/other.html', files, renderer)).toEqual({ status: 404, text: 'Not found.' });
  });

  it('never leaves the renderer folder or answers another host', async () => {
    for (const u of ['app://td/../outside.txt', 'app://td/%2e%2e/outside.txt', 'app://td/assets/..%2f..%2foutside.txt', 'app://evil/index.html', 'file:///etc/passwd']) {
      expect('status' in await routeAppUrl(u, files, renderer), u).toBe(true);
    }
  });

  it('trusts only IPC from app://td pages', () => {
    expect(trustedSenderUrl('app://td/index.html')).toBe(true);
    for (const u of ['http://127.0.0.1/', 'app://tdx/index.html', 'app://td', 'file:///x', '', undefined, null]) expect(trustedSenderUrl(u), String(u)).toBe(false);
  });
  it('refuses other app:// pages, such as an HTML artifact served under /artifact/', () => {
    expect(trustedSenderUrl('app://td/index.html#x')).toBe(true);
    expect(trustedSenderUrl('app://td/')).toBe(true);
    for (const u of ['app://td/artifact/p1/s1/page.html', 'app://td/assets/a.js', 'app://td/artifact/../index.html/x', 'app://td.evil/index.html', 'app://x@td/index.html']) {
      expect(trustedSenderUrl(u), u).toBe(false);
    }
  });
});

describe('the core stays free of Electron', () => {
  it('imports electron only in main/electron/ and preload/index.ts', () => {
    const root = path.resolve(import.meta.dirname, '..', '..');
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (p !== path.join(root, 'main', 'electron')) walk(p);
        } else if (/\.tsx?$/.test(e.name) && /from ['"]electron['"]|require\(['"]electron['"]\)/.test(fs.readFileSync(p, 'utf8'))) {
          offenders.push(path.relative(root, p));
        }
      }
    };
    walk(path.join(root, 'main'));
    walk(path.join(root, 'renderer'));
    expect(offenders).toEqual([]);
  });
});
