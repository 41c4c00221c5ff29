/**
 * Against tmux (issue 38, item 1), in the same run: N panes (32; `TD_BENCH_TMUX_PANES` for
 * a quicker run) each holding 10,000 lines of ~70-character output (a `cat` of the same
 * file in every pane), then idle.
 *  - memory: the server's resident memory (RSS) and its proportional share (PSS, shared
 *    pages divided among the processes that map them; /proc/PID/smaps_rollup) with one
 *    empty pane, and with the N full panes 30 s after the last output; per pane is the
 *    difference over N. tmux: Debian's tmux server, started with its own socket (-S) and
 *    no configuration (-f /dev/null), `history-limit 10000`. Ours: the service process
 *    (serve rests as /bin/sh; the shells are neither's).
 *  - attach: tmux: `tmux attach-session` in a pty (node-pty, 240 x 70), from its spawn until
 *    the screen it draws shows every pane's prompt; ours: a fresh browser context (empty
 *    cache) opening the window, from navigation until every pane's terminal is live (its
 *    snapshot drawn by its terminal, keys answered); beside it the focused pane's own time, the
 *    panes in view (their element on the viewport: with splits filling the window, all of
 *    them) and the page's first contentful paint (the door's first paint: every pane's screen
 *    as it is). Five attaches each, alternating. Ours is measured in the page by one init
 *    script checking each condition on every frame (the text conditions also as the page is told
 *    of its first contentful paint), reported through a raw CDP binding
 *    (bench/attach-measure.ts: nothing of Playwright's runs in the page); `TD_BENCH_MEASURE=pollers`
 *    measures as before 2026-12-06 midday (Playwright's waitForFunction raf pollers), `both` (or
 *    `light,pollers`, `pollers,light`: the first window's goes to the first) an attach of each in
 *    turn, `check` the pollers with the light script beside them in the same page (each
 *    condition's two times, per attach), `light-dom` the light measure typing its marker as
 *    the pollers did, once the DOM shows the focused pane's text (`light` waits for the first
 *    contentful paint too). `TD_BENCH_ATTACH_MARKS=1` (the light measure) prints each attach's
 *    page timeline on the bench's clock: the renderer's `td:` marks, the long tasks and the
 *    frames of its first second (a diagnosis, 2026-12-06 evening: which task a key waited for).
 *    Each attach's line also says the service's time on a CPU and ready but waiting for one
 *    (/proc/PID/task/TID/schedstat, over the attach and its measure); `TD_BENCH_SERVICE_NICE=-10`
 *    (root only; a diagnosis, not how the app runs) gives the service's autogroup that nice
 *    value first, to see the attach with the service hardly ever short of a core.
 * Each figure is printed beside its peer and the goal (memory per pane at most 0.5x tmux's;
 * the panes in view live within 300 ms, all within 1 s).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import nodePty from 'node-pty';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { tmuxServer } from './tmux-server.ts';
import { ensureBuilt, startOurs } from './peer-apps.ts';
import { lightAttach, lightMeasure } from './attach-measure.ts';
import { benchLog, median } from './log.ts';
import { rss } from './window-raw.ts';
import { wsWindow } from './ws-window.ts';
import { fillFile } from './fill.ts';

const MB = 1024 * 1024;
const PANES = Math.max(2, Number(process.env.TD_BENCH_TMUX_PANES) || 32);
const LINES = 10_000;
/** Attaches of each (`TD_BENCH_TMUX_ATTACHES` for a run about memory alone). */
const ATTACHES = Math.max(1, Number(process.env.TD_BENCH_TMUX_ATTACHES) || 5);
/**
 * tmux's window while the panes are filled: wide enough that no pane wraps a line (tmux's
 * history counts rows); the first attach (240 x 70) resizes it, as a browser window resizes
 * ours (both reflow their history then).
 */
