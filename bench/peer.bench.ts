/**
 * Against the nearest peer (issue 11): Terminal Delight beside WeTTY 3.2.0 (node-pty +
 * xterm 6 + socket.io: the same stack, a terminal in the browser), one headless Chromium
 * without WebGL (so both draw with xterm's DOM renderer), five rounds alternating which app
 * goes first, both pages read only through what they show (bench/peer-page.ts). Ours is
 * started as a person starts it: serve and the per-user service it starts from its bundle,
 * the browser's door in the service (main/service/door.ts: serve only holds it open); its
 * CPU and memory are those two processes added up, WeTTY's its one. serve rests as /bin/sh
 * a second after its door is held (main/serve/rest.ts: ~2 MiB; it was a Node process of
 * ~55 MiB, 42 of them the Node binary's pages, which RSS added up counted twice), so by the
 * time memory is read ours is the service and a shell. Memory is also given with each page
 * counted once: the service's RSS plus serve's private memory (/proc/PID/smaps_rollup);
 * WeTTY's is its RSS either way.
 * `TD_BENCH_ROUNDS` (5), `TD_BENCH_PEER_MB` (the cat, 32), `TD_BENCH_PEER_FLOOD_MB` (the
 * memory flood, 128) and `TD_BENCH_ATTACHES` (second windows attached per round, 3) change
 * the sizes; `TD_BENCH_PARTS=startup` measures only the start and the attach (with where
 * each one's time went), leaving out the output figures. Attaches are timed in a fresh
 * browser context (an empty cache), in a new tab of a context that has shown the app, and in
 * a new tab of a persistent profile (as `npm start`'s Chromium keeps) that has shown it twice.
 *
 * Where the core's time went (measured before choosing, `node --cpu-prof` on the service
 * and the relay with a Node client acking at once, 32 MiB of coloured source-like text):
 *  - the headless screen parsed every byte: ~1.0 CPU-s per 32 MiB (xterm's parse, print,
 *    scroll, and the garbage they make), about as much as WeTTY's whole server;
 *  - every client got every pane's output, serve's own connection for file routes too: the
 *    service JSON-encoded and wrote the flood twice, the relay read it twice and JSON-parsed
 *    one copy it then dropped;
 *  - JSON.stringify of terminal output (an ESC is six characters in JSON: 32 MiB became
 *    43 MB) and, in the relay, decoding each line to a string and encoding it again;
 *  - a pane's batch built with += (a string of many pieces, slow to flatten at encoding);
 *  - startup: type stripping (amaro) and loading the whole core in the relay.
 * What changed (commits on i11-perf): the headless screen keeps plain output (text, CR, LF,
 * SGR) in a queue and drops a flood's oldest lines for the attributes they left set, exact
 * (main/panes/screen.ts, tested against an xterm fed every byte); pane output reaches
 * windows only, as binary frames (preload/output-frame.ts) passed through the relay as the
 * bytes that came; batches are joined once; the service starts from its bundle and the
 * relay without the core. A Node client's cat of 32 MiB: service 1.4-1.7 -> 0.55-0.8
 * CPU-s, relay 0.4-0.5 -> 0.3-0.4; service start 0.9 -> 0.4 CPU-s. Then the relay itself
 * went: the service opens serve's door in its own process, so no second process reads and
 * writes each byte again (server CPU per 32 MiB 1.61 -> 0.96 s in the first run after).
 *
 * Every round of ours shares one cache folder (XDG_CACHE_HOME, bench/peer-apps.ts): the
 * service's compile cache is cold in the first round and warm in the others.
 *
 * The cat runs twice a round, for both apps. The first is a fresh server's first flood: on
 * it our service also compiles its hot code (V8's optimizing compilers, on threads of their
 * own) and grows its heap: measured per thread (/proc/PID/task), the service's first cat took
 * 0.81-1.23 CPU-s (main thread 0.60-0.85, V8's workers 0.21-0.38) and the ones after it
 * 0.55-0.67 (0.45-0.52 and 0.10-0.15); WeTTY's 0.65-0.71 then 0.49-0.64. The second is what
 * each megabyte costs a server that has run a while, as ours does for days.
 *
 * Throughput was bound by the page (xterm's parser and DOM renderer: ~4 CPU-s for 32 MiB)
 * while flow control paused the program for it. Now a long flood skips ahead (FLOW.skipAfterChars,
 * main/panes/flow.ts): the window is left behind and redraws from the core's screen, so
 * the cat runs at the pace of the core's headless screen. The page then holds a short
 * history; before the scrollback is checked, the page is scrolled to the top, as a person
 * would, which fetches the rest (the time that took is printed).
 *
 * Where the core's time goes now (a 32 MiB cat, measured on one machine): node-pty alone
 * reading it costs ~0.35 CPU-s (half of it the kernel's), the floor for both apps; a Pane
 * (batches, the headless screen) ~0.55; the service with a page ~0.75, a quarter of its
 * main thread garbage collection. The PTY is read as bytes and decoded a batch at a time
 * (main/panes/pane.ts), and a screen catching up in a flood that goes on gets a concurrent
 * collection rather than a full stop (main/service/memory.ts).
 *
 * Attaching and the start: measured before choosing (page traces and the attach timeline
 * printed here), an attach was the page's own CPU (its scripts evaluated, React, xterm made)
 * with nothing shown until it was done. The service's door now draws the window into
 * index.html (renderer/first-paint/): the prompt is painted with the document's first frame.
 * A prompt counts as shown when it is painted (promptTimes: its row in the DOM, or the
 * first contentful paint when later), watched from the response on; xterm's own prompt is
 * printed beside it.
 *
 * The figures of the last run and the before/after table are in docs/spec/performance.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { cpuSeconds, ensureBuilt, ensureWetty, startOurs, startWetty, type App } from './peer-apps.ts';
import { catFile, ctrlC, flood, frameGaps, keys, pageCpu, SHOWN_ROWS, TERMINAL_ROWS, waitForRow } from './peer-page.ts';
import { colouredFile, privateMemory, rawEcho, rss } from './window-raw.ts';
import { benchLog } from './log.ts';

const MB = 1024 * 1024;
const ROUNDS = Number(process.env.TD_BENCH_ROUNDS) || 5;
const CAT_MB = Number(process.env.TD_BENCH_PEER_MB) || 32;
const FLOOD_MB = Number(process.env.TD_BENCH_PEER_FLOOD_MB) || 128;
const PARTS = (process.env.TD_BENCH_PARTS ?? 'startup,output').split(',');
const ATTACHES = Number(process.env.TD_BENCH_ATTACHES) || 3;
const KEYS = 100;
const WARMUP = 10;
const FRAME_MS = 1000 / 60;

interface Figures {
  /** Spawn to the first prompt painted (ms, promptTimes): ours in its first paint when the door drew one, else in xterm's rows. */
  startup: number;
  /** Spawn to the first prompt in xterm's own rows (ms, promptTimes): the terminal itself drawn (WeTTY: the same as startup). */
  startupTerminal: number;
  /** Ours: a second window attached to the running service, page load to prompt painted (ms). */
  attach?: number;
  /** Ours: the same, to the prompt in xterm's own rows. */
  attachTerminal?: number;
  /** Ours: where an attach's time went, on the page's clock (medians of the round's attaches). */
  attachTimeline?: Record<string, number>;
  /** Ours: the same, in a browser that has shown the app before: a new tab in the same context, and in a persistent profile (npm start's Chromium). */
  attachCached?: { sameContext: Attached; profile: Attached };
  /** Where the start's time went: spawn to ready (serve printed its URL / WeTTY listens), to the page's script run, to the prompt (ms). */
  timeline: { ready: number; navigation: number; html: number; script: number };
  keys: number[];
  /** The cat: bytes per second, server and page CPU seconds. */
  bps: number;
  serverCpu: number;
  pageCpu: number;
  /** A second cat of the same file, after the first: bytes per second and server CPU seconds (the server's code compiled, its heap grown). */
  bpsAgain: number;
  serverCpuAgain: number;
  /** Longest gap between the page's animation frames during the cat (ms). */
  frameGap: number;
  ctrlC: number;
  rssIdle: number;
  rssPeak: number;
  /** The same, each page counted once: the last process's RSS plus the others' private memory (ours: the service, and serve holding the door). */
  onceIdle: number;
  oncePeak: number;
  /** Ours: the last lines of the cat compared with the window's scrollback (how many, and whether all matched). */
  exact?: { lines: number; ok: boolean; fetchMs: number };
}

