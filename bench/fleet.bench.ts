/**
 * A quiet pane beside 16 floods, in a real browser (issue 38, item 2): one window (Chromium,
 * 1600 x 1000, the DOM renderer) with 17 panes, 16 running `yes` and one running `cat`; keys
 * typed into the quiet pane with the real keyboard, each from its keydown (in the page) until
 * the character is in xterm's buffer and the frame after it has begun (drawn), p50 and p99,
 * beside the same keys with the 16 panes idle. Goal: p99 under the floods <= 50 ms. Then
 * Ctrl-C typed into each flood in turn, each from its keydown until its prompt is drawn
 * (goal: every prompt back <= 300 ms); then, the floods started again, Ctrl-C sent to all 16
 * at once, from the send until each prompt is drawn.
 * The peer, in the same run after ours (bench/fleet-tmux.ts): Debian's tmux, a server of its
 * own (own socket, no configuration, history-limit 10,000 as our terminals'), one window of
 * the same 17 panes (tiled; login bash with the same dotfiles and prompt), a `tmux attach`
 * client in a real PTY sized as our window is in our cells (1600 x 1000 px divided by our
 * terminal's cell: the same area in cells, though tmux's tiled panes are shaped otherwise
 * than our layout's), its output parsed by @xterm/headless in this process; the same keys,
 * the same Ctrl-Cs (into each in turn: select-pane, then \x03 written to the client; to all
 * at once: one send-keys command for the 16, as ours comes from a window-less client), each
 * printed beside ours with the ratio and the goal. What differs: ours runs from a page's
 * keydown to the frame after the character is in xterm.js's buffer (input, the page's
 * socket, parse, render, one frame); tmux's from a write to the client's PTY to the
 * character parsed into a headless terminal (no renderer, no frame: a real terminal's
 * drawing would add to it). tmux's server is killed in a finally, and its shells and their
 * commands checked gone.
 * `TD_BENCH_FLEET_KEYS` (60) changes the number of keys.
 */
import os from 'node:os';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { cpuSeconds, ensureBuilt, startOurs } from './peer-apps.ts';
import { benchLog } from './log.ts';
import { wsWindow } from './ws-window.ts';
import { promptsDrawn, watchPrompts } from './fleet-page.ts';
import { tmuxFleet } from './fleet-tmux.ts';
import type { Page } from 'playwright-core';

const KEYS = Number(process.env.TD_BENCH_FLEET_KEYS) || 60;
const FLOODS = 16;
const sleep = (n: number) => new Promise((r) => setTimeout(r, n));
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** ms from each key's keydown to its echo drawn in the pane's terminal. */
async function echoes(page: Page, paneId: string, count: number): Promise<number[]> {
  await page.locator(`[data-pane-id="${paneId}"] .xterm-helper-textarea`).focus();
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const ch = String.fromCharCode(97 + (i % 26));
    // Armed in the page before the key: the keydown's time, then the first frame after the buffer's cursor row holds it.
    await page.evaluate(([id, want]) => {
      const w = window as unknown as { __fleet?: Promise<number>; __td: { term(id: string): { onWriteParsed(f: () => void): { dispose(): void }; buffer: { active: { cursorY: number; baseY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined } } } } };
      const term = w.__td.term(id);
      w.__fleet = new Promise<number>((resolve) => {
        let t0 = 0;
        const onKey = () => {
          t0 = performance.now();
        };
        document.addEventListener('keydown', onKey, { capture: true, once: true });
        const sub = term.onWriteParsed(() => {
          const b = term.buffer.active;
          const row = b.getLine(b.baseY + b.cursorY)?.translateToString(true) ?? '';
          if (!row.endsWith(want)) return;
          sub.dispose();
          requestAnimationFrame(() => resolve(performance.now() - t0));
        });
      });
    }, [paneId, ch] as const);
    await page.keyboard.press(ch);
    times.push(await page.evaluate(() => (window as unknown as { __fleet: Promise<number> }).__fleet));
    await sleep(20 + (i % 7) * 3);
  }
  return times;
}