const FILL_COLS = 1000;
/**
 * Memory is read this long after the last output: at rest. The service gives back what a
 * flood took once quiet, and again once its search index has caught up with it, which reads
 * at most a fifth of the loop's time: 32 panes of 10,000 lines take it ~20 s on a loaded
 * 2-core machine (at 10 s, RSS 162 MiB; at 22 s, 128). `TD_BENCH_TMUX_SETTLE_MS` for a quicker
 * run (its memory figures are then not at rest).
 */
const SETTLE_MS = Number(process.env.TD_BENCH_TMUX_SETTLE_MS) || 30_000;
const FILL_ROWS = 400;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
const mib = (x: number) => `${(x / MB).toFixed(1)} MiB`;
const verdict = (ok: boolean) => (ok ? 'goal met' : 'GOAL NOT MET');
/**
 * How ours is measured (`TD_BENCH_MEASURE`): `light` (the default: bench/attach-measure.ts, one
 * init script's raf check reporting through a raw CDP binding), `pollers` (Playwright's
 * waitForFunction raf pollers, the measure before 2026-12-06 midday, whose injected script and
 * predicates run in the page being measured), `light-dom` (light, the marker typed as the DOM
 * shows the text, as the pollers did), `check` (the pollers with the light script beside them),
 * or a list of them, `both` being `light,pollers` (an attach of each in turn, the order
 * alternating, ATTACHES of each: side by side on the same service; the first window goes to the
 * first).
 */
type Measure = 'light' | 'light-dom' | 'pollers' | 'check';
const MEASURES: Measure[] = [...new Set((process.env.TD_BENCH_MEASURE || 'light').replace('both', 'light,pollers').split(',').map((m) => m.trim()))].map((m) => {
  if (m !== 'light' && m !== 'light-dom' && m !== 'pollers' && m !== 'check') throw new Error(`TD_BENCH_MEASURE: ${m} is not light, light-dom, pollers, both or check`);
  return m;
});
const MEASURE_TEXT: Record<Measure, string> = {
  light: 'light (one init script checking on each frame and as the page is told of its first paint, reported through a raw CDP binding; the marker typed once the focused pane\'s text is in the DOM and the page\'s first contentful paint is known, its keys sent at once, not each after the one before was acknowledged; TD_BENCH_MEASURE=pollers for the old measure)',
  'light-dom': 'light, the marker typed as soon as the DOM shows the focused pane\'s text (as the pollers did; the light measure waits for the first contentful paint too)',
  pollers: "by Playwright's raf pollers (waitForFunction, its injected script in the page: the measure before 2026-12-06 midday)",
  check: "by Playwright's raf pollers with the light measure's script beside them in the same page (a check of the light measure: it must see each condition no later than the pollers, and not much sooner)",
};
/** How many panes the last attach found in view. */
let inViewCount = 0;

/** A process's proportional set size (/proc/PID/smaps_rollup), in bytes. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

interface Memory { rss: number; pss: number }
const memory = (pid: number): Memory => ({ rss: rss(pid) ?? 0, pss: pss(pid) });

interface Side {
  idle: Memory;
  full: Memory;
  /** tmux: until every pane's prompt is drawn. */
  attach: number[];
}

/** The renderer's test hook (`?test=1`), what the attach reads of it. */
interface TdHook {
  store: { getState(): { focused?: string | null } };
  paneIds(): string[];
  live(id: string): boolean;
  /** Absent in windows before it (their attach then counts a pane live once its snapshot came). */
  drawn?(id: string): boolean;
}