/** Attaches timed: to the prompt shown, to the prompt in xterm's own rows, and where the time went (medians). */
interface Attached {
  ms: number;
  terminalMs: number;
  timeline: Record<string, number>;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}
const median = (xs: number[]) => pct(xs, 50);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

async function measure(browser: Browser, persistent: BrowserContext, app: App, file: string, round: number, expectTail: string[] | undefined): Promise<Figures> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await context.addInitScript(watchPrompt, WATCHED_ROWS);
  try {
    const page = await context.newPage();
    // Ours with its test hook on (?test=1), to read its scrollback after the cat; rows are read from the DOM for both.
    const url = app.name === 'ours' ? `${app.url}&test=1` : app.url;
    const goto = performance.now();
    // Watched from the response on ('commit'), not from the load event: a page may show its prompt before its scripts have run.
    await page.goto(url, { waitUntil: 'commit' });
    await waitForRow(page, /td\$$/, 60_000, TERMINAL_ROWS);
    const spawned = performance.timeOrigin + app.spawnedAt;
    const prompt = await promptTimes(page);
    const startup = prompt.painted - spawned;
    const startupTerminal = prompt.terminal - spawned;
    // The page's clock: navigation start to the end of its last script's evaluation (DOMContentLoaded waits for module scripts).
    const { script, html } = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return { script: nav.domContentLoadedEventStart, html: nav.responseEnd };
    });
    const timeline = { ready: app.readyAt - app.spawnedAt, navigation: goto - app.spawnedAt, html: goto - app.spawnedAt + html, script: goto - app.spawnedAt + script };
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    let attach: number | undefined;
    let attachTerminal: number | undefined;
    let attachTimeline: Record<string, number> | undefined;
    let attachCached: Figures['attachCached'];
    if (app.name === 'ours') {
      // Second windows on the running service, each in a fresh context (an empty cache): page load to its prompt shown.
      ({ ms: attach, terminalMs: attachTerminal, timeline: attachTimeline } = await attaches(url, async () => {
        const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        await other.addInitScript(watchPrompt, WATCHED_ROWS);
        return { page: await other.newPage(), done: () => other.close() };
      }));
      // Second windows in a browser that has shown the app already (its cache warm): a new tab in the
      // same context, and in a persistent profile as npm start's Chromium keeps (where Chromium also keeps
      // V8's code cache for the scripts it has run: it makes one the second time a script runs).
      const shared = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await shared.addInitScript(watchPrompt, WATCHED_ROWS);
      const tab = async (ctx: BrowserContext) => ({ page: await ctx.newPage(), done: async () => {} });
      try {
        await warm(shared, url, 1);
        const sameContext = await attaches(url, () => tab(shared));
        await warm(persistent, url, 2);
        const profile = await attaches(url, () => tab(persistent));
        attachCached = { sameContext, profile };
      } finally {
        await shared.close();
        for (const p of persistent.pages()) await p.close();
      }
    }
    const none = { keys: [], bps: NaN, serverCpu: NaN, pageCpu: NaN, bpsAgain: NaN, serverCpuAgain: NaN, frameGap: NaN, ctrlC: NaN, rssIdle: NaN, rssPeak: NaN, onceIdle: NaN, oncePeak: NaN };
    if (!PARTS.includes('output')) return { startup, startupTerminal, attach, attachTerminal, attachTimeline, attachCached, timeline, ...none };
    const pids = app.pids();
    const memory = () => sum(pids.map((p) => rss(p) ?? 0));
    // Both our processes map the same Node binary: its pages (most of serve's RSS) counted once.
    const once = () => (rss(pids[pids.length - 1]!) ?? 0) + sum(pids.slice(0, -1).map((p) => privateMemory(p) ?? 0));
    const cpu = () => sum(pids.map(cpuSeconds));
    await new Promise((r) => setTimeout(r, 1000));
    let rssIdle = 0;
    let onceIdle = 0;
    for (let i = 0; i < 10; i++) {
      rssIdle = Math.max(rssIdle, memory());
      onceIdle = Math.max(onceIdle, once());
      await new Promise((r) => setTimeout(r, 50));
    }
    const keyTimes = await keys(page, KEYS, WARMUP);
    await page.keyboard.type('clear');
    await page.keyboard.press('Enter');
    await waitForRow(page, /^td\$$/);
    const c0 = cpu();
    const p0 = await pageCpu(cdp);
    const gaps = await frameGaps(page);
    const ms = await catFile(page, file, round, 600_000);
    const frameGap = await gaps();
    const serverCpu = cpu() - c0;
    const pCpu = (await pageCpu(cdp)) - p0;
    let exact: Figures['exact'];
    if (expectTail) {
      // What the window holds: xterm's buffer, through the renderer's test hook (rows alone show only the screen).
      // A window left behind in the flood redrew with a short history (FLOW.skipRedrawScrollback):
      // scrolled to the top, as a person would, it fetches the rest; how long that took is kept.
      exact = await page.evaluate(async ([marker]) => {
        type Term = { scrollToTop(): void };
        const w = window as unknown as { __td?: { paneIds(): string[]; text(id: string): string | null; stats(id: string): { partial: boolean } | null; term(id: string): Term | null } };
        const id = w.__td?.paneIds()[0];
        if (!id) return { text: '', marker, fetchMs: 0 };
        const t0 = performance.now();
        let fetchMs = 0;
        if (w.__td!.stats(id)?.partial) {
          w.__td!.term(id)?.scrollToTop();
          while (w.__td!.stats(id)?.partial && performance.now() - t0 < 30_000) await new Promise((r) => setTimeout(r, 5));
          await new Promise((r) => requestAnimationFrame(() => r(undefined)));
          fetchMs = performance.now() - t0;
        }
        return { text: w.__td!.text(id) ?? '', marker, fetchMs };
      }, [`peer-done-${round}`] as const).then(({ text, marker, fetchMs }) => {
        const lines = text.split('\n');
        const at = lines.lastIndexOf(marker);
        const got = at > 0 ? lines.slice(Math.max(0, at - expectTail.length), at) : [];
        const want = expectTail.slice(expectTail.length - got.length);
        return { lines: got.length, ok: got.length > 0 && got.every((l, i) => l === want[i]), fetchMs };
      });
    }
    // The same cat again: what a megabyte costs a server that has run a while (ours outlives
    // its windows for days), without the first flood's compiling of hot code and heap growth.
    await page.keyboard.type('clear');
    await page.keyboard.press('Enter');
    await waitForRow(page, /^td\$$/);
    const c1 = cpu();
    const msAgain = await catFile(page, file, round + 1000, 600_000);
    const serverCpuAgain = cpu() - c1;
    const c = await ctrlC(page);
    await page.keyboard.type('clear');
    await page.keyboard.press('Enter');
    let rssPeak = memory();
    let oncePeak = once();
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, memory());
      oncePeak = Math.max(oncePeak, once());
    }, 25);
    try {
      await flood(page, FLOOD_MB, round, 900_000);
    } finally {
      clearInterval(sampler);
    }
    return { startup, startupTerminal, attach, attachTerminal, attachTimeline, attachCached, timeline, keys: keyTimes, bps: fs.statSync(file).size / (ms / 1000), serverCpu, pageCpu: pCpu, bpsAgain: fs.statSync(file).size / (msAgain / 1000), serverCpuAgain, frameGap, ctrlC: c, rssIdle, rssPeak, onceIdle, oncePeak, exact };
  } finally {
    await context.close();
  }
}

