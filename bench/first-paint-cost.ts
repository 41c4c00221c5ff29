/**
 * What the door's first paint costs a fresh page before its first contentful paint (issue 38,
 * item 4), apart from everything else an attach does: the page as the door sends it for N full
 * panes (TD_BENCH_TMUX_PANES, default 32, each a `cat` of 10,000 lines, then resized to 30 x 10
 * as a 1920 x 1080 window makes them) with its scripts taken out, served from a local server
 * with the renderer's own CSS and icon, opened in fresh browser contexts, in turns with:
 *  - `mono-first`: the same, the rows' font stack given the installed monospace family first
 *    (what the font stack's missing families cost: each one a lookup in a fresh renderer);
 *  - `no-first-paint`: the page without its first paint (its CSS, one line of text);
 *  - `tiny`: a page of one line and no CSS (the browser's own floor).
 * Not part of `npm run bench`: `node bench/first-paint-cost.ts` (TD_BENCH_FP_ROUNDS, default 12).
 * Prints each variant's first contentful paint (median, range) and its response end.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { ensureBuilt, ROOT, startOurs } from './peer-apps.ts';
import { fillFile, fillPanes } from './fill.ts';
import { median } from './log.ts';

const PANES = Math.max(2, Number(process.env.TD_BENCH_TMUX_PANES) || 32);
const ROUNDS = Math.max(1, Number(process.env.TD_BENCH_FP_ROUNDS) || 12);
ensureBuilt();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-first-paint-cost-'));
const file = fillFile(dir);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
let server: http.Server | undefined;
try {
  // The page as the door sends it, for panes as a first window leaves them.
  const app = await startOurs();
  let html: string;
  try {
    await fillPanes(app.url, file, PANES, { cols: 30, rows: 10 });
    await new Promise((r) => setTimeout(r, 2000));
    const ctx = await browser.newContext();
    html = await (await ctx.request.get(`${app.url}&theme=dark`)).text();
    await ctx.close();
  } finally {
    await app.stop();
  }
  if (!html.includes('td-first-paint')) throw new Error('the door sent no first paint');
  html = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
  const variants: Record<string, string> = {
    'as sent': html,
    'mono-first': html.replaceAll(/font-family:[^;"]*/g, 'font-family:"DejaVu Sans Mono", monospace'),
    'no-first-paint': html.replace(/<div id="root"><\/div>[\s\S]*<\/body>/, '<div id="root"><p>hello</p></div></body>'),
    tiny: '<!doctype html><html><head><title>x</title></head><body><p>hello</p></body></html>',
  };
  const names = Object.keys(variants);
  const renderer = path.join(ROOT, 'out', 'renderer');
  server = http.createServer((req, res) => {
    const u = new URL(req.url!, 'http://x');
    const v = names[Number(u.pathname.slice(1))];
    if (u.pathname.length > 1 && v !== undefined && /^\/\d+$/.test(u.pathname)) {
      res.setHeader('content-type', 'text/html');
      res.end(variants[v]);
      return;
    }
    const f = path.join(renderer, path.normalize(u.pathname));
    if (!f.startsWith(renderer + path.sep) || !fs.existsSync(f) || !fs.statSync(f).isFile()) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', f.endsWith('.css') ? 'text/css' : f.endsWith('.svg') ? 'image/svg+xml' : 'application/octet-stream');
    res.end(fs.readFileSync(f));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const got = new Map<string, Array<{ response: number; fcp: number }>>(names.map((n) => [n, []]));
  for (let i = 0; i < ROUNDS; i++) {
    const order = names.map((_, k) => k);
    for (const k of i % 2 ? order.reverse() : order) {
      const ctx = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
      try {
        const page = await ctx.newPage();
        await page.goto(`http://127.0.0.1:${port}/${k}`, { waitUntil: 'load' });
        await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 10_000 });
        got.get(names[k]!)!.push(await page.evaluate(() => ({
          response: (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).responseEnd,
          fcp: performance.getEntriesByName('first-contentful-paint')[0]!.startTime,
        })));
      } finally {
        await ctx.close();
      }
    }
  }
  console.log(`the door's page for ${PANES} panes (30 x 10, 10,000 lines each): ${(html.length / 1024).toFixed(0)} KiB without its scripts; ${ROUNDS} fresh contexts each, in turns; load ${os.loadavg()[0]!.toFixed(1)}`);
  for (const [n, xs] of got) console.log(`  ${n.padEnd(15)} first contentful paint ${median(xs.map((x) => x.fcp)).toFixed(0)} ms (${Math.min(...xs.map((x) => x.fcp)).toFixed(0)}-${Math.max(...xs.map((x) => x.fcp)).toFixed(0)}), response end ${median(xs.map((x) => x.response)).toFixed(0)} ms`);
} finally {
  server?.close();
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