/** tmux: its own socket and no configuration, a quiet bash with the prompt `td$ ` in each pane. */
async function tmux(dir: string, file: string, log: (l: string) => void): Promise<Side> {
  const { sock, env, t } = tmuxServer(dir, path.join(dir, 'tmux-home'));
  const prompted = (pane: string) => /td\$ *$/.test(t('capture-pane', '-p', '-t', pane).trimEnd());
  const until = async (cond: () => boolean, what: string) => {
    const end = Date.now() + 120_000;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`tmux: timed out waiting for ${what}`);
      await sleep(100);
    }
  };
  t('start-server', ';', 'set-option', '-g', 'history-limit', String(LINES), ';', 'new-session', '-d', '-s', 'bench', '-x', String(FILL_COLS), '-y', String(FILL_ROWS));
  const server = Number(t('display-message', '-p', '-t', 'bench', '#{pid}').trim());
  try {
    await until(() => prompted('bench:0.0'), 'the first prompt');
    await sleep(SETTLE_MS);
    const idle = memory(server);
    for (let i = 1; i < PANES; i++) {
      t('split-window', '-t', 'bench:0', '-d');
      t('select-layout', '-t', 'bench:0', 'tiled');
    }
    const panes = t('list-panes', '-t', 'bench:0', '-F', '#{pane_id}').trim().split('\n');
    if (panes.length !== PANES) throw new Error(`tmux made ${panes.length} panes, not ${PANES}`);
    for (const p of panes) t('send-keys', '-t', p, `cat ${file}; echo fill-done`, 'Enter');
    for (const p of panes) await until(() => /fill-done\n(.*\n)*td\$ *$/.test(t('capture-pane', '-p', '-t', p).trimEnd()), `pane ${p} to be filled`);
    // Every line of the file in the pane, its history and its screen (a tall pane shows hundreds of them).
    const [history, height] = t('display-message', '-p', '-t', panes[0]!, '#{history_size} #{pane_height}').trim().split(' ').map(Number);
    if (history! + height! < LINES) throw new Error(`tmux's pane holds ${history} lines of history and ${height} on screen, not all ${LINES}`);
    await sleep(SETTLE_MS);
    const full = memory(server);
    const attach: number[] = [];
    for (let i = 0; i < ATTACHES; i++) attach.push(await tmuxAttach(sock, env, dir));
    log(`tmux     server pid ${server}, ${PANES} panes of ${history} lines of history each`);
    return { idle, full, attach };
  } finally {
    spawnSync('tmux', ['-S', sock, 'kill-server'], { env });
  }
}

/** ms from spawning `tmux attach-session` in a pty until what it drew shows every pane's prompt. */
function tmuxAttach(sock: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = nodePty.spawn('tmux', ['-S', sock, 'attach-session', '-t', 'bench'], { name: 'xterm-256color', cols: 240, rows: 70, cwd, env: env as Record<string, string> });
    let seen = '';
    let done = false;
    const timer = setTimeout(() => finish(new Error(`tmux attach drew ${(seen.match(/td\$/g) ?? []).length} of ${PANES} prompts in 30 s`)), 30_000);
    const finish = (err?: Error, ms?: number) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      // Detach the client (the server and its panes stay).
      spawnSync('tmux', ['-S', sock, 'detach-client', '-s', 'bench'], { env });
      p.onExit(() => (err ? reject(err) : resolve(ms!)));
      setTimeout(() => p.kill(), 2_000).unref();
    };
    p.onData((d) => {
      seen += d;
      if ((seen.match(/td\$/g) ?? []).length >= PANES) finish(undefined, performance.now() - t0);
    });
  });
}

/**
 * ms from navigation (t0) until every pane in view shows its text (its part of the door's first
 * paint, or its terminal's rows) and a marker typed into the focused pane, as soon as that
 * pane's text showed, is echoed on screen: on its first paint part while that shows, else by
 * its terminal (drawn). The marker is then wiped from the shell's line (Ctrl+U).
 */