/** ATTACHES windows opened by `open`, each timed from page load to its prompt shown: the median, and of its timeline. */
async function attaches(url: string, open: () => Promise<{ page: Page; done: () => Promise<void> }>): Promise<Attached> {
  const times: number[] = [];
  const terminal: number[] = [];
  const lines: Record<string, number>[] = [];
  for (let i = 0; i < ATTACHES; i++) {
    const { page, done } = await open();
    const t0 = performance.now();
    await page.goto(url, { waitUntil: 'commit' });
    await waitForRow(page, /td\$$/, 30_000, TERMINAL_ROWS);
    const prompt = await promptTimes(page);
    times.push(prompt.painted - (performance.timeOrigin + t0));
    terminal.push(prompt.terminal - (performance.timeOrigin + t0));
    lines.push(await attachTimelineOf(page));
    await page.close();
    await done();
  }
  return { ms: median(times), terminalMs: median(terminal), timeline: Object.fromEntries(Object.keys(lines[0]!).map((k) => [k, median(lines.map((l) => l[k] ?? NaN))])) };
}

/** Shows the app `times` times in a context, so its cache holds what a window loads (this round's server: its own origin). */
async function warm(ctx: BrowserContext, url: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) {
    const page = await ctx.newPage();
    await page.goto(url);
    await waitForRow(page, /td\$$/, 30_000);
    await page.close();
  }
}

