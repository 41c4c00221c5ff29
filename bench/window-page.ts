/**
 * The window benchmark's measurements inside the page (Chromium against `serve`),
 * through the renderer's `?test=1` hook: `window.__td.term(paneId)` is the pane's
 * xterm Terminal. Times are taken with the page's own clock.
 */
import type { TdPage } from '../e2e/harness.ts';

interface XtermLike {
  buffer: { active: { baseY: number; cursorY: number; cursorX: number; getLine(y: number): { translateToString(trim?: boolean): string } | undefined } };
  onWriteParsed(fn: () => void): { dispose(): void };
  onRender(fn: () => void): { dispose(): void };
}
type BenchWindow = Window & {
  __td: { term(id: string): XtermLike | null };
  __benchDone?: Promise<number>;
  __benchKeys?: KeyMarks[];
  __benchInject?: (ch: string) => void;
  __benchKeyWait?: (n: number) => Promise<void>;
  __benchStop?: () => void;
};

const FRAME_MS = 1000 / 60;
const textarea = (paneId: string) => `[data-pane-id="${paneId}"] .xterm-helper-textarea`;

/** Reject after `ms` with what was awaited. */
export function deadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_r, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]);
}

/**
 * `cat file` typed into the pane's shell; seconds from the Enter keydown to the line
 * after it (`tput-done-<n>`) parsed in xterm. Every byte went PTY → core → WebSocket
 * → xterm, with the window's acknowledgements.
 */
export async function pageCat(win: TdPage, paneId: string, file: string, n: number, timeoutMs: number): Promise<number> {
  await win.focusTerminal(paneId);
  await win.page.evaluate(([id, sel, n]) => {
    const w = window as unknown as BenchWindow;
    const term = w.__td.term(id)!;
    const ta = document.querySelector(sel)!;
    const re = new RegExp(`^tput-done-${n}$`);
    w.__benchDone = new Promise<number>((resolve) => {
      let t0 = 0;
      const onKey = (e: Event): void => {
        if (e.target === ta && (e as KeyboardEvent).key === 'Enter' && !t0) t0 = performance.now();
      };
      window.addEventListener('keydown', onKey, true);
      const sub = term.onWriteParsed(() => {
        if (!t0) return;
        const b = term.buffer.active;
        const y = b.baseY + b.cursorY;
        for (let k = Math.max(0, y - 3); k <= y; k++) {
          if (re.test(b.getLine(k)?.translateToString(true) ?? '')) {
            sub.dispose();
            window.removeEventListener('keydown', onKey, true);
            resolve((performance.now() - t0) / 1000);
            return;
          }
        }
      });
    });
  }, [paneId, textarea(paneId), n] as const);
  // $((…)) keeps the marker out of the echoed command line.
  await win.page.keyboard.type(`cat ${file}; echo; echo tput-done-$((${n}+0))`);
  await win.page.keyboard.press('Enter');
  return deadline(win.page.evaluate(() => (window as unknown as BenchWindow).__benchDone!), timeoutMs, `cat of ${file} to reach the window`);
}

/** One keystroke's marks, in ms after its keydown (the page's clock). */
export interface KeyMarks {
  /** WebSocket.send of its `pane.input` (xterm's onData, the renderer and td-client run in one synchronous call). */
  send: number;
  /** The echo's `pane.output` handled (the renderer's term.write of it). */
  recv: number;
  /** The echo parsed into xterm's buffer. */
  parsed: number;
  /** The first render after that (xterm's onRender, in the animation frame that paints it). */
  painted: number;
}

/**
 * Keystroke latency: `count` keys (after `warmup`) typed into a pane running `cat`;
 * each from its keydown on xterm's textarea to the first render after the echo is
 * parsed (xterm's onRender; the next animation frame if no render comes), with the
 * marks in between (KeyMarks). `inject`: the key goes in by `term.input(key, true)`
 * inside the page (what xterm does on a keydown, without a browser input event),
 * timed from that call; otherwise by Playwright's keyboard (CDP input events).
 */
