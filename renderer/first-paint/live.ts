/**
 * The window's first paint kept live until each pane's terminal takes over (issue 38, item 4):
 * the door drew every pane's screen into index.html (common/first-paint.ts); the page's first
 * script (renderer/early.ts) runs this on it, long before React and xterm exist.
 *  - A key typed on it goes at once to the pane its first paint shows focused, as that pane's
 *    `pane.input` (as xterm would send it: early.ts `typedInput`), through the link the early
 *    script has to the core (its own WebSocket in a browser, `window.td` in Electron). A key
 *    that cannot go yet (the socket still opening) is kept, and so is every key after it until
 *    the kept ones go (at the socket's open, or handed to the window: retire.ts), so none
 *    overtakes another.
 *  - A click on another pane's part focuses that pane (`pane.focus`: the window, once built,
 *    shows the same pane focused).
 *  - With each key it asks the core for the pane's rows as the first paint draws them
 *    (`pane.rows`: the same markup, every character from the pane escaped there), answered
 *    once the pane's next output (the key's echo) has come; any other output of the focused
 *    pane makes it ask again; at most one ask in flight a pane. The rows replace the part's
 *    rows. Output of a pane not focused is drawn by its terminal once that takes over (or by
 *    its part, asked then, if a click focuses it first).
 * A pane's part that its terminal has drawn over (retire.ts: `.first-paint-gone`) is no longer
 * touched, and its keys are its terminal's. Imports nothing of the app but after-frame.ts (no
 * imports of its own): it runs inline.
 */
import { afterFrame } from '../after-frame.ts';

/** How the first paint reaches the core. */
export interface LiveLink {
  /** Send a request now: its answer, or undefined when it cannot go now (not open yet, closing). */
  request(name: string, req: unknown): Promise<unknown> | undefined;
  /** Call `cb` with the pane's id for every output of a pane that comes (in Electron, only once the window's hello has made it a reader), until the returned stop. */
  onOutput(cb: (paneId: string) => void): () => void;
}

/** What the first paint keeps, shared with the main bundle's copy of early.ts (`globalThis.__tdEarly`). */
export interface LiveState {
  link?: LiveLink;
  /** Keys kept until they can go, in order. */
  typed?: string[];
  /** The window took the kept keys (retire.ts): any kept after would be lost, so none are. */
  handed?: boolean;
  /** Send the kept keys now, if they can go (the link opened). */
  flush?: () => void;
  /** The pane a click on the first paint focused, and who hears of it (the window, once its hello is answered: main.tsx). */
  focused?: string;
  onFocus?: (paneId: string) => void;
  /**
   * Call `go` once the keys typed on the first paint have settled (afterTyping): at once when
   * none are in flight; else once their echo is drawn on it and painted, or the hold's budget
   * (HOLD_MAX_MS in all) is spent. The window's build (the page's scripts, React's first
   * render) waits on it, so a key and its echo are not queued behind its long tasks.
   */
  settled?: (go: () => void) => void;
}

/** The build waits this long after a key typed on the first paint for the next one (a burst of keys goes on). */
export const TYPING_GAP_MS = 24;
/** The most the window's build waits, in all, for keys typed on the first paint and their echo. */
export const HOLD_MAX_MS = 80;
/** The build waits for an echo no longer than this after the last key (an echo slower than that, a core busy resizing the window's panes, is not waited for). */
export const ECHO_WAIT_MS = 40;

/** What afterTyping reads of the first paint's keys. */
export interface Typing {
  /** Keys typed on the first paint whose echo is not drawn on it yet (sent or kept), while its focused part shows. */
  pending(): boolean;
  /** When the last key typed on the first paint came (performance.now()), or -Infinity. */
  lastKeyAt(): number;
}

/**
 * The gate the window's build steps go through (LiveState.settled): `go` at once while no key
 * typed on the first paint is in flight; else checked again every few ms until the keys' echo is
 * drawn (or ECHO_WAIT_MS have gone since the last key) and no key came for TYPING_GAP_MS, then, so that the echo is painted before the build's
 * next long task, after a frame (or 50 ms, a page not drawing). Every hold shares one budget of
 * `maxMs` from the first hold's start: past it, `go` goes at once. `now`, `later` and `frame`:
 * the page's clock, timers and requestAnimationFrame.
 */
export function afterTyping(typing: Typing, opts: { now: () => number; later: (f: () => void, ms: number) => void; frame?: (f: () => void) => void; maxMs?: number; gapMs?: number; echoMs?: number }): (go: () => void) => void {
  const maxMs = opts.maxMs ?? HOLD_MAX_MS;
  const gapMs = opts.gapMs ?? TYPING_GAP_MS;
  const echoMs = opts.echoMs ?? ECHO_WAIT_MS;
  let until: number | undefined;
  return (go) => {
    let held = false;
    const check = (): void => {
      const t = opts.now();
      const since = t - typing.lastKeyAt();
      const busy = since < gapMs || (since < echoMs && typing.pending());
      if (busy && (until === undefined || t < until)) {
        if (until === undefined) until = t + maxMs;
        if (!held) performance.mark('td:typing-held');
        held = true;
        opts.later(check, 4);
        return;
      }
      if (!held) return go();
      // Their echo painted first (a frame), then the build's next step; a page that draws no frame (hidden) goes on after FRAME_WAIT_MS.
      afterFrame(
        () => {
          performance.mark('td:typing-go');
          go();
        },
        opts.frame,
        opts.later,
      );
    };
    check();
  };
}