/**
 * When the prompt was first painted, and when xterm's own rows first showed it, on the wall
 * clock (ms since the epoch: the page's timeOrigin plus its own clock, to set against this
 * process's performance.timeOrigin + now(); both are the machine's clock). Painted is its row
 * in the DOM (watchPrompt), or the page's first contentful paint when that came later (rows
 * parsed with the HTML, as our first paint's are, are painted with the document's first
 * frame; rows a script writes come after it); a first paint taken away before the first
 * frame was never seen, so then xterm's rows count.
 */
function promptTimes(page: Page): Promise<{ painted: number; terminal: number }> {
  return page.evaluate(async () => {
    const w = window as Window & { __tdShown?: number; __tdTerminal?: number };
    const entry = (name: string): number | undefined => performance.getEntriesByName(name)[0]?.startTime;
    for (let i = 0; i < 500 && (w.__tdTerminal === undefined || entry('first-contentful-paint') === undefined); i++) await new Promise((r) => setTimeout(r, 10));
    const fcp = entry('first-contentful-paint') ?? 0;
    const retired = entry('td:first-paint-retired');
    const terminal = w.__tdTerminal ?? NaN;
    const shown = retired !== undefined && retired < fcp ? terminal : Math.max(w.__tdShown ?? NaN, fcp);
    return { painted: performance.timeOrigin + shown, terminal: performance.timeOrigin + Math.max(terminal, fcp) };
  });
}