async function answeringLive(page: import('playwright-core').Page, t0: number, marker: string): Promise<{ ms: number; by: string }> {
  // Every pane in view shows its text (the first paint shows them all at once; else each terminal drawn), timed beside the echo.
  const texts = page.waitForFunction(() => {
    const parts = new Map([...document.querySelectorAll<HTMLElement>('#td-first-paint .pane[data-first-paint-pane]:not(.first-paint-gone)')].map((e) => [e.dataset.firstPaintPane!, e]));
    const shows = (e: HTMLElement | undefined) => !!e && !!(e.querySelector('.first-paint-rows')?.textContent ?? '').trim();
    const td = (window as unknown as { __td?: TdHook }).__td;
    if (!td) return parts.size > 0 && [...parts.values()].every(shows);
    const ids = td.paneIds();
    return ids.length > 0 && ids.every((id) => shows(parts.get(id)) || !!td.drawn?.(id));
  }, undefined, { polling: 'raf', timeout: 180_000 }).then(() => performance.now() - t0);
  texts.catch(() => { /* awaited below */ });
  // The focused pane's text on screen: its first paint part (with rows), or its terminal drawn.
  const focusedId = await page.waitForFunction(() => {
    const part = document.querySelector<HTMLElement>('#td-first-paint .pane[data-first-paint-pane][data-focused="true"]:not(.first-paint-gone)');
    if (part && (part.querySelector('.first-paint-rows')?.textContent ?? '').trim()) return part.dataset.firstPaintPane!;
    const td = (window as unknown as { __td?: TdHook }).__td;
    const id = td?.store.getState().focused;
    return id && td!.drawn?.(id) ? id : false;
  }, undefined, { polling: 'raf', timeout: 180_000 }).then((h) => h.jsonValue() as Promise<string>);
  await page.keyboard.type(marker);
  const by = await page.waitForFunction(([id, m]) => {
    const part = [...document.querySelectorAll<HTMLElement>('#td-first-paint .pane[data-first-paint-pane]:not(.first-paint-gone)')].find((e) => e.dataset.firstPaintPane === id);
    if (part && (part.querySelector('.first-paint-rows')?.textContent ?? '').includes(m)) return 'first paint';
    const td = (window as unknown as { __td?: TdHook & { text(id: string, n?: number): string | null } }).__td;
    return !part && td?.drawn?.(id) && (td.text(id, 5) ?? '').includes(m) ? 'terminal' : false;
  }, [focusedId, marker] as const, { polling: 'raf', timeout: 180_000 }).then((h) => h.jsonValue() as Promise<string>);
  const echoed = performance.now() - t0;
  const ms = Math.max(echoed, await texts);
  await page.keyboard.press('Control+U');
  return { ms, by };
}

/** What one attach of ours gave, by any measure. */
interface Attach {
  /** Until every pane is live (drawn by its terminal). */
  all: number;
  /** Until the focused pane's terminal is live and drawn, until every pane in view is. */
  focused: number;
  inView: number;
  inViewCount: number;
  /** The page's first contentful paint (the door's first paint: every pane's screen), on the page's clock. */
  firstPaint: number;
  /** The panes in view live, whoever answers (answeringLive), and where the echo was seen first: 'first paint' or 'terminal'. */
  answering: number;
  by: string;
  /** The light measure's own account (its clock, its cost), for the log. */
  note?: string;
}

