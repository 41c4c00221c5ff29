/**
 * The window (issue 2, "Benchmarks"), each figure beside a baseline measured in the same run:
 *  1. throughput: a large `cat` of a text file through the whole path (PTY → core →
 *     WebSocket → xterm in Chromium, with flow-control acks), divided by the same `cat`
 *     in a bare node-pty. Goal: at least 0.5.
 *  2. keystroke latency: keydown on xterm's textarea to the echo painted, p50 and p99
 *     over 200 keys into `cat`, with where the time goes (keydown → ws.send → echo
 *     message handled → parsed → painted), in a stock Chromium, in one with
 *     DeferRendererTasksAfterInput off, and with the key injected in the page; beside a
 *     bare node-pty echo. Goal: p99 under 2x the bare
 *     p99 plus one frame (16.7 ms).
 *  3. memory: peak VmRSS of the serve process during a 1 GB flood read by a window that
 *     acknowledges at once (a Node WebSocket client), against the same process idle with
 *     its one pane open. Goal: under 2x idle.
 * `TD_BENCH_MB` changes the cat's size (default 256), `TD_BENCH_FLOOD_MB` the flood's (1024).
 *
 * What the figures showed (headless Chromium with --disable-gpu, so xterm's DOM renderer):
 *  - throughput: watermarks of 100k/5k with 64 KB batches made a flood stop-and-wait;
 *    1M/500k (preload/contract.ts FLOW) lets the socket pipeline (~3x). The core's own
 *    headless screen costs about a third of the core's speed; WebGL in software
 *    (SwiftShader) draws at ~1.5 MB/s, which is why 'auto' picks the DOM renderer there.
 *  - keystrokes: the core's part is under a millisecond once an echo after a quiet spell
 *    skips the 5 ms batch (main/panes/pane.ts), and the page's own part (keydown → xterm
 *    → td-client → ws.send) is a fraction of one. In a stock Chromium the echo's WebSocket
 *    message still waits ~13 ms: Blink's DeferRendererTasksAfterInput holds network tasks
 *    (and timers, postMessage) after a discrete input event that requested a frame until
 *    that frame is produced, and every real keydown requests one (the browser does, even
 *    when the page swallows the event before xterm sees it). xterm then paints on the
 *    frame after: about two frames (~30 ms). What kept a frame requested at every keydown
 *    was ours: xterm's DOM renderer blinks the cursor with an endless CSS animation
 *    (renderer/terminal/session.ts now keeps the cursor steady), and this benchmark's own
 *    fallback requestAnimationFrame was still pending when it pressed the next key right
 *    after a paint (now cancelled, and keys come 20-37 ms apart, at no fixed point of the
 *    frame). Stock Chromium, blinking: p50 26 ms, p99 35; steady: p50 9, p99 28 (the echo
 *    back ~1.8 ms after the send, then the wait for the next frame, 0-16.7 ms). With the
 *    feature off (`--disable-features=DeferRendererTasksAfterInput`, which the Electron
 *    shell can set) or the key injected in the page (term.input: no input event, no
 *    deferral) the few keys still held back go too. The benchmark prints all three.
 *  - memory: the flood's growth is V8's young generation growing to its 64 MB semi-space
 *    limit (new space 16-32 → 128 MB), driven by the headless screen's allocations; old
 *    space stays small and nothing accumulates. `--max-semi-space-size=8` on the core's
 *    node held the flood to ~1.3x idle (the core runs with 4 now: CORE_V8_FLAGS).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import type { ServerFrame } from '../preload/contract.ts';
import { launchBrowser, openWindow, startServe } from '../e2e/harness.ts';
import { pageCat, pageFrames, pageKeys, type KeyMarks } from './window-page.ts';
import { rawCat, rawEcho, rss, textFile } from './window-raw.ts';
import { benchLog } from './log.ts';
import { CORE_V8_FLAGS } from '../main/service/client.ts';

const MB = 1024 * 1024;
const CAT_MB = Number(process.env.TD_BENCH_MB) || 256;
const PROBE_MB = 16;
const FLOOD_MB = Number(process.env.TD_BENCH_FLOOD_MB) || 1024;
const KEYS = 200;
const KEY_WARMUP = 20;
const FRAME_MS = 1000 / 60;
/** The full cat runs only when the probe says it ends within this long. */
const CAT_BUDGET_S = 90;

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const mbs = (bps: number) => `${(bps / MB).toFixed(1)} MB/s`;
const ms = (x: number) => `${x.toFixed(2)} ms`;
const mib = (b: number) => `${(b / MB).toFixed(0)} MB`;
const verdict = (ok: boolean) => (ok ? 'goal met' : 'GOAL NOT MET');