/** Runs in each attaching page before its own scripts: the time (its clock) the prompt's row first appears. */
const WATCHED_ROWS = { shown: SHOWN_ROWS, terminal: TERMINAL_ROWS };

function watchPrompt(rows: typeof WATCHED_ROWS): void {
  const w = window as Window & { __tdShown?: number; __tdTerminal?: number };
  const seen = (sel: string): boolean => [...document.querySelectorAll(sel)].some((d) => /td\$$/.test((d.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));
  const check = (): void => {
    if (w.__tdShown === undefined && seen(rows.shown)) w.__tdShown = performance.now();
    if (w.__tdTerminal === undefined && seen(rows.terminal)) w.__tdTerminal = performance.now();
    if (w.__tdShown !== undefined && w.__tdTerminal !== undefined) mo.disconnect();
  };
  const mo = new MutationObserver(check);
  mo.observe(document, { childList: true, subtree: true, characterData: true });
  // The first paint is in the HTML: parsed rows come before any mutation a script makes.
  document.addEventListener('DOMContentLoaded', check);
}

/** The attaching page's timeline (ms from navigation start): the HTML, the main script fetched and run, the renderer's marks, the prompt's row shown. */
function attachTimelineOf(page: import('playwright-core').Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    // The main bundle (chunks loaded later, the bench's when idle, are not on the way to the prompt).
    const main = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).find((r) => /\/assets\/index-[^/]*\.js$/.test(r.name));
    const mark = (name: string) => performance.getEntriesByName(name, 'mark')[0]?.startTime ?? NaN;
    return {
      html: nav.responseEnd,
      'main script fetched': main?.responseEnd ?? NaN,
      'main script KB over the network': main ? main.transferSize / 1024 : NaN,
      'script run': mark('td:script'),
      'socket open': mark('td:open'),
      'hello answered': mark('td:hello'),
      'snapshot asked': mark('td:snapshot-asked'),
      'snapshot answered': mark('td:snapshot'),
      'snapshot parsed': mark('td:snapshot-parsed'),
      'first contentful paint': performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
      'prompt row shown': (window as Window & { __tdShown?: number }).__tdShown ?? NaN,
      'first paint retired': mark('td:first-paint-retired'),
      "terminal's prompt row shown": (window as Window & { __tdTerminal?: number }).__tdTerminal ?? NaN,
    };
  });
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { lines, log } = benchLog('peer bench');
  ensureBuilt();
  const wetty = ensureWetty(log);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-peer-files-'));
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true });
  // A browser with a profile on disk, as npm start's Chromium has (its HTTP cache and V8's code cache kept there).
  const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-peer-profile-'));
  const persistent = await chromium.launchPersistentContext(profileDir, { executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true, viewport: { width: 1280, height: 800 } });
  await persistent.addInitScript(watchPrompt, WATCHED_ROWS);
  try {
    const file = colouredFile(dir, 'coloured.txt', CAT_MB * MB);
    // The window shows the cat's lines without their colours: what its scrollback must hold, exactly.
    const plain = fs.readFileSync(file, 'utf8').replace(/\x1b\[[0-9;:]*m/g, '').split('\n');
    const tail = plain.slice(-10_001, -1);
    const bare = PARTS.includes('output') ? await rawEcho(200) : [];
    const figures: Record<App['name'], Figures[]> = { ours: [], WeTTY: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of r % 2 === 0 ? (['ours', 'WeTTY'] as const) : (['WeTTY', 'ours'] as const)) {
        const app = name === 'ours' ? await startOurs() : await startWetty(wetty);
        try {
          const f = await measure(browser, persistent, app, file, r, name === 'ours' ? tail : undefined);
          figures[name].push(f);
          if (!PARTS.includes('output')) {
            log(`round ${r + 1} ${name}: start ${f.startup.toFixed(0)} ms (ready ${f.timeline.ready.toFixed(0)}, navigation ${f.timeline.navigation.toFixed(0)}, HTML ${f.timeline.html.toFixed(0)}, page script run ${f.timeline.script.toFixed(0)})${f.attach ? `, attach ${f.attach.toFixed(0)} ms (${steps(f.attachTimeline)})` : ''}${f.attachCached ? `; cached: same context ${f.attachCached.sameContext.ms.toFixed(0)} ms (${steps(f.attachCached.sameContext.timeline)}), profile ${f.attachCached.profile.ms.toFixed(0)} ms (${steps(f.attachCached.profile.timeline)})` : ''}`);
            continue;
          }
          log(`round ${r + 1} ${name}: ${(f.bps / MB).toFixed(1)} MB/s, server ${f.serverCpu.toFixed(2)} CPU-s, page ${f.pageCpu.toFixed(2)} s, again ${(f.bpsAgain / MB).toFixed(1)} MB/s and ${f.serverCpuAgain.toFixed(2)} CPU-s, keys p50 ${median(f.keys).toFixed(1)} p99 ${pct(f.keys, 99).toFixed(1)} ms, Ctrl-C ${f.ctrlC.toFixed(0)} ms, RSS ${(f.rssIdle / MB).toFixed(0)}/${(f.rssPeak / MB).toFixed(0)} MiB (pages once ${(f.onceIdle / MB).toFixed(0)}/${(f.oncePeak / MB).toFixed(0)}), start ${f.startup.toFixed(0)} ms${f.attach ? `, attach ${f.attach.toFixed(0)} ms` : ''}, frame gap ${f.frameGap.toFixed(0)} ms${f.exact ? `, scrollback ${f.exact.ok ? 'exact' : 'NOT EXACT'} (${f.exact.lines} lines)` : ''}`);
        } finally {
          await app.stop();
        }
      }
    }
    report(figures, bare, log);
  } finally {
    await persistent.close();
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(profileDir, { recursive: true, force: true });
  }
  return { name: 'peer: ours beside WeTTY 3.2.0 (issue 11)', lines };
}

