/**
 * More panes than WebGL contexts (issue 38, item 5): Chromium keeps about 16 live WebGL
 * contexts a page and loses the oldest past that. A window of 24 panes with WebGL asked for
 * (`?renderer=webgl`; Chromium here draws WebGL in software, SwiftShader) draws every one:
 * at most WEBGL_POOL_SIZE hold a context, the rest draw with xterm's DOM renderer, no context
 * is ever lost by the page's own doing, and one lost anyway falls back to the DOM with its
 * text drawn while another pane takes its place.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { connectService, type ServiceConnection } from '../main/service/client.ts';
import type { Layout } from '../preload/contract.ts';
import { WEBGL_POOL_SIZE } from '../renderer/terminal/webgl-pool.ts';
import { launchBrowser, loseWebglContext, openWindow, startServe, type Serve, type TdPage } from './harness.ts';

const PANES = 24;
const COLS = 6;

let serve: Serve;
let browser: Browser;
let conn: ServiceConnection;
let win: TdPage;
const ids: string[] = [];
const marker = (i: number): string => `pool-mark-${String(i).padStart(2, '0')}`;

beforeAll(async () => {
  serve = await startServe();
  browser = await launchBrowser();
  conn = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, TD_SOCKET: path.join(serve.stateDir, 'app.sock') }, client: 'cli', start: false });
  for (let i = 0; i < PANES; i++) {
    // The marker is printed by the pane's program (no command line echoed to find it in instead).
    const pane = await conn.request('pane.create', { command: ['/bin/sh', '-c', `echo ${marker(i)}; exec cat`], cwd: serve.cwd });
    ids.push(pane.id);
  }
  // A grid of 4 rows of 6.
  const rows: Layout[] = [];
  for (let r = 0; r < PANES / COLS; r++) {
    rows.push({ type: 'split', direction: 'row', sizes: Array(COLS).fill(1 / COLS), children: ids.slice(r * COLS, (r + 1) * COLS).map((paneId) => ({ type: 'pane', paneId })) });
  }
  await conn.request('layout.set', { layout: { type: 'split', direction: 'column', sizes: Array(rows.length).fill(1 / rows.length), children: rows } });
  win = await openWindow(browser, serve, {
    theme: 'dark',
    renderer: 'webgl',
    viewport: { width: 1600, height: 1000 },
    // Every context the page loses, counted from its first script on.
    beforeLoad: async (page) => {
      await page.addInitScript(() => {
        const w = window as unknown as { __lostContexts: number };
        w.__lostContexts = 0;
        document.addEventListener('webglcontextlost', () => { w.__lostContexts++; }, true);
      });
    },
  });
}, 120_000);

afterAll(async () => {
  conn?.close();
  await browser?.close();
  await serve?.close();
});

const lostContexts = (): Promise<number> => win.page.evaluate(() => (window as unknown as { __lostContexts: number }).__lostContexts);
const renderers = (): Promise<string[]> => Promise.all(ids.map((id) => win.renderer(id).then((r) => r ?? 'none')));
const count = (list: string[], kind: string): number => list.filter((r) => r === kind).length;

/** Pixels of the pane's drawn screen (a screenshot, as a person sees it) that are not its background. */
async function inkPixels(paneId: string): Promise<number> {
  const png = await win.page.locator(`[data-pane-id="${paneId}"] .xterm-screen`).screenshot();
  return win.page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = c.getContext('2d')!;
    ctx.drawImage(bitmap, 0, 0);
    const d = ctx.getImageData(0, 0, bitmap.width, bitmap.height).data;
    // The background: the bottom-right pixel (no text reaches there on these panes).
    const bg = [d[d.length - 4]!, d[d.length - 3]!, d[d.length - 2]!];
    let ink = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (Math.abs(d[i]! - bg[0]!) + Math.abs(d[i + 1]! - bg[1]!) + Math.abs(d[i + 2]! - bg[2]!) > 96) ink++;
    }
    return ink;
  }, png.toString('base64'));
}

/** Every pane's marker drawn: in the DOM renderer's rows for those on it; for those on WebGL, in xterm's buffer and as ink on their canvas (no DOM rows drawn there). */
async function everyPaneDrawn(): Promise<void> {
  for (const [i, id] of ids.entries()) {
    await win.waitForText(id, new RegExp(`^${marker(i)}$`, 'm'));
    const kind = await win.renderer(id);
    if (kind === 'dom') {
      const rows = (await win.page.locator(`[data-pane-id="${id}"] .xterm-rows`).textContent()) ?? '';
      expect(rows, `pane ${i} (DOM renderer): its rows`).toContain(marker(i));
    } else {
      expect(kind, `pane ${i}: its renderer`).toBe('webgl');
      const live = await win.page.evaluate((paneId) => [...document.querySelectorAll<HTMLCanvasElement>(`[data-pane-id="${paneId}"] .xterm-screen canvas`)]
        .some((c) => { const gl = c.getContext('webgl2'); return !!gl && !gl.isContextLost(); }), id);
      expect(live, `pane ${i} (WebGL): a live context`).toBe(true);
    }
    // Drawn as seen: the marker's and the cursor's pixels on the pane's screen.
    const ink = await inkPixels(id);
    expect(ink, `pane ${i} (${kind}): pixels drawn`).toBeGreaterThan(40);
  }
}

describe('a window of more panes than WebGL contexts', () => {
  it(`draws all ${PANES}, at most ${WEBGL_POOL_SIZE} with WebGL and the rest with the DOM renderer, losing no context`, async () => {
    await win.waitFor(async () => {
      const r = await renderers();
      return count(r, 'webgl') === WEBGL_POOL_SIZE && count(r, 'dom') === PANES - WEBGL_POOL_SIZE;
    }, `${WEBGL_POOL_SIZE} panes on WebGL, the others on the DOM renderer`, 60_000);
    await everyPaneDrawn();
    expect(await lostContexts(), 'contexts the page lost').toBe(0);
    expect(count(await renderers(), 'webgl')).toBe(WEBGL_POOL_SIZE);
    await win.screenshot('webgl-pool-24');
  }, 180_000);

  it('a pane whose context is lost draws with the DOM renderer, and another takes its place', async () => {
    const before = await renderers();
    const victim = before.indexOf('webgl');
    expect(victim).toBeGreaterThanOrEqual(0);
    const lost = await loseWebglContext(win, ids[victim]!);
    expect(lost).toBe(true);
    await win.waitFor(async () => (await win.renderer(ids[victim]!)) === 'dom', 'the DOM renderer on the pane that lost its context');
    const rows = win.page.locator(`[data-pane-id="${ids[victim]}"] .xterm-rows`);
    await win.waitFor(async () => ((await rows.textContent()) ?? '').includes(marker(victim)), 'its marker drawn by the DOM renderer');
    // Its place went to one of the panes on the DOM renderer.
    await win.waitFor(async () => count(await renderers(), 'webgl') === WEBGL_POOL_SIZE, `${WEBGL_POOL_SIZE} panes on WebGL again`);
    const after = await renderers();
    expect(after.filter((r, i) => r === 'webgl' && before[i] === 'dom').length, 'panes newly on WebGL').toBe(1);
    expect(await lostContexts(), 'contexts lost: the one taken away').toBe(1);
    // Typing still answers there.
    await win.typeLine(ids[victim]!, 'typed-after-loss');
    await win.waitFor(async () => ((await rows.textContent()) ?? '').includes('typed-after-loss'), 'the typed line drawn by the DOM renderer');
    await everyPaneDrawn();
    expect(await lostContexts(), 'no other context lost').toBe(1);
  }, 180_000);
});
