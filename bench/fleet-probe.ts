/**
 * Where the time goes with 16 floods in a page (issue 38): the fleet bench's window, the
 * floods running for 6 s with nobody typing: the page's long tasks and frame gaps, what its
 * flooding terminals were written and redrew, the CPU of the service and of the 16 `yes`.
 * Run: node --experimental-strip-types bench/fleet-probe.ts
 * TD_PROBE_HIDDEN=1: the page hidden for the 6 s (`visibilityState` 'hidden', as for a minimized
 * window: its panes out of view, docs/spec/window.md), to set beside a run with it shown;
 * TD_PROBE_FLOODS=1 for one flood beside the quiet pane instead of 16 (streamed to the page when
 * shown: no other flood to take turns with, so not in the background).
 * TD_PROBE_PROFILE: the page's CPU profile; TD_PROBE_CTRLC=turn|all: a timeline of each Ctrl-C;
 * TD_PROBE_ECHO=n: where each key's echo went.
 */
const FLOODS = Number(process.env.TD_PROBE_FLOODS ?? 16);
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { cpuSeconds, ensureBuilt, startOurs } from './peer-apps.ts';
import { wsWindow } from './ws-window.ts';
import { watchPrompts } from './fleet-page.ts';
import type { Page } from 'playwright-core';

const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
const yesCpu = () => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).reduce((a, d) => {
  try {
    return fs.readFileSync(`/proc/${d}/comm`, 'utf8').trim() === 'yes' ? a + cpuSeconds(Number(d)) : a;
  } catch {
    return a;
  }
}, 0);

/**
 * TD_PROBE_ECHO=n: n keys typed into the quiet pane (running `cat`) beside the floods, each
 * split into where its time went in the page: keydown to the input sent, the send to its echo's
 * frame received, that to xterm's parse, that to the next frame; with the page's long tasks
 * that overlapped it. The slowest keys are printed.
 */
async function echoTimeline(page: Page, first: string, n: number): Promise<void> {
  const rows: string[] = [];
  const all: number[][] = [];
  await page.evaluate(() => {
    const w = window as unknown as { __longs: Array<[number, number]> };
    w.__longs = [];
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) w.__longs.push([performance.timeOrigin + e.startTime, e.duration]);
    }).observe({ type: 'longtask' });
  });
  for (let i = 0; i < n; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    await page.evaluate(([id, want]) => {
      type Term = { onWriteParsed(f: () => void): { dispose(): void }; buffer: { active: { cursorY: number; baseY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined } } };
      const w = window as unknown as { __log: Array<[number, string, string, string]>; __key?: Promise<number[]>; __td: { term(id: string): Term } };
      w.__log.length = 0;
      const term = w.__td.term(id);
      const now = () => performance.timeOrigin + performance.now();
      w.__key = new Promise<number[]>((resolve) => {
        let t0 = 0;
        document.addEventListener('keydown', () => { t0 = now(); }, { capture: true, once: true });
        const sub = term.onWriteParsed(() => {
          const b = term.buffer.active;
          if (!(b.getLine(b.baseY + b.cursorY)?.translateToString(true) ?? '').endsWith(want)) return;
          sub.dispose();
          const parsed = now();
          requestAnimationFrame(() => resolve([t0, parsed, now()]));
        });
      });
    }, [first, ch] as const);
    await page.keyboard.press(ch);
    const [t0, parsed, drawn] = await page.evaluate(() => (window as unknown as { __key: Promise<number[]> }).__key);
    const log = await page.evaluate(() => (window as unknown as { __log: Array<[number, string, string, string]> }).__log);
    const sent = log.find((e) => e[1] === 'input' && e[2] === first)?.[0] ?? NaN;
    const recv = log.find((e) => e[1] === 'out' && e[2] === first)?.[0] ?? NaN;
    const longs = await page.evaluate(([a, b]) => (window as unknown as { __longs: Array<[number, number]> }).__longs.filter(([s, d]) => s < b && s + d > a), [t0!, drawn!]);
    all.push([drawn! - t0!, sent - t0!, recv - sent, parsed! - recv, drawn! - parsed!]);
    rows.push(`key ${i}: total ${(drawn! - t0!).toFixed(0)} = to send ${(sent - t0!).toFixed(0)}, round trip ${(recv - sent).toFixed(0)}, to parsed ${(parsed! - recv).toFixed(0)}, to frame ${(drawn! - parsed!).toFixed(0)}; long tasks ${longs.map(([s, d]) => `${(s - t0!).toFixed(0)}+${d.toFixed(0)}`).join(' ') || '-'}; others' frames ${log.filter((e) => e[1] === 'out' && e[2] !== first).length}, stale ${log.filter((e) => e[1] === 'stale').length}, snaps ${log.filter((e) => e[1] === 'snap').length}`);
    await sleep(20 + (i % 7) * 3);
  }
  const order = all.map((r, i) => [r[0]!, i] as const).sort((a, b) => b[0] - a[0]);
  const med = (k: number) => [...all.map((r) => r[k]!)].sort((a, b) => a - b)[Math.floor(all.length / 2)]!.toFixed(0);
  console.log(`echo medians: total ${med(0)}, to send ${med(1)}, round trip ${med(2)}, to parsed ${med(3)}, to frame ${med(4)}`);
  for (const [, i] of order.slice(0, 8)) console.log(rows[i]);
}