export async function run(): Promise<{ name: string; lines: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'td-bench-window-'));
  const { lines, log } = benchLog('window bench');
  try {
    await throughputAndKeys(dir, log);
    await memory(dir, log);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'window: throughput, keystroke latency, memory (issue 2)', lines };
}

async function throughputAndKeys(dir: string, log: (l: string) => void): Promise<void> {
  const probe = textFile(dir, 'probe.txt', PROBE_MB * MB);
  const big = textFile(dir, 'big.txt', CAT_MB * MB);
  await rawCat(probe); // warm the page cache and node-pty
  // Best of two, here and in the window: the machine is shared, and a slow run says more about the neighbours.
  const raws = [await rawCat(big), await rawCat(big)];
  const raw = raws[0]!.bytesPerSecond >= raws[1]!.bytesPerSecond ? raws[0]! : raws[1]!;

  const serve = await startServe();
  const browser = await launchBrowser();
  try {
    const coreBps = await coreCat(serve.port, serve.token, big);
    const win = await openWindow(browser, serve);
    const [id] = await win.paneIds();
    await win.waitForPrompt(id!);
    const renderer = await win.renderer(id!);
    const size = await win.size(id!);
    const probeS = await pageCat(win, id!, probe, 1, 600_000);
    const probeBps = (PROBE_MB * MB) / probeS;
    let bps = probeBps;
    let what = `${PROBE_MB} MB probe (the ${CAT_MB} MB file would take ~${((CAT_MB * MB) / probeBps).toFixed(0)} s)`;
    if ((CAT_MB * MB) / probeBps < CAT_BUDGET_S) {
      const runs: number[] = [];
      for (const n of [2, 3]) {
        await win.typeLine(id!, 'clear');
        runs.push(await pageCat(win, id!, big, n, CAT_BUDGET_S * 3000));
      }
      const s = Math.min(...runs);
      bps = (CAT_MB * MB) / s;
      what = `${CAT_MB} MB in ${s.toFixed(1)} s, best of ${runs.map((r) => r.toFixed(1)).join(' and ')} s`;
    }
    const ratio = bps / raw.bytesPerSecond;
    log(`throughput  window (${renderer} renderer, ${size?.cols}x${size?.rows}) ${mbs(bps)} [${what}]`);
    log(`            the core alone (serve with a Node WebSocket client that acks at once) ${mbs(coreBps)}, ratio ${(coreBps / raw.bytesPerSecond).toFixed(3)}`);
    log(`            bare node-pty cat ${mbs(raw.bytesPerSecond)} [${CAT_MB} MB in ${raw.seconds.toFixed(1)} s, best of two]`);
    log(`            ratio ${ratio.toFixed(3)} (goal >= 0.5): ${verdict(ratio >= 0.5)}`);

    // Keystroke latency into cat.
    await win.typeLine(id!, 'clear; cat');
    await win.waitFor(async () => !/td\$ *$/.test(await win.text(id!, 3)), 'cat to start');
    const frames = await pageFrames(win);
    const stock = await pageKeys(win, id!, KEYS, KEY_WARMUP);
    const injected = await pageKeys(win, id!, KEYS, KEY_WARMUP, true);
    const core = (await coreEcho(serve.port, serve.token, id!, KEYS)).sort((a, b) => a - b);
    await win.close();
    // The same keys in a Chromium without DeferRendererTasksAfterInput (what the Electron
    // shell can switch off; a person's own browser keeps it on).
    const browser2 = await launchBrowser({ disableFeatures: ['DeferRendererTasksAfterInput'] });
    let undeferred: KeyMarks[];
    try {
      const win2 = await openWindow(browser2, serve);
      const [id2] = await win2.paneIds();
      if (id2 !== id) {
        // A window of its own: start cat in its pane.
        await win2.waitForPrompt(id2!);
        await win2.typeLine(id2!, 'clear; cat');
        await win2.waitFor(async () => !/td\$ *$/.test(await win2.text(id2!, 3)), 'cat to start');
      }
      undeferred = await pageKeys(win2, id2!, KEYS, KEY_WARMUP);
      await win2.page.keyboard.press('Control+C');
      await win2.close();
    } finally {
      await browser2.close();
    }
    const bare = (await rawEcho(KEYS)).sort((a, b) => a - b);
    const goal = 2 * pct(bare, 99) + FRAME_MS;
    const sorted = (xs: number[]) => xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
    const both = (xs: number[]) => `p50 ${ms(pct(sorted(xs), 50))}  p99 ${ms(pct(sorted(xs), 99))}`;
    const report = (label: string, marks: KeyMarks[], from: string): void => {
      const painted = sorted(marks.map((m) => m.painted));
      log(`keystroke  ${label}  p50 ${ms(pct(painted, 50))}  p99 ${ms(pct(painted, 99))}  (${marks.length} keys, ${from} to echo painted)`);
      // xterm's onData, the renderer's pane.input and td-client's ws.send are one synchronous call.
      log(`             ${from} -> xterm onData -> ws.send of pane.input ${both(marks.map((m) => m.send))}`);
      const held = marks.filter((m) => m.recv - m.send > 5).length;
      log(`             ws.send -> echo message handled ${both(marks.map((m) => m.recv - m.send))} (${held} of ${marks.length} over 5 ms)`);
      log(`             echo handled -> parsed into xterm's buffer ${both(marks.map((m) => m.parsed - m.recv))}`);
      log(`             parsed -> painted (xterm's render in the next animation frame) ${both(marks.map((m) => m.painted - m.parsed))}`);
      log(`             p99 ${ms(pct(painted, 99))} vs goal 2x bare p99 + one frame = ${ms(goal)} (ratio ${(pct(painted, 99) / goal).toFixed(2)}): ${verdict(pct(painted, 99) < goal)}`);
    };
    report('window, stock Chromium (a browser tab on serve)', stock, 'keydown');
    report('window, Chromium with DeferRendererTasksAfterInput off', undeferred, 'keydown');
    report('window, key injected in the page (term.input, no input event)', injected, 'term.input');
    log(`           the core's part (a Node WebSocket client typing into the same pane): p50 ${ms(pct(core, 50))}  p99 ${ms(pct(core, 99))}`);
    log(`           bare node-pty echo  p50 ${ms(pct(bare, 50))}  p99 ${ms(pct(bare, 99))}`);
    log(`           (headless Chromium through Playwright, which passes --disable-background-timer-throttling, --disable-renderer-backgrounding and --disable-backgrounding-occluded-windows: the page is ${frames.focused ? 'focused' : 'NOT focused'} and ${frames.visibility}, frames every ${ms(frames.median)} (max ${ms(frames.max)}), as in a focused desktop window at 60 Hz)`);
    if (win.errors.length) log(`           page errors: ${win.errors.slice(0, 3).join(' | ')}`);
  } finally {
    await browser.close();
    await serve.close();
  }
}

