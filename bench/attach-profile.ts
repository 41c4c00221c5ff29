/**
 * Where a fresh window's attach to N full panes goes (issue 38, item 4), in the page: the
 * marks the renderer leaves (td:terminal, td:snapshot-asked, td:snapshot, td:snapshot-parsed),
 * each pane's live time, and the long tasks. Not part of `npm run bench`: run with
 * `node bench/attach-profile.ts` (TD_BENCH_TMUX_PANES panes, default 8; TD_BENCH_ATTACH_SETTLE_MS, default
 * 2,000, the rest before the first window, which resizes every pane; TD_BENCH_ATTACH_ROUNDS windows, default 3;
 * TD_BENCH_ATTACH_RESIZE=1: every pane back to 80 x 24 before each later window, which then resizes them all too).
 * TD_BENCH_ATTACH_TRACE=1 adds a Chromium trace of each window, summed up (bench/trace-summary.ts;
 * TD_BENCH_ATTACH_TRACE_DIR keeps the traces), and the network as CDP saw it;
 * TD_BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR" gives serve and the service that NODE_OPTIONS
 * (bench/peer-apps.ts) and prints the service's CPU profile on each window's clock.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { ensureBuilt, startOurs } from './peer-apps.ts';
import { serviceSlices, summarize, TRACE_CATEGORIES } from './trace-summary.ts';
import { wsWindow } from './ws-window.ts';
import { fillFile, fillPanes } from './fill.ts';

const PANES = Math.max(2, Number(process.env.TD_BENCH_TMUX_PANES) || 8);
ensureBuilt();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-attach-profile-'));
const file = fillFile(dir);
const app = await startOurs();
/** Each window's navigation on the monotonic clock (µs), to place the service's CPU profile. */
const origins: number[] = [];
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true });
try {
  const ids = await fillPanes(app.url, file, PANES);
  // TD_BENCH_ATTACH_SETTLE_MS: how long the panes rest before the first window (the tmux bench rests 30 s: its memory is read then).
  await new Promise((r) => setTimeout(r, Number(process.env.TD_BENCH_ATTACH_SETTLE_MS) || 2000));
  for (let round = 1; round <= (Number(process.env.TD_BENCH_ATTACH_ROUNDS) || 3); round++) {
    // TD_BENCH_ATTACH_RESIZE=1: every pane back to 80 x 24 before each later window too, so that each window resizes them all (the first window's case, with the browser and the door warm).
    if (round > 1 && process.env.TD_BENCH_ATTACH_RESIZE === '1') {
      const w = await wsWindow(app.url);
      await w.request('app.hello', {});
      for (const id of ids) await w.request('pane.resize', { paneId: id, cols: 80, rows: 24 });
      await new Promise((r) => setTimeout(r, 1000));
      w.close();
      await new Promise((r) => setTimeout(r, Number(process.env.TD_BENCH_ATTACH_SETTLE_MS) || 2000));
    }
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __long: Array<[number, number]> };
      w.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__long.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
    });
    // The page's own counters (layouts, style recalculations, and the main thread's time in them): less moved by a loaded machine than the wall clock.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    // TD_BENCH_ATTACH_TRACE=1: a Chromium trace of each window, summed up (bench/trace-summary.ts).
    const tracing = !!process.env.TD_BENCH_ATTACH_TRACE;
    if (tracing) await browser.startTracing(page, { categories: TRACE_CATEGORIES });
    // The network as the browser's network service saw it (CDP timestamps, not the page's thread): when each request and the socket's handshake went and came.
    const net: Array<[string, number]> = [];
    let docTiming: { requestTime: number; sendStart: number } | undefined;
    if (tracing) {
      await cdp.send('Network.enable');
      const short = (u: string) => u.replace(/^.*\//, '').replace(/\?.*/, '').replace(/-[\w-]{8}\./, '.') || '/';
      const urls = new Map<string, string>();
      cdp.on('Network.requestWillBeSent', (e: { requestId: string; request: { url: string }; timestamp: number }) => { urls.set(e.requestId, short(e.request.url)); net.push([`${short(e.request.url)} sent`, e.timestamp]); });
      cdp.on('Network.responseReceived', (e: { requestId: string; timestamp: number; type: string; response: { timing?: { requestTime: number; sendStart: number } } }) => {
        if (e.type === 'Document' && e.response.timing) docTiming = e.response.timing;
        net.push([`${urls.get(e.requestId)} response`, e.timestamp]);
      });
      cdp.on('Network.loadingFinished', (e: { requestId: string; timestamp: number }) => net.push([`${urls.get(e.requestId)} done`, e.timestamp]));
      cdp.on('Network.webSocketWillSendHandshakeRequest', (e: { timestamp: number }) => net.push(['ws handshake sent', e.timestamp]));
      cdp.on('Network.webSocketHandshakeResponseReceived', (e: { timestamp: number }) => net.push(['ws handshake answered', e.timestamp]));
      let frames = 0;
      cdp.on('Network.webSocketFrameSent', (e: { timestamp: number; response: { payloadData: string } }) => { if (frames++ < 120) net.push([`ws sent ${/"id":(\d+),"name":"([\w.]+)"/.exec(e.response.payloadData)?.slice(1).join(' ') ?? e.response.payloadData.slice(0, 20)}`, e.timestamp]); });
      cdp.on('Network.webSocketFrameReceived', (e: { timestamp: number; response: { payloadData: string; opcode: number } }) => { if (frames++ < 120) net.push([`ws came ${e.response.opcode === 2 ? '(output)' : /"id":(\d+)/.exec(e.response.payloadData)?.[1] ?? e.response.payloadData.slice(0, 20)}`, e.timestamp]); });
    }
    const t0 = Date.now();
    // The monotonic clock (µs), which CPU profiles (TD_BENCH_NODE_OPTIONS=--cpu-prof) stamp their samples with.
    const mono = process.hrtime.bigint() / 1000n;
    await page.goto(`${app.url}&test=1`, { waitUntil: 'commit' });
    // A key typed on the focused pane as soon as its first paint shows (td:first-paint-key: sent; td:first-paint-live: its rows back).
    await page.waitForFunction(() => !!document.querySelector('#td-first-paint .pane[data-focused="true"] .first-paint-rows') || !!document.querySelector('.xterm'), undefined, { polling: 'raf', timeout: 180_000 });
    const typedAt = Date.now() - t0;
    // As the tmux bench types (answeringLive): a marker of ten characters, a key event each.
    const marker = `mk${round}q${String(Math.floor(Math.random() * 1e5)).padStart(5, '0')}`;
    await page.keyboard.type(marker);
    const typedAll = Date.now() - t0;
    const echo = page.waitForFunction((m) => {
      const part = document.querySelector<HTMLElement>('#td-first-paint .pane[data-first-paint-pane][data-focused="true"]:not(.first-paint-gone)');
      if (part && (part.querySelector('.first-paint-rows')?.textContent ?? '').includes(m)) return 'first paint';
      const td = (window as unknown as { __td?: { store: { getState(): { focused?: string | null } }; drawn?(id: string): boolean; text(id: string, n?: number): string | null } }).__td;
      const id = td?.store.getState().focused;
      return !part && id && td?.drawn?.(id) && (td.text(id, 5) ?? '').includes(m) ? 'terminal' : false;
    }, marker, { polling: 'raf', timeout: 180_000 }).then(async (h) => `${await h.jsonValue()} at ${Date.now() - t0} ms (keys typed by ${typedAll} ms)`);
    echo.catch(() => { /* awaited below; a failure before then is the wait's that throws first */ });
    await page.waitForFunction(() => {
      const td = (window as unknown as { __td?: { store: { getState(): { focused?: string | null } }; live(id: string): boolean } }).__td;
      const focused = td?.store.getState().focused;
      return !!focused && td!.live(focused);
    }, undefined, { polling: 'raf', timeout: 180_000 });
    const focusedLive = Date.now() - t0;
    await page.waitForFunction((n) => {
      const td = (window as unknown as { __td?: { paneIds(): string[]; live(id: string): boolean } }).__td;
      const shown = td?.paneIds() ?? [];
      return shown.length >= n && shown.every((id) => td!.live(id));
    }, PANES, { polling: 'raf', timeout: 180_000 });
    const wall = Date.now() - t0;
    console.log(`echo: ${await echo}`);
    const marks = await page.evaluate(() => {
      const by = new Map<string, number[]>();
      for (const m of performance.getEntriesByType('mark')) by.set(m.name, [...(by.get(m.name) ?? []), Math.round(m.startTime)]);
      return { marks: [...by].map(([k, v]) => `${k}: ${v.length}x ${v.length <= 12 ? v.join(' ') : `${v[0]}..${v[v.length - 1]}`}`), long: (window as unknown as { __long: Array<[number, number]> }).__long, nav: Math.round((performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd), timing: (() => {
        const n = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
        const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0;
        return `resources (start..end): ${performance.getEntriesByType('resource').filter((r) => /\.(js|css)$/.test(r.name)).map((r) => `${r.name.replace(/.*\//, '').replace(/-[\w-]{8}\./, '.')} ${Math.round(r.startTime)}..${Math.round((r as PerformanceResourceTiming).responseEnd)}`).join(', ')}; request ${Math.round(n.requestStart)}, response ${Math.round(n.responseStart)}..${Math.round(n.responseEnd)} (${Math.round(n.transferSize / 1024)} KiB), DOM interactive ${Math.round(n.domInteractive)}, first contentful paint ${Math.round(fcp)}`;
      })() };
    });
    const traced = tracing ? (await browser.stopTracing()).toString('utf8') : undefined;
    await page.keyboard.press('Control+U');
    console.log(`round ${round} (monotonic clock ${mono} µs): a key typed at ${typedAt} ms; the focused pane live after ${focusedLive} ms, all live after ${wall} ms; DOMContentLoaded ${marks.nav} ms`);
    const metrics = new Map(((await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> }).metrics.map((m) => [m.name, m.value]));
    const sec = (k: string) => `${Math.round((metrics.get(k) ?? 0) * 1000)} ms`;
    console.log(`  main thread: ${metrics.get('LayoutCount')} layouts (${sec('LayoutDuration')}), ${metrics.get('RecalcStyleCount')} style recalculations (${sec('RecalcStyleDuration')}), script ${sec('ScriptDuration')}, tasks ${sec('TaskDuration')}${metrics.has('ThreadTime') ? `, thread CPU ${sec('ThreadTime')}` : ''}`);
    console.log(`  ${marks.timing}`);
    for (const m of marks.marks) console.log(`  ${m}`);
    console.log(`  long tasks (start, ms): ${marks.long.map(([s, d]) => `${s}+${d}`).join(' ')}`);
    if (tracing && docTiming) {
      const origin = docTiming.requestTime * 1000 + docTiming.sendStart - (await page.evaluate(() => (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).requestStart));
      console.log(`  network (the browser's clock): ${net.map(([k, t]) => `${k} ${Math.round(t * 1000 - origin)}`).join(', ')}`);
    }
    if (traced && process.env.TD_BENCH_ATTACH_TRACE_DIR) fs.writeFileSync(path.join(process.env.TD_BENCH_ATTACH_TRACE_DIR, `attach-${round}.json`), traced);
    if (traced) {
      const at = await page.evaluate(() => Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime])));
      for (const l of summarize(traced, at)) console.log(`  ${l}`);
      origins.push((globalThis as { __tdTraceOrigin?: number }).__tdTraceOrigin ?? 0);
    }
    await context.close();
    await new Promise((r) => setTimeout(r, 1500));
  }
} finally {
  await browser.close();
  await app.stop();
  // TD_BENCH_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=DIR": the service's profile, placed on each window's clock.
  const dirOpt = /--cpu-prof-dir=(\S+)/.exec(process.env.TD_BENCH_NODE_OPTIONS ?? '')?.[1];
  if (dirOpt && origins.length) {
    await new Promise((r) => setTimeout(r, 1000));
    for (const f of fs.readdirSync(dirOpt).filter((f) => f.endsWith('.cpuprofile'))) {
      const json = fs.readFileSync(path.join(dirOpt, f), 'utf8');
      const p = JSON.parse(json) as { startTime: number; endTime: number };
      origins.forEach((o, i) => {
        if (o < p.startTime || o > p.endTime) return;
        console.log(`${f}, window ${i + 1}, from its navigation:`);
        for (const l of serviceSlices(json, o, o + 800_000)) console.log(l);
      });
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