/** The old measure: Playwright's raf pollers (waitForFunction), several at once, t0 just before page.goto. */
async function attachPollers(page: import('playwright-core').Page, url: string, marker: string): Promise<Attach & { t0: number }> {
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  // Beside the waits below, a person's view: as soon as the focused pane's text shows, a
  // marker typed into it, until its echo shows (and every pane in view shows its text).
  const answering = answeringLive(page, t0, marker);
  answering.catch(() => { /* awaited once every terminal is live */ });
  // The pane keys go to, live and drawn by its terminal; then every pane (all of them in view).
  await page.waitForFunction(() => {
    const td = (window as unknown as { __td?: TdHook }).__td;
    const id = td?.store.getState().focused;
    return !!id && td!.live(id) && (td!.drawn?.(id) ?? true);
  }, undefined, { polling: 'raf', timeout: 180_000 });
  const focused = performance.now() - t0;
  // Every pane in view (its element on the page's viewport, not of no size) live and drawn.
  await page.waitForFunction((n) => {
    const td = (window as unknown as { __td?: TdHook }).__td;
    const shown = td?.paneIds() ?? [];
    if (shown.length < n) return false;
    const w = window.innerWidth;
    const h = window.innerHeight;
    return shown.every((id) => {
      const r = document.querySelector(`.pane[data-pane-id="${CSS.escape(id)}"]`)?.getBoundingClientRect();
      const seen = !!r && r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < w && r.top < h;
      return !seen || (td!.live(id) && (td!.drawn?.(id) ?? true));
    });
  }, PANES, { polling: 'raf', timeout: 180_000 });
  const inView = performance.now() - t0;
  const inViewCount = await page.evaluate(() => [...document.querySelectorAll('.pane[data-pane-id]')].filter((e) => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < window.innerWidth && r.top < window.innerHeight;
  }).length);
  await page.waitForFunction((n) => {
    const td = (window as unknown as { __td?: TdHook }).__td;
    const shown = td?.paneIds() ?? [];
    return shown.length >= n && shown.every((id) => td!.live(id) && (td!.drawn?.(id) ?? true));
  }, PANES, { polling: 'raf', timeout: 180_000 }).catch(async (e: Error) => {
    const seen = await page.evaluate(() => {
      const td = (window as unknown as { __td?: TdHook }).__td;
      const shown = td?.paneIds() ?? [];
      return { shown: shown.length, live: shown.filter((id) => td!.live(id) && (td!.drawn?.(id) ?? true)).length };
    }).catch(() => undefined);
    throw new Error(`${e.message}: the window shows ${seen?.shown} panes, ${seen?.live} of them live`);
  });
  const all = performance.now() - t0;
  const answered = await answering;
  const firstPaint = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN);
  return { all, focused, inView, inViewCount, firstPaint, answering: answered.ms, by: answered.by, t0 };
}