/** Whether raw output ends at the test prompt (`td$ `), shell integration marks (OSC 133, OSC 7) aside. */
function endsAtPrompt(raw: string): boolean {
  return /td\$ *$/.test(raw.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, ''));
}

/** The same cat through serve and the core only, read by a Node WebSocket client that acks at once. */
async function coreCat(port: number, token: string, file: string): Promise<number> {
  let tail = '';
  const win = await fastWindow(port, token, (_id, _n, data) => {
    tail = (tail + data.slice(-200)).slice(-200);
  });
  try {
    const hello = (await win.request('app.hello', {})) as { panes: Array<{ id: string }> };
    const id = hello.panes[0]!.id;
    const until = async (re: RegExp | ((s: string) => boolean), timeoutMs: number): Promise<void> => {
      const end = Date.now() + timeoutMs;
      while (!(typeof re === 'function' ? re(tail) : re.test(tail))) {
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(re)} from the core; last output: ${JSON.stringify(tail.slice(-80))}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    };
    await until(endsAtPrompt, 20_000);
    const t0 = performance.now();
    await win.request('pane.input', { paneId: id, data: `cat ${file}; echo; echo core-done-$((6*7))\r` });
    await until(/core-done-42/, CAT_BUDGET_S * 3000);
    const bps = fs.statSync(file).size / ((performance.now() - t0) / 1000);
    await win.request('pane.input', { paneId: id, data: 'clear\r' });
    return bps;
  } finally {
    win.ws.close();
  }
}