/**
 * Ctrl-C typed into each flooding pane in turn with the real keyboard: ms from each pane's
 * keydown until its prompt (a `$` ending its cursor row, or the rows just above it when the
 * prompt wraps; `yes` writes none) is in its buffer and the next frame has begun; and from
 * the first keydown to the last prompt.
 */
async function ctrlC(page: Page, ids: string[]): Promise<{ each: number[]; span: number }> {
  await page.evaluate((panes) => {
    type Term = { onWriteParsed(f: () => void): { dispose(): void }; buffer: { active: { cursorY: number; baseY: number; getLine(y: number): { translateToString(t?: boolean): string } | undefined } } };
    const w = window as unknown as { __stops?: Promise<Array<[number, number]>>; __td: { term(id: string): Term } };
    const keyAt = new Map<string, number>();
    const onKey = (e: KeyboardEvent) => {
      const id = (document.activeElement?.closest('[data-pane-id]') as HTMLElement | null)?.dataset.paneId;
      if (id && e.ctrlKey && e.key.toLowerCase() === 'c' && !keyAt.has(id)) keyAt.set(id, performance.now());
    };
    document.addEventListener('keydown', onKey, { capture: true });
    w.__stops = Promise.all(panes.map((id) => new Promise<[number, number]>((resolve) => {
      const term = w.__td.term(id);
      const sub = term.onWriteParsed(() => {
        if (!keyAt.has(id)) return;
        const b = term.buffer.active;
        const y = b.baseY + b.cursorY;
        const rows = [y - 2, y - 1, y].map((r) => (r >= 0 ? b.getLine(r)?.translateToString(true) ?? '' : '')).join('').trimEnd();
        if (!rows.endsWith('$')) return;
        sub.dispose();
        requestAnimationFrame(() => resolve([keyAt.get(id)!, performance.now()]));
      });
    }))).finally(() => document.removeEventListener('keydown', onKey, { capture: true }));
  }, ids);
  for (const id of ids) {
    await page.locator(`[data-pane-id="${id}"] .xterm-helper-textarea`).focus();
    await page.keyboard.press('Control+C');
  }
  const stops = await Promise.race([
    page.evaluate(() => (window as unknown as { __stops: Promise<Array<[number, number]>> }).__stops),
    sleep(30_000).then(() => Promise.reject(new Error('not every flood showed its prompt within 30 s of its Ctrl-C'))),
  ]);
  return { each: stops.map(([k, p]) => p - k), span: Math.max(...stops.map(([, p]) => p)) - Math.min(...stops.map(([k]) => k)) };
}

/**
 * Ctrl-C to all 16 floods at once: sent together by a client that is not a window (it gets
 * no output), ms from the send until each pane's prompt is drawn in the page (the page's and
 * this process's clocks are both the system's: performance.timeOrigin + now()).
 */
async function ctrlCAtOnce(page: Page, url: string, ids: string[]): Promise<number[]> {
  await watchPrompts(page, ids);
  const keys = await wsWindow(url);
  const sentAt = performance.timeOrigin + performance.now();
  for (const id of ids) keys.send('pane.input', { paneId: id, data: '\x03' });
  try {
    const drawn = await Promise.race([
      promptsDrawn(page),
      sleep(30_000).then(() => Promise.reject(new Error('not every flood showed its prompt within 30 s of the Ctrl-C sent to all'))),
    ]);
    return drawn.map((t) => t - sentAt);
  } finally {
    keys.close();
  }
}