/** The light measure (bench/attach-measure.ts): one init script's raf check, reported through a raw CDP binding; the same conditions, on Node's t0. */
async function attachLight(context: import('playwright-core').BrowserContext, page: import('playwright-core').Page, url: string, marker: string, paint: boolean): Promise<Attach> {
  // TD_BENCH_ATTACH_MARKS=1: the page's td: marks and long tasks of each attach printed on Node's clock (a diagnosis: the page's own timeline beside the measure's).
  const marks = process.env.TD_BENCH_ATTACH_MARKS === '1';
  if (marks) await page.addInitScript(() => {
    const w = window as unknown as { __tdLong: Array<[number, number]> };
    w.__tdLong = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__tdLong.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: 'longtask', buffered: true });
    const f = w as unknown as { __tdFrames: number[] };
    f.__tdFrames = [];
    const tick = (): void => {
      f.__tdFrames.push(Math.round(performance.now()));
      if (performance.now() < 1000) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const m = await lightAttach(context, page, url, PANES, marker, paint);
  const f = (x: number) => x.toFixed(0);
  const timeline = marks ? await page.evaluate(() => {
    const by = new Map<string, number[]>();
    for (const e of performance.getEntriesByType('mark')) if (e.name.startsWith('td:')) by.set(e.name, [...(by.get(e.name) ?? []), e.startTime]);
    return { marks: [...by], long: (window as unknown as { __tdLong: Array<[number, number]> }).__tdLong, frames: (window as unknown as { __tdFrames: number[] }).__tdFrames };
  }) : undefined;
  await page.keyboard.press('Control+U');
  if (timeline) console.log(`[tmux bench] marks (ms from t0): ${timeline.marks.map(([k, v]) => `${k.slice(3)} ${v.length <= 10 ? v.map((t) => f(m.nav + t)).join(' ') : `${v.length}x ${f(m.nav + v[0]!)}..${f(m.nav + v[v.length - 1]!)}`}`).join('; ')}; long tasks ${timeline.long.map(([s, d]) => `${f(m.nav + s)}+${d}`).join(' ')}; frames ${timeline.frames.map((t) => f(m.nav + t)).join(' ')}`);
  return {
    all: m.at.all,
    focused: m.at.focusedLive,
    inView: m.at.inView,
    inViewCount: m.inViewCount,
    firstPaint: m.fcp,
    answering: Math.max(m.at.echo, m.at.texts),
    by: m.by,
    note: `navigation start +${m.nav.toFixed(1)} ms after t0 (by timeOrigin +${m.navByOrigin.toFixed(1)}; round trip ${m.rtt.toFixed(1)} ms); focused text ${f(m.at.focusedText)} (in the DOM ${f(m.dom.focusedText)}; reported by the ${m.reported.via === 'paint' ? 'paint observer' : 'frame'} at ${f(m.reported.check)}, to Node at ${f(m.reported.received)}), first contentful paint ${f(m.nav + m.fcp)}, keys ${f(m.keys[0])}-${f(m.keys[1])} (${m.keys[2]}), echo ${f(m.at.echo)} by ${m.by}, texts ${f(m.at.texts)} (in the DOM ${f(m.dom.texts)}), focused live ${f(m.at.focusedLive)}, in view ${f(m.at.inView)}, all ${f(m.at.all)}; reports reached Node ${m.lateMin.toFixed(1)}-${m.lateMax.toFixed(1)} ms after; the check: ${m.frames} frames, ${m.spent.toFixed(1)} ms`,
  };
}

/**
 * A check of the light measure: the pollers measure the attach and the light measure's script
 * watches the same page (the same marker), so each condition's two times come from one attach.
 * The light one must come no later than the poller's (it checks on every frame, and needs no
 * round trip to Node), and not sooner than the pollers could see it: by about a frame and the
 * poller's way back to Node. Its figures are the pollers'.
 */
async function attachChecked(context: import('playwright-core').BrowserContext, page: import('playwright-core').Page, url: string, marker: string): Promise<Attach> {
  const light = await lightMeasure(context, page, PANES, marker, false);
  const a = await attachPollers(page, url, marker);
  const m = await light.finish(a.t0);
  const d = (x: number, y: number) => `${(x - y).toFixed(0)}`;
  const lightAnswering = Math.max(m.at.echo, m.at.texts);
  return {
    ...a,
    note: `the light measure, less the pollers' figure, ms: panes in view live ${d(lightAnswering, a.answering)} (echo by ${m.by}, the pollers' by ${a.by}), focused live ${d(m.at.focusedLive, a.focused)}, in view ${d(m.at.inView, a.inView)}, all ${d(m.at.all, a.all)}; the focused pane's text in the DOM ${m.at.focusedText.toFixed(0)}, first contentful paint ${(m.nav + m.fcp).toFixed(0)}, the pollers' keys in the page ${m.keys[0].toFixed(0)}-${m.keys[1].toFixed(0)} (${m.keys[2]}); navigation start +${m.nav.toFixed(1)} ms after t0 (by timeOrigin +${m.navByOrigin.toFixed(1)}); the check: ${m.frames} frames, ${m.spent.toFixed(1)} ms`,
  };
}

/**
 * A process's time on a CPU and waiting for one, ms, over all its threads and its main thread
 * alone (Linux: /proc/PID/task/TID/schedstat, its first two fields in ns): whether the service
 * was short of a core during an attach (a thread ready to run but not given one), or busy.
 */
function sched(pid: number): { cpu: number; wait: number; mainCpu: number; mainWait: number } {
  const out = { cpu: 0, wait: 0, mainCpu: 0, mainWait: 0 };
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const [run = 0, wait = 0] = fs.readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      out.cpu += run / 1e6;
      out.wait += wait / 1e6;
      if (Number(tid) === pid) {
        out.mainCpu = run / 1e6;
        out.mainWait = wait / 1e6;
      }
    }
  } catch {
    // not Linux, or the process went
  }
  return out;
}