const steps = (timeline: Record<string, number> | undefined) => Object.entries(timeline ?? {}).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');

function report(figures: Record<App['name'], Figures[]>, bare: number[], log: (l: string) => void): void {
  const o = figures.ours;
  const w = figures.WeTTY;
  const per = (get: (f: Figures) => number) => o.map((f, i) => get(f) / get(w[i]!));
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
  const row = (label: string, get: (f: Figures) => number, fmt: (x: number) => string) => {
    const a = median(o.map(get));
    const b = median(w.map(get));
    log(`| ${label} | ${fmt(a)} | ${fmt(b)} | ${(a / b).toFixed(2)} (${range(per(get))}) |`);
    return a / b;
  };
  const mbs = (x: number) => `${(x / MB).toFixed(1)} MB/s`;
  const s = (x: number) => `${x.toFixed(2)} s`;
  const msf = (x: number) => `${x.toFixed(0)} ms`;
  const mib = (x: number) => `${(x / MB).toFixed(0)} MiB`;
  log('');
  log(`${o.length} rounds, medians; the ratio's range is round by round. Ours = serve + service (the door in it), both counted.`);
  log('| figure | ours | WeTTY | ours/WeTTY |');
  log('| --- | --- | --- | --- |');
  const verdict = (b: boolean) => (b ? 'goal met' : 'GOAL NOT MET');
  const startRows = () => {
    const start = row('spawn to first prompt painted (ours: the first paint, where the door drew one)', (f) => f.startup, msf);
    const startTerminal = row('  spawn to the prompt in the terminal itself (xterm\'s rows)', (f) => f.startupTerminal, msf);
    row('  of which spawn to ready (ours: serve printed its URL; WeTTY: listening)', (f) => f.timeline.ready, msf);
    row('  of which spawn to the page\'s navigation (a new browser context and tab made)', (f) => f.timeline.navigation, msf);
    row('  of which spawn to the page\'s HTML', (f) => f.timeline.html, msf);
    row('  of which spawn to the page\'s scripts run', (f) => f.timeline.script, msf);
    const attach = median(o.map((f) => f.attach ?? NaN));
    log(`| a window attaching to the running service, load to prompt painted | ${msf(attach)} | | |`);
    const attachTerminal = median(o.map((f) => f.attachTerminal ?? NaN));
    log(`|   the same, to the prompt in the terminal itself (xterm's rows) | ${msf(attachTerminal)} | | |`);
    const clock = (get: (f: Figures) => Record<string, number> | undefined) => {
      const first = get(o[0]!);
      if (first) log(`| of which, on the page's clock (medians) | ${Object.keys(first).map((k) => `${k} ${median(o.map((f) => get(f)?.[k] ?? NaN)).toFixed(0)}`).join(', ')} | | |`);
    };
    clock((f) => f.attachTimeline);
    if (o[0]?.attachCached) {
      log(`| the same, a new tab in a browser context that showed the app (its cache warm) | ${msf(median(o.map((f) => f.attachCached?.sameContext.ms ?? NaN)))} (the terminal itself ${msf(median(o.map((f) => f.attachCached?.sameContext.terminalMs ?? NaN)))}) | | |`);
      clock((f) => f.attachCached?.sameContext.timeline);
      log(`| the same, a new tab in a persistent profile that showed the app twice (npm start's Chromium) | ${msf(median(o.map((f) => f.attachCached?.profile.ms ?? NaN)))} (the terminal itself ${msf(median(o.map((f) => f.attachCached?.profile.terminalMs ?? NaN)))}) | | |`);
      clock((f) => f.attachCached?.profile.timeline);
    }
    return { start, attach, startTerminal, attachTerminal };
  };
  if (!PARTS.includes('output')) {
    const { start, attach, startTerminal, attachTerminal } = startRows();
    log('');
    log(`goals: startup <= 0.8x WeTTY's: ${start.toFixed(2)}, ${verdict(start <= 0.8)} (the terminal itself: ${startTerminal.toFixed(2)}); attach < 300 ms: ${msf(attach)}, ${verdict(attach < 300)} (the terminal itself: ${msf(attachTerminal)})`);
    return;
  }
  const tput = row(`throughput, cat of ${CAT_MB} MiB of coloured text, Enter to last line shown`, (f) => f.bps, mbs);
  const cpu = row(`server CPU seconds per ${CAT_MB} MiB (ours: serve + service)`, (f) => f.serverCpu, s);
  row(`page CPU seconds per ${CAT_MB} MiB (main thread)`, (f) => f.pageCpu, s);
  row('  throughput, the same cat again (the server\'s code compiled, its heap grown)', (f) => f.bpsAgain, mbs);
  const cpuAgain = row('  server CPU seconds, the same cat again', (f) => f.serverCpuAgain, s);
  const ok = o.flatMap((f) => f.keys);
  const wk = w.flatMap((f) => f.keys);
  log(`| keystroke p50 / p99 (keydown to echo shown) | ${pct(ok, 50).toFixed(1)} / ${pct(ok, 99).toFixed(1)} ms | ${pct(wk, 50).toFixed(1)} / ${pct(wk, 99).toFixed(1)} ms | ${(pct(ok, 50) / pct(wk, 50)).toFixed(2)} / ${(pct(ok, 99) / pct(wk, 99)).toFixed(2)} |`);
  const cc = row('Ctrl-C under `yes` to the prompt', (f) => f.ctrlC, msf);
  row('server RSS idle', (f) => f.rssIdle, mib);
  const peak = row(`server RSS peak in a ${FLOOD_MB} MiB flood of lines`, (f) => f.rssPeak, mib);
  row('server memory idle, pages counted once (ours: the service\'s RSS + serve\'s private memory)', (f) => f.onceIdle, mib);
  const oncePeakRatio = row(`server memory peak in the flood, pages counted once`, (f) => f.oncePeak, mib);
  row('longest frame gap during the cat', (f) => f.frameGap, msf);
  const { start, attach, startTerminal, attachTerminal } = startRows();
  log('');
  const bareP99 = pct(bare, 99);
  const idleO = median(o.map((f) => f.rssIdle));
  const idleW = median(w.map((f) => f.rssIdle));
  const peakO = median(o.map((f) => f.rssPeak));
  log(`goals: throughput >= 1.5x WeTTY's: ${tput.toFixed(2)}, ${verdict(tput >= 1.5)}`);
  log(`       server CPU per MiB <= 1.2x WeTTY's: ${cpu.toFixed(2)}, ${verdict(cpu <= 1.2)} (the same cat again: ${cpuAgain.toFixed(2)}, ${verdict(cpuAgain <= 1.2)})`);
  log(`       keystroke p99 <= WeTTY's (${(pct(ok, 99) / pct(wk, 99)).toFixed(2)}) and < bare PTY echo p99 + a frame (${bareP99.toFixed(1)} + ${FRAME_MS.toFixed(1)} ms): ${verdict(pct(ok, 99) <= pct(wk, 99) && pct(ok, 99) < bareP99 + FRAME_MS)}; p50 ahead: ${verdict(pct(ok, 50) < pct(wk, 50))}`);
  log(`       Ctrl-C under 200 ms: ${median(o.map((f) => f.ctrlC)).toFixed(0)} ms (${cc.toFixed(2)}x WeTTY), ${verdict(median(o.map((f) => f.ctrlC)) < 200)}`);
  log(`       flood peak < 1.3x idle: ${(peakO / idleO).toFixed(2)}, ${verdict(peakO < 1.3 * idleO)}; < 1.5x WeTTY's peak: ${peak.toFixed(2)}, ${verdict(peak < 1.5)}; idle <= WeTTY's + 20 MiB: ${mib(idleO)} vs ${mib(idleW + 20 * MB)}, ${verdict(idleO <= idleW + 20 * MB)}`);
  const onceIdleO = median(o.map((f) => f.onceIdle));
  const onceIdleW = median(w.map((f) => f.onceIdle));
  const oncePeakO = median(o.map((f) => f.oncePeak));
  log(`       the same with each page counted once (the Node binary both our processes map): peak < 1.3x idle: ${(oncePeakO / onceIdleO).toFixed(2)}, ${verdict(oncePeakO < 1.3 * onceIdleO)}; < 1.5x WeTTY's peak: ${oncePeakRatio.toFixed(2)}, ${verdict(oncePeakRatio < 1.5)}; idle <= WeTTY's + 20 MiB: ${mib(onceIdleO)} vs ${mib(onceIdleW + 20 * MB)}, ${verdict(onceIdleO <= onceIdleW + 20 * MB)}`);
  log(`       startup <= 0.8x WeTTY's: ${start.toFixed(2)}, ${verdict(start <= 0.8)} (the terminal itself: ${startTerminal.toFixed(2)}); attach < 300 ms: ${msf(attach)}, ${verdict(attach < 300)} (the terminal itself: ${msf(attachTerminal)})`);
  log(`       frame gaps during the cat < 100 ms: ours ${median(o.map((f) => f.frameGap)).toFixed(0)} ms, ${verdict(median(o.map((f) => f.frameGap)) < 100)}`);
  const exact = o.map((f) => f.exact);
  const fetches = exact.map((e) => e?.fetchMs ?? 0).filter((ms) => ms > 0);
  log(`       nothing lost: the last ${exact[0]?.lines ?? 0} lines of the cat exact in the window's scrollback in ${exact.filter((e) => e?.ok).length} of ${exact.length} rounds${fetches.length ? ` (scrolled to the top first: the history fetched in ${median(fetches).toFixed(0)} ms, median of ${fetches.length})` : ''}`);
}