/**
 * The round trip through serve and the core alone: `pane.input` of one key from a Node
 * WebSocket client to its echo in `pane.output`, keys 10 ms apart (typing speed, so the
 * echo is never batched with the one before).
 */
async function coreEcho(port: number, token: string, paneId: string, count: number): Promise<number[]> {
  let waiting: ((data: string) => void) | undefined;
  const win = await fastWindow(port, token, (id, _n, data) => {
    if (id === paneId && waiting) waiting(data);
  });
  const times: number[] = [];
  try {
    for (let i = 0; i < count + KEY_WARMUP; i++) {
      await new Promise((r) => setTimeout(r, 10));
      const ch = String.fromCharCode(97 + (i % 26));
      const t0 = performance.now();
      await new Promise<void>((resolve) => {
        waiting = (data) => {
          if (!data.includes(ch)) return;
          waiting = undefined;
          resolve();
        };
        win.ws.send(JSON.stringify({ t: 'req', id: 1_000_000 + i, name: 'pane.input', req: { paneId, data: ch } }));
      });
      if (i >= KEY_WARMUP) times.push(performance.now() - t0);
    }
  } finally {
    win.ws.close();
  }
  return times;
}

/** A window that reads over the WebSocket and acknowledges every output at once. */
async function fastWindow(port: number, token: string, onOutput: (paneId: string, chars: number, data: string) => void): Promise<{ ws: WebSocket; request(name: string, req: unknown): Promise<unknown> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { origin: `http://127.0.0.1:${port}` });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  ws.on('message', (raw) => {
    const f = JSON.parse(raw.toString()) as ServerFrame;
    if (f.t === 'res') {
      const p = pending.get(f.id);
      pending.delete(f.id);
      if (p) {
        if (f.ok) p.resolve(f.res);
        else p.reject(new Error(f.error));
      }
      return;
    }
    if (f.name === 'pane.output') {
      const { paneId, data } = f.payload as { paneId: string; data: string };
      onOutput(paneId, data.length, data);
      // Fire and forget, as the renderer does.
      ws.send(JSON.stringify({ t: 'req', id: nextId++, name: 'pane.ack', req: { paneId, chars: data.length } }));
    }
  });
  const request = (name: string, req: unknown): Promise<unknown> => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ t: 'req', id, name, req }));
  });
  return { ws, request };
}