export async function pageKeys(win: TdPage, paneId: string, count: number, warmup: number, inject = false): Promise<KeyMarks[]> {
  await win.focusTerminal(paneId);
  await win.page.evaluate(([id, sel]) => {
    const w = window as unknown as BenchWindow;
    const term = w.__td.term(id)! as XtermLike & { write(d: string, cb?: () => void): void; input(d: string, user: boolean): void };
    const ta = document.querySelector(sel)!;
    const times: KeyMarks[] = [];
    const waiters: Array<() => void> = [];
    w.__benchKeys = times;
    const cursor = (): number => {
      const b = term.buffer.active;
      return (b.baseY + b.cursorY) * 100_000 + b.cursorX;
    };
    let cur: { t0: number; send: number; recv: number } | undefined;
    const start = (): void => {
      const t0 = performance.now();
      const marks = { t0, send: 0, recv: 0 };
      cur = marks;
      const before = cursor();
      let done = false;
      let parsedAt = 0;
      const finish = (): void => {
        if (done) return;
        done = true;
        if (cur === marks) cur = undefined;
        const rel = (t: number) => (t ? t - t0 : NaN);
        times.push({ send: rel(marks.send), recv: rel(marks.recv), parsed: parsedAt - t0, painted: performance.now() - t0 });
        for (const f of waiters.splice(0)) f();
      };
      const parsed = term.onWriteParsed(() => {
        if (cursor() === before) return;
        parsedAt = performance.now();
        parsed.dispose();
        let frame = 0;
        const rendered = term.onRender(() => {
          rendered.dispose();
          // Leave no frame requested behind: a pending animation frame when the next key
          // comes makes Chromium hold that key's echo until the frame is out
          // (DeferRendererTasksAfterInput), which would be the benchmark's doing.
          cancelAnimationFrame(frame);
          finish();
        });
        // No render (nothing visible changed): the frame after the parse is when it shows.
        frame = requestAnimationFrame(() => {
          frame = requestAnimationFrame(() => {
            rendered.dispose();
            finish();
          });
        });
      });
    };
    const onKey = (e: Event): void => {
      if (e.target !== ta || (e as KeyboardEvent).key.length !== 1) return;
      start();
    };
    const send = WebSocket.prototype.send;
    WebSocket.prototype.send = function (this: WebSocket, d: Parameters<WebSocket['send']>[0]) {
      if (cur && !cur.send && typeof d === 'string' && d.includes('"pane.input"')) cur.send = performance.now();
      return send.call(this, d);
    };
    const write = term.write;
    term.write = function (d: string, cb?: () => void) {
      if (cur && cur.send && !cur.recv) cur.recv = performance.now();
      return write.call(this, d, cb);
    };
    // On the window, capturing: before xterm's own listener on the textarea sends the key.
    window.addEventListener('keydown', onKey, true);
    w.__benchInject = (ch: string) => {
      start();
      term.input(ch, true);
    };
    w.__benchStop = () => {
      window.removeEventListener('keydown', onKey, true);
      WebSocket.prototype.send = send;
      term.write = write;
    };
    w.__benchKeyWait = (n: number) => new Promise<void>((resolve) => {
      const check = (): void => {
        if (times.length >= n) resolve();
        else waiters.push(check);
      };
      check();
    });
  }, [paneId, textarea(paneId)] as const);
  try {
    for (let i = 0; i < count + warmup; i++) {
      const ch = String.fromCharCode(97 + (i % 26));
      // Keys at typing speed and at no fixed point of the frame: 20-37 ms after the last echo painted.
      await new Promise((r) => setTimeout(r, 20 + Math.random() * FRAME_MS));
      if (inject) await win.page.evaluate((c) => (window as unknown as BenchWindow).__benchInject!(c), ch);
      else await win.page.keyboard.press(ch);
      await deadline(win.page.evaluate((n) => (window as unknown as BenchWindow).__benchKeyWait!(n), i + 1), 10_000, `the echo of keystroke ${i + 1}`);
    }
    return (await win.page.evaluate(() => (window as unknown as BenchWindow).__benchKeys!.slice())).slice(warmup);
  } finally {
    await win.page.evaluate(() => (window as unknown as BenchWindow).__benchStop?.());
  }
}

/** Whether the page is focused and visible, and its frame interval (median and max over 60 frames): is it a focused desktop window's? */
export async function pageFrames(win: TdPage): Promise<{ focused: boolean; visibility: string; median: number; max: number }> {
  return deadline(win.page.evaluate(() => new Promise<{ focused: boolean; visibility: string; median: number; max: number }>((resolve) => {
    const ts: number[] = [];
    const step = (t: number): void => {
      ts.push(t);
      if (ts.length <= 60) {
        requestAnimationFrame(step);
        return;
      }
      const d = ts.slice(1).map((x, i) => x - ts[i]!).sort((a, b) => a - b);
      resolve({ focused: document.hasFocus(), visibility: document.visibilityState, median: d[30]!, max: d[d.length - 1]! });
    };
    requestAnimationFrame(step);
  })), 10_000, '60 animation frames');
}