const FIRST_PAINT_ID = 'td-first-paint';
/** With a key, rows are asked at once, answered by the core with the pane's next output (its echo) or after this long. */
const ROWS_AFTER_KEY_MS = 250;

/** The pane's part of the first paint, while it shows (not drawn over by its terminal). */
function part(fp: HTMLElement, paneId: string): HTMLElement | undefined {
  for (const el of fp.querySelectorAll<HTMLElement>('[data-first-paint-pane]')) {
    if (el.dataset.firstPaintPane === paneId) return el.classList.contains('first-paint-gone') ? undefined : el;
  }
  return undefined;
}

/** The part shown focused, while it shows. */
function focusedPart(fp: HTMLElement): HTMLElement | undefined {
  const el = fp.querySelector<HTMLElement>('.pane[data-first-paint-pane][data-focused="true"]');
  return el && !el.classList.contains('first-paint-gone') ? el : undefined;
}

/** Show `paneId`'s part focused and the others not: headers, and the cursor a bar or an outline. */
function showFocused(fp: HTMLElement, paneId: string): void {
  for (const el of fp.querySelectorAll<HTMLElement>('.pane[data-first-paint-pane]')) {
    const f = el.dataset.firstPaintPane === paneId ? 'true' : 'false';
    el.dataset.focused = f;
    const header = el.querySelector<HTMLElement>('.pane-header');
    if (header) header.dataset.focused = f;
    const cursor = el.querySelector('.first-paint-cursor');
    cursor?.classList.toggle('bar', f === 'true');
    cursor?.classList.toggle('outline', f !== 'true');
  }
}

/**
 * Keep the first paint in `doc` live through `s.link` (set now or later), with `typedInput`
 * for what a key sends. Once only per state.
 */
