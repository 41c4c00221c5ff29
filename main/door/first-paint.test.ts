/**
 * The door's index.html: the window's theme and first paint, drawn from a real core with a
 * real pane (a login shell in a PTY) that printed colours and hostile text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { FIRST_PAINT_MAX_CHARS } from '../../common/first-paint.ts';
import { windowTheme, withAnswer } from './first-paint.ts';
import { startServe, type Served } from '../serve/server.ts';
import { get } from '../serve/testing.ts';

const INDEX = '<!doctype html>\n<html lang="en">\n  <body>\n    <div id="root"></div>\n  </body>\n</html>\n';
let state: ReturnType<typeof tempState>;
let served: Served;
let cookie: Record<string, string>;
let paneId: string;

beforeAll(async () => {
  state = tempState();
  const renderer = path.join(state.dir, 'renderer');
  fs.mkdirSync(renderer, { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), INDEX);
  served = await startServe({ port: 0, fresh: true, cwd: state.dir, env: state.env, rendererDir: renderer });
  cookie = { Cookie: `td_token=${served.token}` };
  paneId = served.app.panes.create({ cwd: state.dir }).id;
  served.app.panes.write(paneId, `printf '\\033[31mred-%s\\033[0m <img src=x onerror=alert(1)>\\n' done\r`);
  await waitFor(() => /^red-done /m.test(served.app.panes.screenText(paneId)), 'the printf to show');
});

afterAll(async () => {
  await served?.close();
  state?.cleanup();
});

describe('index.html from a door with its core', () => {
  it('carries the first paint in the theme the browser hints: the pane\'s rows, their colours, the hostile text escaped', async () => {
    const r = await get(served.port, '/', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'light' });
    expect(r.status).toBe(200);
    expect(r.headers['accept-ch']).toBe('Sec-CH-Prefers-Color-Scheme');
    expect(r.headers['critical-ch']).toBe('Sec-CH-Prefers-Color-Scheme');
    expect(r.headers['cache-control']).toBe('no-store');
    expect(r.body).toContain('<html lang="en" data-theme="light">');
    expect(r.body).toContain('<div id="root"></div><div id="td-first-paint" data-theme="light" aria-hidden="true">');
    expect(r.body).toContain('<span style="color:#c62f37">red-done</span> &lt;img src=x onerror=alert(1)&gt;</div>');
    expect(r.body).not.toContain('<img src=x');
    expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(r.body));
    // The prompt the login shell printed (its trailing blank left out), the cursor after it.
    expect(r.body).toMatch(/<div>\$<span class="first-paint-cursor bar" style="left:2ch;[^"]*"><\/span><\/div>/);
  });

  it('follows ?theme= and the theme setting over the hint, and draws no first paint when nothing says the theme', async () => {
    expect((await get(served.port, '/?theme=dark', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'light' })).body).toContain('data-theme="dark"');
    const off = (await get(served.port, '/?first-paint=off', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'light' })).body;
    expect(off).toBe(INDEX.replace('<html lang="en">', '<html lang="en" data-theme="light">'));
    const none = await get(served.port, '/', cookie);
    expect(none.body).toBe(INDEX);
    served.app.settings.set({ theme: 'dark' });
    try {
      const set = await get(served.port, '/index.html', { ...cookie, 'Sec-CH-Prefers-Color-Scheme': 'light' });
      expect(set.body).toContain('data-theme="dark"');
      expect(set.body).toContain('<span style="color:#f0727a">red-done</span>');
    } finally {
      served.app.settings.set({ theme: 'system' });
    }
  });

  it('asks for the hint on the token\'s redirect too, so the first page a browser loads has it', async () => {
    const r = await get(served.port, `/?token=${served.token}`);
    expect(r.status).toBe(302);
    expect(r.headers['critical-ch']).toBe('Sec-CH-Prefers-Color-Scheme');
  });
});

describe('pane.rows (the first paint kept live, renderer/first-paint/live.ts)', () => {
  it('answers the pane\'s rows as the first paint draws them, in the theme asked, hostile text escaped, the cursor a bar or an outline', async () => {
    const client = { id: 'rows-test' };
    const light = await served.app.core.request('pane.rows', { paneId, theme: 'light', focused: true }, client);
    expect(light.html.startsWith('<div class="first-paint-rows"')).toBe(true);
    expect(light.html).toContain('<span style="color:#c62f37">red-done</span> &lt;img src=x onerror=alert(1)&gt;</div>');
    expect(light.html).not.toContain('<img');
    expect(light.html).toMatch(/first-paint-cursor bar/);
    expect(light.appCursor).toBe(false);
    const dark = await served.app.core.request('pane.rows', { paneId, theme: 'dark', focused: false }, client);
    expect(dark.html).toContain('<span style="color:#f0727a">red-done</span>');
    expect(dark.html).toMatch(/first-paint-cursor outline/);
    await expect(served.app.core.request('pane.rows', { paneId, theme: 'blue' as 'dark', focused: true }, client)).rejects.toThrow(/theme/);
    await expect(served.app.core.request('pane.rows', { paneId: 'nope', theme: 'dark', focused: true }, client)).rejects.toThrow(/nope/);
    await expect(served.app.core.request('pane.rows', { paneId, theme: 'dark', focused: true, after: 5000 }, client)).rejects.toThrow(/after/);
  });

  it('asked `after` ms after a key, answers with the pane\'s next output (the key\'s echo in one answer); once the echo has come, at once', async () => {
    const client = { id: 'rows-after' };
    served.app.panes.write(paneId, 'echo rows-after');
    let rows = await served.app.core.request('pane.rows', { paneId, theme: 'dark', focused: true, after: 1000 }, client);
    // Answered with the first output after the key (the echo may come in more than one).
    for (let i = 0; i < 20 && !rows.html.includes('echo rows-after'); i++) {
      // The rest of the echo (or a moment, should it have come just before this listens).
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, 200);
        const off = served.app.panes.onOutput((id) => {
          if (id === paneId) done();
        });
        function done(): void {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
      rows = await served.app.core.request('pane.rows', { paneId, theme: 'dark', focused: true }, client);
    }
    expect(rows.html).toContain('echo rows-after');
    // The echo has come: the next ask waits for no output (a key typed after it is not in its answer, where an ask that waited would be answered with that key's echo).
    const again = served.app.core.request('pane.rows', { paneId, theme: 'dark', focused: true, after: 1000 }, client);
    await new Promise((r) => setImmediate(r));
    served.app.panes.write(paneId, 'Z');
    const answered = await again;
    expect(answered.html).toContain('echo rows-after');
    expect(answered.html).not.toContain('rows-afterZ');
    served.app.panes.write(paneId, '\x15');
  });

  it('says so in one sentence when the pane ends while its rows are awaited', async () => {
    const client = { id: 'rows-ended' };
    // A pane whose terminal echoes nothing: the key's echo stays due, so the ask waits.
    const other = served.app.panes.create({ cwd: state.dir, command: ['sh', '-c', 'stty -echo; echo ready; exec sleep 30'] }).id;
    await waitFor(() => /^ready/m.test(served.app.panes.screenText(other)), 'the pane ready');
    served.app.panes.write(other, 'x');
    const asked = served.app.core.request('pane.rows', { paneId: other, theme: 'dark', focused: true, after: 1000 }, client);
    served.app.panes.close(other);
    await expect(asked).rejects.toThrow(`pane "${other}" ended while its rows were awaited`);
  });
});

describe('windowTheme', () => {
  const at = (q = '') => new URL(`http://127.0.0.1/${q}`);
  const hint = (v?: string) => ({ headers: v === undefined ? {} : { 'sec-ch-prefers-color-scheme': v } });
  it('takes ?theme=, then the setting, then a well-formed hint, else says nothing', () => {
    expect(windowTheme('system', at('?theme=light'), hint('dark'))).toBe('light');
    expect(windowTheme('light', at(), hint('dark'))).toBe('light');
    expect(windowTheme('system', at(), hint('"dark"'))).toBe('dark');
    expect(windowTheme('system', at('?theme=blue'), hint('light'))).toBe('light');
    expect(windowTheme('system', at(), hint('purple'))).toBeUndefined();
    expect(windowTheme('system', at(), hint())).toBeUndefined();
  });

  it('holds an answer from a service elsewhere to what the door would send: a real theme, markup under the cap', () => {
    const fp = '<div id="td-first-paint" data-theme="dark"></div>';
    expect(withAnswer(INDEX, { theme: 'dark', markup: fp })).toContain(`<div id="root"></div>${fp}`);
    // A theme that is none (a hostile or broken service) changes nothing at all.
    expect(withAnswer(INDEX, { theme: '"><script>alert(1)</script>' as 'dark', markup: fp })).toBe(INDEX);
    expect(withAnswer(INDEX, undefined)).toBe(INDEX);
    // Markup past the cap is left out; the theme still goes on <html>.
    const big = withAnswer(INDEX, { theme: 'light', markup: 'x'.repeat(FIRST_PAINT_MAX_CHARS + 1) });
    expect(big).toContain('<html lang="en" data-theme="light">');
    expect(big).not.toContain('xxx');
  });
});
