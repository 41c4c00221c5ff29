/**
 * A window attaching to a running service (issue 11): the page's first script
 * (renderer/early.ts, inline in index.html) opens the socket and says hello while the main bundle still loads,
 * and td-client adopts that socket with every frame it kept. Here the main bundle is held
 * back (a route that answers only when the test lets it) while another window types into
 * the pane and splits it: the held-back window must come up on its one socket, having said
 * hello once, showing the split and the output exactly once, and then work both ways.
 * A second window in the same browser (a new tab, and a reload) takes the renderer's hashed
 * assets from the browser's cache without asking serve again, and shows the pane as the first
 * window does (its terminal started at the pane's size, the snapshot drawn into it fresh).
 * React and xterm come in a classic script of their own (vite.config.ts, `classicVendor`), which
 * a browser with a profile on disk takes from V8's code cache by its third load: deserialized,
 * not compiled (a module script's cache is never read).
 * Before any script runs, the page already shows the window: the door draws its first paint
 * into index.html (renderer/first-paint/), in the theme the browser hints, with the pane's rows
 * where xterm will draw them; it gives way in the frame the terminal has drawn. A serve that
 * relays to a service elsewhere (`--service-socket`) sends the first paint that service draws.
 * Timing is measured in `npm run bench -- peer`, never here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type WebSocket as PageSocket } from 'playwright-core';
import { ARTIFACTS, browserPath, countLines as count, CHROMIUM_ARGS, launchBrowser, openWindow, startServe, tempDir, TdPage, type Serve } from './harness.ts';

let serve: Serve;
let browser: Browser;
let first: TdPage;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  first = await openWindow(browser, serve, { theme: 'dark' });
});

afterAll(async () => {
  await browser?.close();
  await serve?.close();
});

describe('attaching a window', () => {
  it('adopts the socket the early script opened, with the frames that came before the bundle ran, each once', async () => {
    const [paneId] = await first.paneIds();
    await first.waitForPrompt(paneId!);

    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const sockets: PageSocket[] = [];
    const sent: string[] = [];
    const received: string[] = [];
    const opening = openWindow(browser, serve, {
      theme: 'light',
      beforeLoad: async (page) => {
        // The main bundle waits for the test; early.ts (inline in index.html) does not.
        await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
          await gate;
          await route.continue();
        });
        page.on('websocket', (ws) => {
          sockets.push(ws);
          ws.on('framesent', (f) => sent.push(String(f.payload)));
          ws.on('framereceived', (f) => { if (typeof f.payload === 'string') received.push(f.payload); });
        });
      },
    });

    // The early socket said hello and has its answer, with no main bundle yet.
    await first.waitFor(() => received.some((f) => f.startsWith('{"t":"res","id":1,')), 'the early socket\'s hello answered', 30_000);
    expect(sent.filter((f) => f.includes('"app.hello"'))).toHaveLength(1);
    // ...and asked for the focused pane's snapshot, the main bundle still held back.
    await first.waitFor(() => sent.some((f) => f.includes('"pane.snapshot"') && f.includes(`"paneId":"${paneId}"`)), 'the early socket\'s ask for the pane\'s snapshot', 30_000);

    // Meanwhile the other window types into the pane and splits it: output and a layout change for the held-back window.
    await first.typeLine(paneId!, 'echo before-bundle-$((6*7))');
    await first.waitForText(paneId!, /^before-bundle-42$/m);
    await first.header(paneId!).getByRole('button', { name: 'Split right' }).click();
    await first.waitFor(async () => (await first.paneIds()).length === 2, 'two panes in the first window');
    await first.waitFor(() => received.some((f) => f.includes('"layout.changed"')), 'the layout change at the held-back window\'s socket');

    release();
    const late = await opening;
    try {
      const adopted = await late.page.evaluate(() => (window as unknown as { __td: { adopted(): { frames: number; requests: number } | null } }).__td.adopted());
      // The hello and the pane's snapshot (the output that came after it makes the terminal ask again: drawn once, below).
      expect(adopted?.requests).toBe(2);
      // The hello's answer, the output and the layout change, at least.
      expect(adopted!.frames).toBeGreaterThanOrEqual(3);
      // The split it only heard about on the early socket is shown.
      await late.waitFor(async () => (await late.paneIds()).length === 2, 'both panes in the window that attached');
      await late.waitForPrompt(paneId!);
      await late.waitForText(paneId!, /^before-bundle-42$/m);
      expect(count(await late.text(paneId!), /^before-bundle-42$/)).toBe(1);
      // One socket, one hello: nothing asked twice.
      expect(sockets).toHaveLength(1);
      expect(sent.filter((f) => f.includes('"app.hello"'))).toHaveLength(1);
      // Live both ways on the adopted socket: typed here, shown in both windows, once each.
      await late.typeLine(paneId!, 'echo adopted-$((5*5))');
      await late.waitForText(paneId!, /^adopted-25$/m);
      await first.waitForText(paneId!, /^adopted-25$/m);
      expect(count(await late.text(paneId!), /^adopted-25$/)).toBe(1);
      expect(count(await late.text(paneId!), /^before-bundle-42$/)).toBe(1);
      expect(late.errors).toEqual([]);
    } finally {
      await late.close();
    }
  });

  it('a second window in the same browser, and a reload, take the hashed assets from the cache and attach', async () => {
    const [paneId] = await first.paneIds();
    // What a page loaded from serve: its hashed assets (and how many bytes came over the network), and index.html.
    const loaded = (w: TdPage) => w.page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((r) => /\/assets\/[^/]+-[A-Za-z0-9_-]{8}\.(js|css)$/.test(new URL(r.name).pathname))
      .map((r) => ({ path: new URL(r.name).pathname, transferSize: r.transferSize, bodySize: r.decodedBodySize })));
    const asked: string[] = [];
    const page = await first.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    const second = new TdPage(page, first.context, errors);
    await page.goto(`${serve.origin}/?test=1&theme=light`);
    await second.waitFor(async () => (await second.paneIds()).includes(paneId!), 'the pane in the second window', 30_000);
    await second.waitForPrompt(paneId!);
    const assets = await loaded(second);
    // The main bundle, the vendor script and the stylesheet at least, each from the cache: no bytes over the network (the early script is inline in index.html).
    expect(assets.map((a) => a.path)).toEqual(expect.arrayContaining([expect.stringMatching(/^\/assets\/index-.*\.js$/), expect.stringMatching(/^\/assets\/vendor-.*\.js$/), expect.stringMatching(/^\/assets\/index-.*\.css$/)]));
    for (const a of assets) {
      expect(a.bodySize, a.path).toBeGreaterThan(0);
      expect(a.transferSize, a.path).toBe(0);
    }
    // index.html is asked for each time (it names the current build's assets).
    expect(asked[0]).toBe('/');
    // Its terminal started at the pane's size (the same viewport as the first window's) and drew the snapshot as the first window shows the pane.
    const size = (w: TdPage) => w.page.evaluate((id) => (window as unknown as { __td: { size(id: string): { cols: number; rows: number } | null } }).__td.size(id), paneId!);
    expect(await size(second)).toEqual(await size(first));
    expect(await second.text(paneId!)).toBe(await first.text(paneId!));
    await second.typeLine(paneId!, 'echo second-tab-$((7*3))');
    await second.waitForText(paneId!, /^second-tab-21$/m);
    await first.waitForText(paneId!, /^second-tab-21$/m);

    await page.reload();
    await second.waitFor(async () => (await second.paneIds()).includes(paneId!), 'the pane after a reload', 30_000);
    await second.waitForPrompt(paneId!);
    for (const a of await loaded(second)) expect(a.transferSize, `${a.path} after a reload`).toBe(0);
    await second.waitForText(paneId!, /^second-tab-21$/m);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('takes React and xterm from a classic script, deserialized from V8\'s code cache by the third load in a profile on disk', async () => {
    const [paneId] = await first.paneIds();
    // The page's scripts in order: the early script (classic, inline: it runs as the page is parsed, allowed by its hash), the vendor script (classic), then the main module.
    const scripts = await first.page.evaluate(() => [...document.scripts].map((s) => ({ src: s.src ? new URL(s.src).pathname : '', type: s.type, defer: s.defer, async: s.async, inline: /__tdEarly/.test(s.textContent ?? '') })));
    expect(scripts[0], JSON.stringify(scripts)).toMatchObject({ src: '', type: '', inline: true });
    expect(first.errors).toEqual([]);
    const vendorAt = scripts.findIndex((s) => /^\/assets\/vendor-[^/]+\.js$/.test(s.src));
    const mainAt = scripts.findIndex((s) => /^\/assets\/index-[^/]+\.js$/.test(s.src));
    expect(vendorAt, JSON.stringify(scripts)).toBeGreaterThanOrEqual(0);
    // Started by the early script once its socket opened (the door left it inert: withScriptsLater), in order: not async.
    expect(scripts[vendorAt]).toMatchObject({ type: '', async: false });
    expect(scripts[mainAt]).toMatchObject({ type: 'module' });
    expect(vendorAt).toBeLessThan(mainAt);

    const dir = tempDir('td-e2e-profile-');
    const ctx = await chromium.launchPersistentContext(dir, { executablePath: browserPath(), args: CHROMIUM_ARGS, headless: true, viewport: { width: 1280, height: 800 } });
    try {
      // The token URL sets the cookie in this profile.
      expect((await ctx.request.get(serve.url, { maxRedirects: 0 })).status()).toBe(302);
      // What V8 did with the vendor script at each load: compiled it, or deserialized its cached code.
      const loads: string[][] = [];
      for (let i = 0; i < 5 && !loads.slice(2).some((l) => l.includes('deserialized')); i++) {
        const page = await ctx.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        const cdp = await ctx.newCDPSession(page);
        const events: Array<{ name: string; args?: { data?: { url?: string }; fileName?: string } }> = [];
        cdp.on('Tracing.dataCollected', (e) => events.push(...(e.value as unknown as typeof events)));
        const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
        await cdp.send('Tracing.start', { categories: 'v8,devtools.timeline,disabled-by-default-v8.compile', transferMode: 'ReportEvents' });
        const w = new TdPage(page, ctx, errors);
        await page.goto(`${serve.origin}/?test=1&theme=dark`);
        await w.waitFor(async () => (await w.paneIds()).includes(paneId!), `the pane at load ${i + 1}`, 30_000);
        await w.waitForPrompt(paneId!);
        await cdp.send('Tracing.end');
        await complete;
        const vendor = events.filter((e) => /\/vendor-[^/]+\.js$/.test(e.args?.data?.url ?? e.args?.fileName ?? ''));
        loads.push([
          // v8.compile wraps both: with a cache it deserializes; without, the source was parsed (in the background as it came).
          ...(vendor.some((e) => e.name === 'v8.deserializeOnBackground') ? ['deserialized'] : []),
          ...(vendor.some((e) => e.name === 'v8.parseOnBackground') ? ['compiled'] : []),
        ]);
        expect(errors).toEqual([]);
        await page.close();
      }
      // The first load compiles it; a later one (Chromium writes the cache at the second) takes it from the cache.
      expect(loads[0], JSON.stringify(loads)).toContain('compiled');
      expect(loads.slice(2).some((l) => l.includes('deserialized') && !l.includes('compiled')), JSON.stringify(loads)).toBe(true);
    } finally {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('paints the window of a relay to a service elsewhere too: the service draws it, and it gives way to that service\'s terminal', async () => {
    const [paneId] = await first.paneIds();
    await first.typeLine(paneId!, `printf 'far-%s\\n' side`);
    await first.waitForText(paneId!, /^far-side$/m);
    // serve in a state folder of its own, relaying to the first serve's service (as over SSH, its token copied).
    const token = path.join(tempDir('token'), 'service.token');
    fs.copyFileSync(path.join(serve.stateDir, 'terminal-delight', 'run', 'service.token'), token);
    const relay = await startServe({ args: ['--service-socket', path.join(serve.stateDir, 'terminal-delight', 'run', 'service.sock'), '--service-token', token] });
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    try {
      const blocked = await ctx.newPage();
      await blocked.route(/\.js$/, (route) => route.abort());
      await blocked.goto(`${relay.url}&theme=light`);
      const painted = await blocked.evaluate(() => ({
        theme: document.getElementById('td-first-paint')?.dataset.theme,
        panes: [...document.querySelectorAll('[data-first-paint-pane]')].map((p) => (p as HTMLElement).dataset.firstPaintPane),
        rows: [...document.querySelectorAll('.first-paint-rows > div')].map((d) => (d.textContent ?? '').trimEnd()),
      }));
      expect(painted.theme).toBe('light');
      expect(painted.panes).toEqual(await first.paneIds());
      expect(painted.rows).toContain('far-side');
      await blocked.screenshot({ path: path.join(ARTIFACTS, 'first-paint-relayed.png') });
      const errors: string[] = [];
      const page = await ctx.newPage();
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${relay.origin}/?test=1&renderer=dom&theme=light`);
      const w = new TdPage(page, ctx, errors);
      await w.drawn();
      await w.waitForText(paneId!, /^far-side$/m);
      expect(await page.evaluate(() => !!document.getElementById('td-first-paint'))).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await ctx.close();
      await relay.close();
    }
  });

  it('paints the window before any script runs, in the hinted theme, and gives way to the terminal in the frame it has drawn', async () => {
    const [paneId] = await first.paneIds();
    await first.typeLine(paneId!, `printf '\\033[31mfp-red\\033[0m <img src=x onerror=alert(1)>\\n'; printf 'fp-%s\\n' line`);
    await first.waitForText(paneId!, /^fp-line$/m);
    for (const theme of ['light', 'dark'] as const) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme, deviceScaleFactor: 1 });
      try {
        // The token's redirect asks for the theme hint, so even this first load of a new browser has it.
        // (In a context Playwright makes, its colour scheme reaches that first request's hint only from the second on: the page is loaded twice.)
        const blocked = await ctx.newPage();
        await blocked.route(/\.js$/, (route) => route.abort());
        await blocked.goto(serve.url);
        await blocked.goto(`${serve.origin}/`);
        const painted = await blocked.evaluate(() => {
          const fp = document.getElementById('td-first-paint');
          const rows = [...document.querySelectorAll('.first-paint-rows > div')].map((d) => d.textContent ?? '');
          const red = [...document.querySelectorAll('.first-paint-rows span')].find((s) => s.textContent === 'fp-red');
          return { fp: !!fp, hidden: fp?.getAttribute('aria-hidden'), theme: document.documentElement.dataset.theme, rows, red: red ? getComputedStyle(red).color : null, images: document.querySelectorAll('#td-first-paint img:not(.app-icon)').length, scripts: !!(window as unknown as { __td?: unknown }).__td || document.querySelectorAll('.xterm').length };
        });
        expect(painted).toMatchObject({ fp: true, hidden: 'true', theme, images: 0, scripts: 0 });
        expect(painted.rows.some((r) => /^td\$ ?$/.test(r.trimEnd()) || /td\$$/.test(r.trimEnd())), JSON.stringify(painted.rows)).toBe(true);
        expect(painted.rows).toContain('fp-line');
        expect(painted.red).toBe(theme === 'light' ? 'rgb(198, 47, 55)' : 'rgb(240, 114, 122)');
        await blocked.screenshot({ path: path.join(ARTIFACTS, `first-paint-${theme}.png`) });

        // With its scripts: what the page shows when the first paint goes, and where the prompt's row is in each.
        const page = await ctx.newPage();
        await page.addInitScript(() => {
          const w = window as unknown as { __fp: { at?: number; terminalRows?: string[]; promptTop?: number; parts: Record<string, boolean> } };
          w.__fp = { parts: {} };
          // Each pane's part, as it gives way: whether that pane's own terminal showed its rows by then.
          new MutationObserver((records) => {
            for (const r of records) {
              const part = r.target as HTMLElement;
              const id = part.dataset?.firstPaintPane;
              if (!id || !part.classList.contains('first-paint-gone') || id in w.__fp.parts) continue;
              w.__fp.parts[id] = (document.querySelector(`[data-pane-id="${id}"] .xterm-rows`)?.textContent ?? '').trim().length > 0;
            }
          }).observe(document, { attributes: true, attributeFilter: ['class'], subtree: true });
          const rowTop = (sel: string): number | undefined => [...document.querySelectorAll(sel)].find((d) => /td\$/.test(d.textContent ?? ''))?.getBoundingClientRect().top;
          // Once parsed and styled (as the first paint is first painted: its stylesheets block the paint).
          document.addEventListener('DOMContentLoaded', () => {
            const pending = [...document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter((l) => !l.sheet);
            const measure = () => (w.__fp.promptTop ??= rowTop('.first-paint-rows > div'));
            if (pending.length === 0) return measure();
            let left = pending.length;
            for (const l of pending) l.addEventListener('load', () => --left === 0 && measure(), { once: true });
          });
          let parsed = false;
          const mo = new MutationObserver(() => {
            if (document.getElementById('td-first-paint')) parsed = true;
            if (!parsed || w.__fp.at !== undefined || document.getElementById('td-first-paint')) return;
            w.__fp.at = performance.now();
            w.__fp.terminalRows = [...document.querySelectorAll('.xterm-rows > div')].map((d) => (d.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd());
            mo.disconnect();
          });
          mo.observe(document, { childList: true, subtree: true });
        });
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        await page.goto(`${serve.origin}/?test=1&renderer=dom`);
        const w = new TdPage(page, ctx, errors);
        await w.drawn();
        const seen = await page.evaluate(() => (window as unknown as { __fp: { at?: number; terminalRows?: string[]; promptTop?: number; parts: Record<string, boolean> } }).__fp);
        // A pane's part that went before the whole did went only once its terminal showed its rows.
        for (const [id, drawn] of Object.entries(seen.parts)) expect(drawn, `pane ${id}'s part went before its terminal drew`).toBe(true);
        // When it went, the terminal already showed what it stood for: no empty frame between the two.
        expect(seen.terminalRows, JSON.stringify(seen)).toContain('fp-line');
        expect(seen.terminalRows!.some((r) => /td\$$/.test(r))).toBe(true);
        // The prompt's row where the first paint had it (a pixel either way).
        const xtermTop = await page.evaluate(() => [...document.querySelectorAll('.xterm-rows > div')].find((d) => /td\$/.test(d.textContent ?? ''))?.getBoundingClientRect().top);
        expect(Math.abs(xtermTop! - seen.promptTop!), `${xtermTop} against ${seen.promptTop}`).toBeLessThanOrEqual(1);
        expect(errors).toEqual([]);
      } finally {
        await ctx.close();
      }
    }
  });

  it('takes the first paint away at once when it was drawn in another theme than the window shows', async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    try {
      expect((await ctx.request.get(serve.url, { maxRedirects: 0 })).status()).toBe(302);
      const page = await ctx.newPage();
      // Its request says the browser prefers light (as a hint can disagree with the page's own media query): the door draws it light.
      let hinted = false;
      await page.route((url) => url.pathname === '/', async (route) => {
        hinted = true;
        await route.continue({ headers: { ...route.request().headers(), 'sec-ch-prefers-color-scheme': 'light' } });
      });
      const drawnLight = page.waitForResponse((r) => new URL(r.url()).pathname === '/' && r.status() === 200).then((r) => r.text()).then((html) => /<div id="td-first-paint" data-theme="light"/.test(html));
      await page.goto(`${serve.origin}/?test=1`);
      const w = new TdPage(page, ctx, []);
      await w.drawn();
      const [paneId] = await w.paneIds();
      await w.waitForPrompt(paneId!);
      const marks = await page.evaluate(() => ({
        theme: document.documentElement.dataset.theme,
        retired: performance.getEntriesByName('td:first-paint-retired')[0]?.startTime,
        drawn: performance.getEntriesByName('td:snapshot-parsed')[0]?.startTime,
      }));
      expect(hinted).toBe(true);
      expect(await drawnLight).toBe(true);
      expect(marks.theme).toBe('dark');
      // Gone with the hello, before the terminal had drawn: not left in the wrong colours until it has.
      expect(marks.retired, JSON.stringify(marks)).toBeLessThan(marks.drawn!);
    } finally {
      await ctx.close();
    }
  });

  it('keeps what is typed on the first paint, before the terminal exists, and types it into the pane once it does', async () => {
    const [paneId] = await first.paneIds();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'dark' });
    try {
      expect((await ctx.request.get(serve.url, { maxRedirects: 0 })).status()).toBe(302);
      const page = await ctx.newPage();
      // The main bundle (React, the terminal) waits for the test; the first paint and early.ts do not.
      await page.route(/\/assets\/index-[^/]*\.js$/, async (route) => {
        await gate;
        await route.continue();
      });
      await page.goto(`${serve.origin}/?test=1`, { waitUntil: 'commit' });
      await page.waitForFunction(() => !!document.getElementById('td-first-paint') && !document.querySelector('.xterm'));
      // early.ts has run (it keeps the keys) once its mark is there.
      await page.waitForFunction(() => performance.getEntriesByName('td:early').length > 0);
      await page.keyboard.type('echo typed-early-$((6*7))');
      await page.keyboard.press('Enter');
      expect(await page.evaluate(() => document.querySelectorAll('.xterm').length)).toBe(0);
      release();
      const w = new TdPage(page, ctx, []);
      await w.drawn();
      await w.waitForText(paneId!, /^typed-early-42$/m);
      await first.waitForText(paneId!, /^typed-early-42$/m);
      expect(count(await first.text(paneId!), /^typed-early-42$/)).toBe(1);
      // Typed once: the terminal, now focused, types on by itself.
      await w.typeLine(paneId!, 'echo typed-after-$((2*2))');
      await first.waitForText(paneId!, /^typed-after-4$/m);
      expect(count(await first.text(paneId!), /echo typed-early/)).toBe(1);
    } finally {
      release();
      await ctx.close();
    }
  });
  it('draws the DOM-rendered terminals of a theme from one theme sheet, and from the other theme\'s after a switch', async () => {
    const ids = await first.paneIds();
    expect(ids.length).toBeGreaterThanOrEqual(2);
    for (const id of ids) {
      await first.typeLine(id, `printf '\\033[31m%s\\033[0m\\n' sheet-red`);
      await first.waitForText(id, /^sheet-red$/m);
    }
    const w = await openWindow(browser, serve, { colorScheme: 'light', renderer: 'dom' });
    try {
      for (const id of ids) await w.waitForText(id, /^sheet-red$/m);
      const look = () => w.page.evaluate(() => ({
        terminals: document.querySelectorAll('.xterm').length,
        shared: [...document.head.querySelectorAll('style[data-td-xterm-theme]')].map((s) => (s as HTMLElement).dataset.tdXtermTheme),
        // xterm's own sheet in a terminal (~800 rules), which the shared one stands for.
        own: [...document.querySelectorAll('.xterm style')].filter((s) => /xterm-fg-1\b/.test(s.textContent ?? '')).length,
        classes: [...document.querySelectorAll('.xterm')].map((e) => [...e.classList].filter((c) => c.startsWith('td-xterm-theme-')).join(' ')),
        reds: [...document.querySelectorAll('.xterm-rows span')].filter((s) => s.textContent === 'sheet-red').map((s) => getComputedStyle(s).color),
      }));
      const light = await look();
      expect(light.terminals).toBe(ids.length);
      // One shared sheet; every terminal but the first opened (whose own sheet was written before the sheet was shared) draws from it.
      expect(light.shared, JSON.stringify(light)).toHaveLength(1);
      expect(light.own, JSON.stringify(light)).toBeLessThanOrEqual(1);
      expect(light.classes.filter((c) => c === light.shared[0]).length, JSON.stringify(light)).toBeGreaterThanOrEqual(ids.length - 1);
      expect(light.reds, JSON.stringify(light)).toEqual(ids.map(() => 'rgb(198, 47, 55)'));
      await w.page.emulateMedia({ colorScheme: 'dark' });
      await w.waitFor(async () => (await look()).reds.every((c) => c === 'rgb(240, 114, 122)'), 'every terminal\'s red in the dark theme');
      const dark = await look();
      expect(dark.reds).toEqual(ids.map(() => 'rgb(240, 114, 122)'));
      // The dark theme's sheet is shared too, by every terminal (the first one's own sheet emptied).
      expect(dark.own, JSON.stringify(dark)).toBe(0);
      expect(dark.shared, JSON.stringify(dark)).toHaveLength(2);
      expect(new Set(dark.classes).size, JSON.stringify(dark)).toBe(1);
      expect(dark.classes[0]).not.toBe(light.shared[0]);
      await w.page.screenshot({ path: path.join(ARTIFACTS, 'theme-sheet-dark.png') });
      await w.page.emulateMedia({ colorScheme: 'light' });
      await w.waitFor(async () => (await look()).reds.every((c) => c === 'rgb(198, 47, 55)'), 'every terminal\'s red in the light theme again');
      await w.page.screenshot({ path: path.join(ARTIFACTS, 'theme-sheet-light.png') });
      expect(w.errors).toEqual([]);
    } finally {
      await w.close();
    }
  });
});
