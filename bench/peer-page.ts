/**
 * What the peer benchmark measures in a page, the same way for both apps and only through
 * what the page shows: the rows xterm's DOM renderer puts in `.xterm-rows` (both apps run
 * in a Chromium without WebGL, so both draw with it) and, before them, the rows of our
 * window's first paint (SHOWN_ROWS), read by a MutationObserver, and keys
 * pressed with the real keyboard on xterm's textarea. Times are the page's own clock.
 */
import type { CDPSession, Page } from 'playwright-core';
import { deadline } from './window-page.ts';

type PeerWindow = Window & { __peer?: Promise<number>; __peerGaps?: () => number };

/**
 * The rows a page shows: xterm's, and ours' first paint (renderer/first-paint/: the rows the door
 * drew into index.html, shown until xterm's replace them; WeTTY has none).
 */
export const SHOWN_ROWS = '.xterm-rows > div, .first-paint-rows > div';
/** xterm's own rows only: the terminal itself has drawn. */
export const TERMINAL_ROWS = '.xterm-rows > div';

/** The text of every row shown, trailing spaces trimmed. */
export function rows(page: Page, selector = SHOWN_ROWS): Promise<string[]> {
  return page.evaluate((sel) => [...document.querySelectorAll(sel)].map((d) => (d.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()), selector);
}

/** Wait until a row shown matches (polling what the page shows; `selector`: which rows). */
export async function waitForRow(page: Page, re: RegExp, timeoutMs = 30_000, selector = SHOWN_ROWS): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await rows(page, selector).catch(() => [] as string[]);
    if (r.some((l) => re.test(l))) return;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for a row matching ${re}; the page shows: ${r.filter(Boolean).slice(-5).join(' | ')}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

export async function focus(page: Page): Promise<void> {
  await page.locator('.xterm-screen').first().click();
  await page.locator('.xterm-helper-textarea').first().focus();
}

/**
 * Arm a watch in the page: from the next keydown of `key` (or now, with no key) until a row
 * matches `pattern`; resolves in window.__peer with the milliseconds between them.
 */
async function arm(page: Page, pattern: string, key?: string, cursorRow = false): Promise<void> {
  await page.evaluate(([pattern, key, cursorRow]) => {
    const w = window as unknown as PeerWindow;
    const re = new RegExp(pattern);
    w.__peer = new Promise<number>((resolve) => {
      let t0 = key ? 0 : performance.now();
      const rowsEl = document.querySelector('.xterm-rows')!;
      const check = (): void => {
        if (!t0) return;
        const scope = cursorRow ? [rowsEl.querySelector('.xterm-cursor')?.closest('.xterm-rows > div')].filter((d) => !!d) : rowsEl.children;
        for (const d of scope as Iterable<Element>) {
          if (re.test((d.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd())) {
            obs.disconnect();
            window.removeEventListener('keydown', onKey, true);
            resolve(performance.now() - t0);
            return;
          }
        }
      };
      const obs = new MutationObserver(check);
      obs.observe(rowsEl, { childList: true, subtree: true, characterData: true });
      const onKey = (e: KeyboardEvent): void => {
        if (!t0 && e.key === key) t0 = performance.now();
      };
      if (key) window.addEventListener('keydown', onKey, true);
    });
  }, [pattern, key ?? null, cursorRow] as const);
}

const settle = (page: Page, timeoutMs: number, what: string) => deadline(page.evaluate(() => (window as unknown as PeerWindow).__peer!), timeoutMs, what);

/** `cat file` typed and Enter pressed: ms from the Enter keydown to the line after it shown. */
export async function catFile(page: Page, file: string, n: number, timeoutMs: number): Promise<number> {
  await focus(page);
  await arm(page, `^peer-done-${n}$`, 'Enter');
  await page.keyboard.type(`cat ${file}; echo peer-done-$((${n}+0))`);
  await page.keyboard.press('Enter');
  return settle(page, timeoutMs, `the cat of ${file} to be shown`);
}

/**
 * Keystroke latency into `cat`: `count` keys after `warmup`, each from its keydown to its
 * echo shown at the end of the cursor's row; keys 20-37 ms after the last echo showed.
 */
export async function keys(page: Page, count: number, warmup: number): Promise<number[]> {
  await focus(page);
  await page.keyboard.type('cat');
  await page.keyboard.press('Enter');
  await new Promise((r) => setTimeout(r, 300));
  const times: number[] = [];
  let line = '';
  for (let i = 0; i < count + warmup; i++) {
    if (line.length >= 24) {
      await page.keyboard.press('Enter');
      line = '';
      await new Promise((r) => setTimeout(r, 100));
    }
    const ch = String.fromCharCode(97 + (i % 26));
    line += ch;
    await arm(page, `^${line}$`, ch, true);
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 17));
    await page.keyboard.press(ch);
    const t = await settle(page, 10_000, `the echo of key ${i + 1}`);
    if (i >= warmup) times.push(t);
  }
  await page.keyboard.press('Control+C');
  return times;
}

/** `yes` flooding the pane, then Ctrl-C: ms from its keydown to the prompt shown again. */
export async function ctrlC(page: Page): Promise<number> {
  await focus(page);
  await page.keyboard.type('clear; yes');
  await page.keyboard.press('Enter');
  await waitForRow(page, /^y$/, 20_000);
  await new Promise((r) => setTimeout(r, 500));
  await arm(page, 'td\\$$', 'c', true);
  await page.keyboard.press('Control+c');
  return settle(page, 30_000, 'the prompt after Ctrl-C');
}

/** A flood of `mb` MiB of lines, shown to its end; ms. */
export async function flood(page: Page, mb: number, n: number, timeoutMs: number): Promise<number> {
  await focus(page);
  await arm(page, `^flood-done-${n}$`, 'Enter');
  await page.keyboard.type(`clear; yes 'a flood line: 0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ' | head -c ${mb}M; echo; echo flood-done-$((${n}+0))`);
  await page.keyboard.press('Enter');
  return settle(page, timeoutMs, `the ${mb} MiB flood to end`);
}

/** Start recording the longest gap between animation frames; the returned function stops and gives it (ms). */
export async function frameGaps(page: Page): Promise<() => Promise<number>> {
  await page.evaluate(() => {
    let last = performance.now();
    let max = 0;
    let on = true;
    const step = (t: number): void => {
      max = Math.max(max, t - last);
      last = t;
      if (on) requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
    (window as unknown as PeerWindow).__peerGaps = () => {
      on = false;
      return max;
    };
  });
  return () => page.evaluate(() => (window as unknown as PeerWindow).__peerGaps!());
}

/** The page's main-thread busy time so far, in seconds (Chrome's TaskDuration). */
export async function pageCpu(cdp: CDPSession): Promise<number> {
  const { metrics } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  return metrics.find((m) => m.name === 'TaskDuration')?.value ?? 0;
}