/** Ours: the service as serve starts it; the panes made and filled through a window without a page, then attached from a fresh browser context. */
async function ours(file: string, log: (l: string) => void): Promise<{ idle: Memory; full: Memory; by: Map<Measure, Attach[]>; first: { measure: Measure; ms: number } }> {
  const app = await startOurs();
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true });
  try {
    const service = app.servicePid!;
    // A diagnostic, not how the app runs: the service's autogroup (its session's share of the
    // CPU on Linux) given this nice value (lower: more; needs root), to see what the attach would
    // be with the service never short of a core. TD_BENCH_SERVICE_NICE=-10, say.
    if (process.env.TD_BENCH_SERVICE_NICE) fs.writeFileSync(`/proc/${service}/autogroup`, process.env.TD_BENCH_SERVICE_NICE);
    const win = await wsWindow(app.url);
    const hello = await win.request<{ panes: Array<{ id: string }> }>('app.hello', {});
    const ids = [hello.panes[0]!.id];
    await win.redraw(ids[0]!);
    await win.until(ids[0]!, /td\$ *$/, 30_000);
    await sleep(SETTLE_MS);
    const idle = memory(service);
    for (let i = 1; i < PANES; i++) ids.push((await win.request<{ id: string }>('pane.create', {})).id);
    for (const id of ids) await win.until(id, /td\$ *$/, 60_000);
    for (const id of ids) win.send('pane.input', { paneId: id, data: `cat ${file}; echo fill-done\r` });
    for (const id of ids) await win.until(id, /fill-done\r\n.*td\$ *$/s, 120_000);
    win.close();
    await sleep(SETTLE_MS);
    const full = memory(service);
    const by = new Map<Measure, Attach[]>(MEASURES.map((m) => [m, []]));
    let first: { measure: Measure; ms: number } | undefined;
    for (let i = 0; i < ATTACHES; i++) {
      // Both measures: one attach of each, which goes first alternating.
      for (const measure of i % 2 ? [...MEASURES].reverse() : MEASURES) {
        const context = await browser.newContext({ viewport: { width: 1920, height: 1080 }, deviceScaleFactor: 1 });
        try {
          const page = await context.newPage();
          const url = `${app.url}&test=1`;
          const marker = `mk${i}q${Math.floor(Math.random() * 1e5)}`;
          const s0 = sched(service);
          const a = measure === 'light' || measure === 'light-dom' ? await attachLight(context, page, url, marker, measure === 'light') : measure === 'pollers' ? await attachPollers(page, url, marker) : await attachChecked(context, page, url, marker);
          by.get(measure)!.push(a);
          first ??= { measure, ms: a.all };
          inViewCount = a.inViewCount;
          const s1 = sched(service);
          if (a.note) log(`${measure.padEnd(8)} attach ${i + 1}: ${a.note}; the service over the attach and its measure: on a CPU ${(s1.cpu - s0.cpu).toFixed(0)} ms (its main thread ${(s1.mainCpu - s0.mainCpu).toFixed(0)}), ready but waiting for one ${(s1.wait - s0.wait).toFixed(0)} ms (its main thread ${(s1.mainWait - s0.mainWait).toFixed(0)})`);
        } finally {
          await context.close();
        }
        await sleep(500);
      }
    }
    return { idle, full, by, first: first! };
  } finally {
    await browser.close();
    await app.stop();
  }
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { lines, log } = benchLog('tmux bench');
  ensureBuilt();
  const version = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (version.status !== 0) throw new Error('tmux is not installed: apt-get install tmux (Debian\'s), then run the bench again');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-tmux-'));
  try {
    const file = fillFile(dir);
    const peer = await tmux(dir, file, log);
    const us = await ours(file, log);
    const per = (s: Side | typeof us, k: keyof Memory) => (s.full[k] - s.idle[k]) / PANES;
    log(`${PANES} panes of ${LINES.toLocaleString('en')} lines (~70 characters) each, idle; ours beside ${version.stdout.trim()} (history-limit ${LINES}), one run:`);
    for (const k of ['rss', 'pss'] as const) {
      const a = per(us, k);
      const b = per(peer, k);
      log(`memory   ${k.toUpperCase()} per pane: ours ${mib(a)}, tmux ${mib(b)}, ratio ${(a / b).toFixed(2)} (goal <= 0.5): ${verdict(a <= 0.5 * b)}`);
      log(`         ${k.toUpperCase()} of the server with one empty pane: ours ${mib(us.idle[k])}, tmux ${mib(peer.idle[k])}; with the ${PANES} full panes: ours ${mib(us.full[k])}, tmux ${mib(peer.full[k])} (ratio ${(us.full[k] / peer.full[k]).toFixed(2)})`);
    }
    const b = median(peer.attach);
    const range = (xs: number[]) => `${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}; the first ${xs[0]!.toFixed(0)})`;
    for (const [measure, runs] of us.by) {
      const pick = (k: keyof Attach) => runs.map((r) => r[k] as number);
      const all = pick('all');
      const answering = pick('answering');
      const a = median(all);
      log(`attach   measured ${MEASURE_TEXT[measure]}; ${runs.length} attaches${us.by.size > 1 ? ` (one of each measure in turn, the first window's by the ${us.first.measure} measure)` : ''}:`);
      log(`         all ${PANES} panes drawn, median of ${runs.length}: ours (a fresh browser window until every pane is live) ${a.toFixed(0)} ms (${Math.min(...all).toFixed(0)}-${Math.max(...all).toFixed(0)}), tmux (attach-session in a pty until every prompt is drawn) ${b.toFixed(0)} ms (${Math.min(...peer.attach).toFixed(0)}-${Math.max(...peer.attach).toFixed(0)}), ratio ${(a / b).toFixed(1)} (goal: ours <= 1000 ms): ${verdict(a <= 1000)}`);
      log(`         ours, in the same attaches: every pane's screen painted (the door's first paint, the page's first contentful paint from navigation) ${range(pick('firstPaint'))}; the focused pane live and drawn by its terminal ${range(pick('focused'))}`);
      log(`         panes in view (${inViewCount} of ${PANES}), live (first paint answering: their text shown, a key typed into the focused one as soon as its text showed echoed on screen, by ${[...new Set(runs.map((r) => r.by))].join(' / ')}; on the first paint in ${runs.filter((r) => r.by === 'first paint').length} of ${runs.length}): ${range(answering)} (goal <= 300 ms: ${verdict(median(answering) <= 300)})`);
      log(`         panes in view (${inViewCount} of ${PANES}), drawn by their terminals (each terminal live, its snapshot drawn): ${range(pick('inView'))}; all ${PANES} terminals live: ${range(all)} (goal <= 1000 ms: ${verdict(a <= 1000)})`);
      log(`         each attach (panes in view live, echoed by; first contentful paint; all ${PANES} terminals live): ${runs.map((r) => `${r.answering.toFixed(0)} ${r.by}; ${r.firstPaint.toFixed(0)}; ${r.all.toFixed(0)}`).join(' | ')}`);
    }
    log(`         load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')}`);
    const a1 = us.first.ms;
    const b1 = peer.attach[0]!;
    log(`         the first attach (it resizes every pane from the size it was filled at; measured ${us.first.measure}): ours ${a1.toFixed(0)} ms, tmux ${b1.toFixed(0)} ms, ratio ${(a1 / b1).toFixed(1)} (goal: ours <= 1000 ms): ${verdict(a1 <= 1000)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { name: `tmux: memory and attach with ${PANES} panes of 10,000 lines (issue 38)`, lines };
}
