/**
 * What xterm 6's scrollbar costs a flood's lines, with and without `syncScrollbarOncePerTask`
 * (renderer/terminal/scroll-sync.ts; docs/spec/performance.md, "The scrollbar is synced once a
 * task"): in Chromium, a fresh terminal (80 x 20, 10,000 lines of history) written 14,000 lines
 * of `y` (what a `yes` leaves in its PTY after Ctrl-C, in lines) or of 70 characters, timed from
 * the write until xterm's callback (parsed), in turns: xterm as it comes, then with the sync once
 * a task. Not part of `npm run bench`: `node bench/xterm-scroll.ts` (TD_BENCH_XS_ROUNDS, default 6).
 */
import fs from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../e2e/harness.ts';
import { ROOT } from './peer-apps.ts';
import { median } from './log.ts';

const ROUNDS = Math.max(1, Number(process.env.TD_BENCH_XS_ROUNDS) || 6);
// The installer as the renderer has it, made a script the page can run.
const installer = stripTypeScriptTypes(fs.readFileSync(path.join(ROOT, 'renderer', 'terminal', 'scroll-sync.ts'), 'utf8'))
  .replace(/^import type .*$/m, '')
  .replace('export function syncScrollbarOncePerTask', 'globalThis.syncScrollbarOncePerTask = function syncScrollbarOncePerTask');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
try {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  await page.setContent('<div id="host" style="width:600px;height:300px"></div>');
  await page.addStyleTag({ path: path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'css', 'xterm.css') });
  await page.addScriptTag({ path: path.join(ROOT, 'node_modules', '@xterm', 'xterm', 'lib', 'xterm.js') });
  await page.addScriptTag({ content: installer });
  const got = await page.evaluate(async (rounds) => {
    type Term = { open(el: HTMLElement): void; write(d: string, cb: () => void): void; dispose(): void };
    const w = window as unknown as { Terminal: new (o: object) => Term; syncScrollbarOncePerTask(t: Term): boolean };
    const texts: Array<[string, string]> = [['of y', 'y\r\n'.repeat(14_000)], ['of 70 characters', `${'x'.repeat(70)}\r\n`.repeat(14_000)]];
    const out: Record<string, number[]> = {};
    for (let i = 0; i < rounds; i++) {
      for (const mode of i % 2 ? ['once a task', 'as it comes'] : ['as it comes', 'once a task']) {
        for (const [name, text] of texts) {
          const host = document.getElementById('host')!;
          host.replaceChildren();
          const term = new w.Terminal({ cols: 80, rows: 20, scrollback: 10_000 });
          term.open(host);
          if (mode === 'once a task' && !w.syncScrollbarOncePerTask(term)) throw new Error('the installer did not find xterm\'s viewport');
          const t = performance.now();
          await new Promise<void>((r) => term.write(text, r));
          (out[`${name} ${mode}`] ??= []).push(performance.now() - t);
          term.dispose();
        }
      }
    }
    return out;
  }, ROUNDS);
  console.log(`14,000 lines written to a fresh xterm (80 x 20, 10,000 lines of history) until parsed, ${ROUNDS} each, in turns:`);
  for (const [k, xs] of Object.entries(got)) console.log(`  lines ${k.padEnd(30)} ${median(xs).toFixed(0)} ms (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`);
} finally {
  await browser.close();
}