export async function run(): Promise<{ name: string; lines: string[] }> {
  const { lines, log } = benchLog('fleet bench');
  ensureBuilt();
  const app = await startOurs();
  let ours: { calm: number[]; loaded: number[]; redrawRate: number; serviceCpu: number; stops: { each: number[]; span: number }; together: number[] } | undefined;
  /** Our window in our cells (1600 x 1000 px at our font), and our panes' sizes. */
  let cells = { cols: 0, rows: 0, quiet: '', floods: '' };
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, '--disable-3d-apis'], headless: true });
  try {
    const win = await wsWindow(app.url);
    const hello = await win.request<{ panes: Array<{ id: string }> }>('app.hello', {});
    const quiet = hello.panes[0]!.id;
    const floods: string[] = [];
    for (let i = 0; i < FLOODS; i++) floods.push((await win.request<{ id: string }>('pane.create', {})).id);
    win.close();
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${app.url}&test=1`);
    await page.waitForFunction((n) => {
      const td = (window as unknown as { __td?: { paneIds(): string[]; live(id: string): boolean; text(id: string): string | null } }).__td;
      const shown = td?.paneIds() ?? [];
      // (Most of the 17 panes are narrow: their prompt wraps.)
      return shown.length >= n && shown.every((id) => td!.live(id) && /\$ *$/.test(td!.text(id) ?? ''));
    }, FLOODS + 1, { timeout: 120_000 }).catch(async (e: Error) => {
      const seen = await page.evaluate(() => {
        const td = (window as unknown as { __td?: { paneIds(): string[]; live(id: string): boolean; text(id: string): string | null } }).__td;
        return (td?.paneIds() ?? []).map((id) => `${td!.live(id) ? 'live' : 'not live'}: ${JSON.stringify((td!.text(id) ?? '').slice(-30))}`);
      });
      throw new Error(`${e.message}: the window shows ${seen.length} panes: ${seen.join('; ')}`);
    });
    const type = async (id: string, line: string) => {
      await page.locator(`[data-pane-id="${id}"] .xterm-helper-textarea`).focus();
      await page.keyboard.type(line);
      await page.keyboard.press('Enter');
    };
    // The size tmux's client is given: the window's 1600 x 1000 px in our cells.
    const sized = await page.evaluate(([q, ids]) => {
      const td = (window as unknown as { __td: { term(id: string): { cols: number; rows: number } } }).__td;
      const size = (id: string) => `${td.term(id).cols} x ${td.term(id).rows}`;
      const term = td.term(q);
      const r = document.querySelector(`[data-pane-id="${CSS.escape(q)}"] .xterm-screen`)!.getBoundingClientRect();
      return { w: r.width / term.cols, h: r.height / term.rows, quiet: size(q), floods: [...new Set(ids.map(size))].join(', ') };
    }, [quiet, floods] as const);
    cells = { cols: Math.floor(1600 / sized.w), rows: Math.floor(1000 / sized.h), quiet: sized.quiet, floods: sized.floods };
    await type(quiet, 'cat');
    await sleep(500);
    const calm = await echoes(page, quiet, KEYS);
    for (const id of floods) await type(id, 'yes');
    await sleep(3000);
    // Redraws of the flooding panes (left behind, then drawn from a snapshot) while the keys were timed.
    const redraws = () => page.evaluate((ids) => ids.reduce((n, id) => n + ((window as unknown as { __td: { stats(id: string): { redraws: number } | null } }).__td.stats(id)?.redraws ?? 0), 0), floods);
    const redraws0 = await redraws();
    const cpu0 = cpuSeconds(app.servicePid ?? 0) * 1000;
    const t0 = performance.now();
    const loaded = await echoes(page, quiet, KEYS);
    const serviceCpu = (cpuSeconds(app.servicePid ?? 0) * 1000 - cpu0) / (performance.now() - t0);
    const redrawRate = (await redraws() - redraws0) / ((performance.now() - t0) / 1000);
    const stops = await ctrlC(page, floods);
    // Again, the Ctrl-C to all 16 at once.
    for (const id of floods) await type(id, 'yes');
    await sleep(3000);
    const together = await ctrlCAtOnce(page, app.url, floods);
    ours = { calm, loaded, redrawRate, serviceCpu, stops, together };
  } finally {
    await browser.close();
    await app.stop();
  }
  // The peer, in the same run: tmux in a PTY the size of our window in our cells.
  const peer = await tmuxFleet({ cols: cells.cols, rows: cells.rows, keys: KEYS, floods: FLOODS, history: 10_000, log });
  const us = ours!;
  const f = (x: number) => x.toFixed(0);
  const ratio = (a: number, b: number) => (a / b).toFixed(1);
  const verdict = (ok: boolean) => (ok ? 'goal met' : 'GOAL NOT MET');
  const slowest = (xs: number[]) => Math.max(...xs);
  log(`ours beside ${peer.version} (its own server, no configuration, history-limit 10000, 17 panes tiled, a client ${peer.cols} x ${peer.rows}: our 1600 x 1000 px window in our cells), one run, ${KEYS} keys each time. Ours: a page's keydown until the frame after the character is in xterm.js's buffer (Chromium, the DOM renderer); tmux: a write to \`tmux attach\`'s PTY until the character is in the client's screen as @xterm/headless parsed it in the bench (no renderer, no frame). Panes: ours the quiet ${cells.quiet}, the floods ${cells.floods}; tmux's the quiet ${peer.quietSize}, the floods ${peer.floodSize}`);
  log(`echo     a quiet pane's keys, 16 panes idle: p50 ours ${f(pct(us.calm, 50))} ms, tmux ${f(pct(peer.calm, 50))} ms (ratio ${ratio(pct(us.calm, 50), pct(peer.calm, 50))}); p99 ours ${f(pct(us.calm, 99))} ms, tmux ${f(pct(peer.calm, 99))} ms (ratio ${ratio(pct(us.calm, 99), pct(peer.calm, 99))})`);
  log(`echo     a quiet pane's keys beside 16 floods: p50 ours ${f(pct(us.loaded, 50))} ms, tmux ${f(pct(peer.loaded, 50))} ms (ratio ${ratio(pct(us.loaded, 50), pct(peer.loaded, 50))}); p99 ours ${f(pct(us.loaded, 99))} ms, tmux ${f(pct(peer.loaded, 99))} ms (ratio ${ratio(pct(us.loaded, 99), pct(peer.loaded, 99))}) (goal ours p99 <= 50 ms): ${verdict(pct(us.loaded, 99) <= 50)}; our flooding panes redrew ${us.redrawRate.toFixed(1)} times a second meanwhile, tmux's client received ${(peer.clientRate / 1e6).toFixed(2)} M characters a second; the server's CPU meanwhile (a share of one core) ours (the service) ${(us.serviceCpu * 100).toFixed(0)}%, tmux ${(peer.serverCpu * 100).toFixed(0)}% (the bench's process, parsing tmux's client's output, ${(peer.benchCpu * 100).toFixed(0)}%)`);
  log(`ctrl-c   Ctrl-C typed into each of the 16 floods in turn (ours its keydown, tmux select-pane then \\x03 written, to its prompt drawn): p50 ours ${f(pct(us.stops.each, 50))} ms, tmux ${f(pct(peer.stops.each, 50))} ms (ratio ${ratio(pct(us.stops.each, 50), pct(peer.stops.each, 50))}); slowest ours ${f(slowest(us.stops.each))} ms, tmux ${f(slowest(peer.stops.each))} ms (ratio ${ratio(slowest(us.stops.each), slowest(peer.stops.each))}) (goal every prompt <= 300 ms): ${verdict(slowest(us.stops.each) <= 300)}; the first key to the last prompt ours ${f(us.stops.span)} ms, tmux ${f(peer.stops.span)} ms`);
  log(`ctrl-c   Ctrl-C sent to the 16 floods at once (ours pane.input to each from a window-less client, tmux one send-keys command for the 16, from its spawn; to each prompt drawn): p50 ours ${f(pct(us.together, 50))} ms, tmux ${f(pct(peer.together, 50))} ms (ratio ${ratio(pct(us.together, 50), pct(peer.together, 50))}); slowest ours ${f(slowest(us.together))} ms, tmux ${f(slowest(peer.together))} ms (ratio ${ratio(slowest(us.together), slowest(peer.together))}) (goal every prompt <= 300 ms): ${verdict(slowest(us.together) <= 300)}`);
  log(`         load average at the end: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')}`);
  return { name: 'fleet: a quiet pane\'s echo beside 16 floods in a real browser, beside tmux (issue 38)', lines };
}