interface FloodFigures {
  idle: number;
  peak: number;
  passed: number;
  seconds: number;
  /** V8's young generation (new space) and old space: size when idle and at most, from window-heap.ts. */
  heap?: { first: Record<string, number>; max: Record<string, number> };
}

/**
 * One serve process, one pane, idle then a FLOOD_MB flood read by a fast window;
 * `nodeOptions` are added to the process's NODE_OPTIONS.
 */
async function flood(dir: string, nodeOptions: string): Promise<FloodFigures> {
  const heapLog = path.join(dir, `heap-${Date.now()}.json`);
  const serve = await startServe({
    env: {
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${path.join(import.meta.dirname, 'window-heap.ts')} ${nodeOptions}`.trim(),
      TD_BENCH_HEAP_LOG: heapLog,
    },
  });
  const pid = serve.child.pid!;
  let tail = '';
  let chars = 0;
  const win = await fastWindow(serve.port, serve.token, (_id, n, data) => {
    chars += n;
    tail = (tail + data.slice(-200)).slice(-200);
  });
  try {
    const hello = (await win.request('app.hello', {})) as { panes: Array<{ id: string }> };
    const id = hello.panes[0]!.id;
    const until = async (cond: () => boolean, what: string, timeoutMs: number) => {
      const end = Date.now() + timeoutMs;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the pane's last output: ${JSON.stringify(tail.slice(-80))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    await until(() => endsAtPrompt(tail), 'the prompt', 20_000);
    // Idle: the process with its one pane open.
    const idleSamples: number[] = [];
    for (let i = 0; i < 40; i++) {
      idleSamples.push(rss(pid) ?? 0);
      await new Promise((r) => setTimeout(r, 25));
    }
    const idle = Math.max(...idleSamples);
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid) ?? 0);
    }, 25);
    const before = chars;
    const t0 = performance.now();
    await win.request('pane.input', { paneId: id, data: `head -c ${FLOOD_MB * MB} /dev/zero | tr '\\0' x; echo; echo flood-done-$((6*7))\r` });
    await until(() => /flood-done-42/.test(tail), `the ${FLOOD_MB} MB flood to end`, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rss(pid) ?? 0);
    let heap: FloodFigures['heap'];
    try {
      heap = JSON.parse(fs.readFileSync(heapLog, 'utf8')) as FloodFigures['heap'];
    } catch {
      heap = undefined;
    }
    return { idle, peak, passed: chars - before, seconds, heap };
  } finally {
    win.ws.close();
    await serve.close();
  }
}

async function memory(dir: string, log: (l: string) => void): Promise<void> {
  const f = await flood(dir, '');
  const young = (h: FloodFigures['heap']) => (h ? `V8's young generation ${mib(h.first.new_space ?? 0)} idle, ${mib(h.max.new_space ?? 0)} at most; old space ${mib(h.first.old_space ?? 0)} -> ${mib(h.max.old_space ?? 0)}` : 'heap figures missing');
  log(`memory  peak ${mib(f.peak)} during the ${FLOOD_MB} MB flood (${mib(f.passed)} reached the window in ${f.seconds.toFixed(1)} s, ${mbs(f.passed / f.seconds)})`);
  log(`        idle ${mib(f.idle)} (same process, one pane open)`);
  log(`        ratio ${(f.peak / f.idle).toFixed(2)} (goal < 2): ${verdict(f.peak < 2 * f.idle)}`);
  log(`        where it goes: ${young(f.heap)}`);
  // The same flood with the young generation capped as the core's is (CORE_V8_FLAGS): what that flag buys.
  const semi = CORE_V8_FLAGS.find((f) => f.startsWith('--max-semi-space-size=')) ?? '';
  const c = await flood(dir, semi);
  log(`        with node ${semi}: peak ${mib(c.peak)}, idle ${mib(c.idle)}, ratio ${(c.peak / c.idle).toFixed(2)} (${mbs(c.passed / c.seconds)}; ${young(c.heap)})`);
}