ensureBuilt();
const app = await startOurs();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true });
try {
  const win = await wsWindow(app.url);
  await win.request('app.hello', {});
  const floods: string[] = [];
  for (let i = 0; i < FLOODS; i++) floods.push((await win.request<{ id: string }>('pane.create', {})).id);
  win.close();
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 })).newPage();
  // Every frame in and out of the window's socket, with its time (TD_PROBE_CTRLC's timeline).
  await page.addInitScript(() => {
    const log: Array<[number, string, string, string]> = [];
    (window as unknown as { __log: typeof log }).__log = log;
    const Orig = window.WebSocket;
    const asked = new Map<number, string>();
    class Logged extends Orig {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        this.addEventListener('message', (e: MessageEvent) => {
          const t = performance.timeOrigin + performance.now();
          if (typeof e.data !== 'string') {
            const b = new Uint8Array(e.data as ArrayBuffer);
            let id = '';
            for (let i = 0; i < b[1]!; i++) id += String.fromCharCode(b[2 + i]!);
            log.push([t, 'out', id, String(b.length)]);
            return;
          }
          const f = JSON.parse(e.data) as { t: string; name?: string; id?: number; payload?: { paneId?: string; history?: string }; res?: { data?: string } };
          if (f.t === 'evt' && f.name === 'pane.stale') log.push([t, 'stale', f.payload!.paneId!, f.payload!.history ?? '']);
          if (f.t === 'res' && asked.has(f.id!)) log.push([t, 'snap', asked.get(f.id!)!, String(f.res?.data?.length)]);
        });
      }
      override send(d: Parameters<WebSocket['send']>[0]) {
        if (typeof d === 'string' && d.includes('"pane.input"')) log.push([performance.timeOrigin + performance.now(), 'input', (JSON.parse(d) as { req: { paneId: string } }).req.paneId, '']);
        if (typeof d === 'string' && d.includes('"pane.snapshot"')) {
          const f = JSON.parse(d) as { id: number; req: { paneId: string } };
          asked.set(f.id, f.req.paneId);
          log.push([performance.timeOrigin + performance.now(), 'ask', f.req.paneId, '']);
        }
        super.send(d);
      }
    }
    window.WebSocket = Logged as typeof WebSocket;
  });
  await page.goto(`${app.url}&test=1`);
  await page.waitForFunction((n) => {
    const td = (window as unknown as { __td?: { paneIds(): string[]; live(id: string): boolean; text(id: string): string | null } }).__td;
    const shown = td?.paneIds() ?? [];
    return shown.length >= n && shown.every((id) => td!.live(id) && /\$ *$/.test(td!.text(id) ?? ''));
  }, FLOODS + 1, { timeout: 120_000 });
  const first = (await page.evaluate(() => (window as unknown as { __td: { paneIds(): string[] } }).__td.paneIds()))[0]!;
  if (process.env.TD_PROBE_ECHO) {
    await page.locator(`[data-pane-id="${first}"] .xterm-helper-textarea`).focus();
    await page.keyboard.type('cat');
    await page.keyboard.press('Enter');
  }
  for (const id of floods) {
    await page.locator(`[data-pane-id="${id}"] .xterm-helper-textarea`).focus();
    await page.keyboard.type('yes');
    await page.keyboard.press('Enter');
  }
  await page.locator(`[data-pane-id="${first}"] .xterm-helper-textarea`).focus();
  await sleep(3000);
  const stats = () => page.evaluate((ids) => ids.map((id) => (window as unknown as { __td: { stats(id: string): { written: number; redraws: number; syncs: number; snapshotChars: number } } }).__td.stats(id)), floods);
  await page.evaluate(() => {
    const w = window as unknown as { __probe: { long: number; longCount: number; maxGap: number; frames: number } };
    w.__probe = { long: 0, longCount: 0, maxGap: 0, frames: 0 };
    new PerformanceObserver((l) => {
      for (const e of l.getEntries()) {
        w.__probe.long += e.duration;
        w.__probe.longCount++;
      }
    }).observe({ type: 'longtask' });
    let last = performance.now();
    const tick = () => {
      const t = performance.now();
      w.__probe.maxGap = Math.max(w.__probe.maxGap, t - last);
      w.__probe.frames++;
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  if (process.env.TD_PROBE_HIDDEN === '1') {
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange'));
    });
    await sleep(1000);
  }
  // The page's main-thread time (CDP Performance.getMetrics' TaskDuration) and the output frames it received.
  const metrics = await page.context().newCDPSession(page);
  await metrics.send('Performance.enable');
  const taskSeconds = async () => ((await metrics.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0);
  const outBytes = () => page.evaluate(() => (window as unknown as { __log: Array<[number, string, string, string]> }).__log.reduce((a, e) => (e[1] === 'out' ? a + Number(e[3]) : a), 0));
  const task0 = await taskSeconds();
  const out0 = await outBytes();
  const s0 = await stats();
  const svc0 = cpuSeconds(app.servicePid!);
  const y0 = yesCpu();
  const t0 = performance.now();
  const cdp = process.env.TD_PROBE_PROFILE ? await page.context().newCDPSession(page) : undefined;
  if (cdp) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  await sleep(6000);
  if (cdp) {
    const { profile } = await cdp.send('Profiler.stop') as { profile: { nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>; samples: number[]; timeDeltas: number[] } };
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const selfBy = new Map<string, number>();
    const totalBy = new Map<string, number>();
    const name = (id: number) => {
      const f = byId.get(id)!.callFrame;
      return `${f.functionName || '(anon)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    };
    for (const [id, t] of self) {
      selfBy.set(name(id), (selfBy.get(name(id)) ?? 0) + t);
      const seen = new Set<string>();
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        const k = name(at);
        if (seen.has(k)) continue;
        seen.add(k);
        totalBy.set(k, (totalBy.get(k) ?? 0) + t);
      }
    }
    const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, t]) => `  ${(t / 1000).toFixed(0).padStart(6)} ms  ${k}`).join('\n');
    console.log(`self:\n${top(selfBy)}\ntotal:\n${top(totalBy)}`);
  }
  const s1 = await stats();
  const pageTask = (await taskSeconds()) - task0;
  const socketBytes = (await outBytes()) - out0;
  if (process.env.TD_PROBE_ECHO) await echoTimeline(page, first, Number(process.env.TD_PROBE_ECHO) || 60);
  if (process.env.TD_PROBE_CTRLC) {
    await page.evaluate(() => {
      const w = window as unknown as { __log: Array<[number, string, string, string]>; __onPrompt?: (id: string, at: number) => void };
      w.__log.length = 0;
      w.__onPrompt = (id, at) => w.__log.push([at, 'PROMPT', id, '']);
    });
    await watchPrompts(page, floods);
    const sentAt = performance.timeOrigin + performance.now();
    if (process.env.TD_PROBE_CTRLC === 'turn') {
      for (const id of floods) {
        await page.locator(`[data-pane-id="${id}"] .xterm-helper-textarea`).focus();
        await page.evaluate((i) => (window as unknown as { __log: Array<[number, string, string, string]> }).__log.push([performance.timeOrigin + performance.now(), 'FOCUSED', i, '']), id);
        await page.keyboard.press('Control+C');
        await page.evaluate((i) => (window as unknown as { __log: Array<[number, string, string, string]> }).__log.push([performance.timeOrigin + performance.now(), 'KEY', i, '']), id);
      }
    } else {
      const keys = await wsWindow(app.url);
      for (const id of floods) keys.send('pane.input', { paneId: id, data: '\x03' });
      await sleep(4000);
      keys.close();
    }
    await sleep(2000);
    const log = await page.evaluate(() => (window as unknown as { __log: Array<[number, string, string, string]> }).__log);
    for (const [k, id] of floods.entries()) {
      const mine = log.filter((e) => e[2] === id);
      const outs = mine.filter((e) => e[1] === 'out');
      console.log(`pane ${k}: ${mine.filter((e) => e[1] !== 'out').map((e) => `${e[1]}${e[3] ? `(${e[3]})` : ''}@${(e[0] - sentAt).toFixed(0)}`).join(' ')}; output frames ${outs.length} (${outs.reduce((a, e) => a + Number(e[3]), 0)} B) first @${outs[0] ? (outs[0][0] - sentAt).toFixed(0) : '-'}`);
    }
  }
  const secs = (performance.now() - t0) / 1000;
  const svc = (cpuSeconds(app.servicePid!) - svc0) / secs;
  const yes = (yesCpu() - y0) / secs;
  const probe = await page.evaluate(() => (window as unknown as { __probe: { long: number; longCount: number; maxGap: number; frames: number } }).__probe);
  const written = s1.reduce((a, s, i) => a + s.written - s0[i]!.written, 0) / secs;
  const redraws = s1.reduce((a, s, i) => a + s.syncs - s0[i]!.syncs, 0) / secs;
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`last snapshots (chars): ${s1.map((x) => x.snapshotChars).join(' ')}`);
  console.log(`load ${load}; page: long tasks ${(probe.long / secs).toFixed(0)} ms/s (${probe.longCount}), ${(probe.frames / secs).toFixed(0)} frames/s, max gap ${probe.maxGap.toFixed(0)} ms; main thread ${(pageTask / secs * 1000).toFixed(0)} ms/s${process.env.TD_PROBE_HIDDEN === '1' ? ' (hidden)' : ''}; output frames ${(socketBytes / secs / 1e3).toFixed(1)} kB/s; floods written ${(written / 1e6).toFixed(2)} MB/s, snapshots asked ${redraws.toFixed(1)}/s; service ${(svc * 100).toFixed(0)}% of a core, the ${FLOODS} yes ${(yes * 100).toFixed(0)}%`);
} finally {
  await browser.close();
  await app.stop();
}