export function liveFirstPaint(doc: Document, s: LiveState, typedInput: (e: KeyboardEvent, appCursor: boolean) => string | undefined): void {
  if (s.typed) return;
  const typed: string[] = (s.typed = []);
  const win = doc.defaultView;
  const fp = (): HTMLElement | null => doc.getElementById(FIRST_PAINT_ID);
  const theme = (el: HTMLElement): 'light' | 'dark' => (el.dataset.theme === 'light' ? 'light' : 'dark');

  /** Each pane's rows ask: one in flight, one more when output came meanwhile; `seq`: the keys sent before it was asked. */
  const asking = new Map<string, { again: boolean; after?: number; seq: number }>();
  /** Keys sent from the first paint, and how many of them the rows drawn on it show (their echo drawn): afterTyping waits for the rest. */
  let keysSent = 0;
  let keysDrawn = 0;
  let lastKeyAt = -Infinity;
  let firstPatch = true;
  const askRows = (paneId: string, after?: number): void => {
    const a = asking.get(paneId);
    if (a) {
      a.again = true;
      a.after = Math.max(a.after ?? 0, after ?? 0) || undefined;
      return;
    }
    const el = fp();
    if (!el || !part(el, paneId) || !s.link) {
      // Nothing will show these keys' echo here: none to wait for.
      keysDrawn = keysSent;
      return;
    }
    const mine: { again: boolean; after?: number; seq: number } = { again: false, seq: keysSent };
    asking.set(paneId, mine);
    // At once, not at the next frame: the page's main thread is busy for most of an attach
    // (the bundle, React, the terminals), and each wait for a turn of it is one more long task.
    // One ask in flight a pane is the throttle.
    (() => {
      const at = fp();
      const p = at && part(at, paneId);
      const answer = p && s.link?.request('pane.rows', { paneId, theme: theme(at), focused: p.dataset.focused === 'true', ...(after ? { after } : {}) });
      if (answer) performance.mark('td:first-paint-rows-asked', { detail: paneId });
      if (!answer) {
        asking.delete(paneId);
        keysDrawn = keysSent;
        return;
      }
      answer.then(
        (res) => {
          const now = fp();
          const q = now && part(now, paneId);
          const r = res as { html?: unknown; appCursor?: unknown } | null;
          const rows = q?.querySelector('.first-paint-rows');
          if (rows && r && typeof r.html === 'string') {
            // The core's markup (common/first-paint.ts rowsMarkup): every character from the pane escaped there, as in index.html.
            rows.outerHTML = r.html;
            if (r.appCursor === true) q!.dataset.appCursor = 'true';
            else delete q!.dataset.appCursor;
            // Its cursor as the part's focus is now (a click may have moved it meanwhile).
            const f = q!.dataset.focused === 'true';
            const cursor = q!.querySelector('.first-paint-cursor');
            cursor?.classList.toggle('bar', f);
            cursor?.classList.toggle('outline', !f);
            if (firstPatch) {
              firstPatch = false;
              performance.mark('td:first-paint-live');
            }
          }
          // The keys sent before this ask have their echo drawn (or their part is gone: nothing to wait for).
          keysDrawn = Math.max(keysDrawn, mine.seq);
          done();
        },
        () => {
          keysDrawn = Math.max(keysDrawn, mine.seq);
          done();
        },
      );
      function done(): void {
        asking.delete(paneId);
        if (mine.again) askRows(paneId, mine.after);
      }
    })();
  };

  /** Send keys to the pane now; false when they cannot go. */
  const send = (paneId: string, data: string): boolean => {
    const answer = s.link?.request('pane.input', { paneId, data });
    if (!answer) return false;
    performance.mark('td:first-paint-key');
    keysSent++;
    answer.catch(() => { /* the pane went: its part goes with the window's next state */ });
    // Its echo in one answer (not its output frame, then an ask and its answer: one wait fewer for the page's busy thread).
    askRows(paneId, ROWS_AFTER_KEY_MS);
    return true;
  };

  s.flush = () => {
    const el = fp();
    const p = el && focusedPart(el);
    if (p && typed.length > 0 && send(p.dataset.firstPaintPane!, typed.join(''))) typed.splice(0);
  };

  s.settled = afterTyping({
    pending: () => {
      const el = fp();
      const p = el && focusedPart(el);
      // Keys kept, keys sent whose rows are not drawn, or (once keys were sent) its rows asked again for more output (the rest of a burst's echo).
      return !!p && (typed.length > 0 || keysDrawn < keysSent || (keysSent > 0 && asking.has(p.dataset.firstPaintPane!)));
    },
    lastKeyAt: () => lastKeyAt,
  }, {
    now: () => performance.now(),
    later: (f, ms) => void setTimeout(f, ms),
    frame: win ? (f) => void win.requestAnimationFrame(f) : undefined,
  });

  /** Panes whose output came while their part was not the focused one: drawn again once focused. */
  const missed = new Set<string>();
  let linked: LiveLink | undefined;
  const link = (): void => {
    if (!s.link || linked === s.link) return;
    linked = s.link;
    const off = linked.onOutput((paneId) => {
      const el = fp();
      // The first paint gone, output is the terminals' alone: nothing more to hear.
      if (!el) return off();
      const p = part(el, paneId);
      if (!p) return;
      performance.mark('td:first-paint-output', { detail: paneId });
      // Only the part keys go to is drawn again: another pane's output (a window's first resize
      // makes every shell draw its prompt again) would cost the core a markup and the page a
      // layout each while it builds the terminals, which show that output once they draw.
      if (p.dataset.focused === 'true') askRows(paneId);
      else missed.add(paneId);
    });
  };
  link();

  win?.addEventListener('keydown', function onKey(e: KeyboardEvent) {
    const el = fp();
    if (!el) return win.removeEventListener('keydown', onKey);
    // Once anything can take keys itself (the terminal, a field), they are its own.
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.isContentEditable)) return;
    const p = focusedPart(el);
    // The window took the keys kept for it, and no part shows focused: they are the window's.
    if (s.handed && !p) return;
    const data = typedInput(e, p?.dataset.appCursor === 'true');
    if (data === undefined) return;
    lastKeyAt = performance.now();
    link();
    if (p && typed.length === 0 && send(p.dataset.firstPaintPane!, data)) {
      e.preventDefault();
      return;
    }
    if (s.handed) return;
    e.preventDefault();
    typed.push(data);
  });

  // A click on a pane's part (the parts take clicks: styles.css) focuses that pane, here and in the core.
  doc.addEventListener('mousedown', (e: MouseEvent) => {
    const el = fp();
    const p = (e.target as Element | null)?.closest?.<HTMLElement>('.pane[data-first-paint-pane]');
    if (!el || !p || !el.contains(p) || p.classList.contains('first-paint-gone') || p.dataset.focused === 'true') return;
    // Keys kept for the pane focused until now go to it first.
    s.flush?.();
    if (typed.length > 0) return;
    const paneId = p.dataset.firstPaintPane!;
    link();
    if (!s.link?.request('pane.focus', { paneId })) return;
    showFocused(el, paneId);
    if (missed.delete(paneId)) askRows(paneId);
    // The core keeps the focus for the next window only (it tells no window): this one is told here.
    s.focused = paneId;
    s.onFocus?.(paneId);
    // Whatever had keyboard focus (a terminal drawn already) gives it up: keys go to this part now.
    (doc.activeElement as HTMLElement | null)?.blur?.();
  });
}
