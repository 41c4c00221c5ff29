/**
 * A fresh window's attach, measured light (issue 38): what `bench/tmux.bench.ts` times, read in
 * the page by one small init script instead of Playwright's `waitForFunction` pollers.
 *
 * Why: each `waitForFunction` makes Playwright evaluate its injected script (~340 KB of
 * source) in the page, which a trace found costing 44-54 ms of the page's main thread inside
 * the HTML parse, and each raf poller runs its predicate through that script every frame, four
 * at once: the measure delayed what it measured, which a person's browser does not have.
 *
 * How: `page.addInitScript` with a plain script (Playwright adds it as it is, with
 * `Page.addScriptToEvaluateOnNewDocument`; nothing of its own is injected for it) keeps one
 * requestAnimationFrame loop from the document's start, checking on each frame only the
 * conditions still pending (the same conditions as the pollers, below), and records each one's
 * `performance.now()` (the page's clock: ms from its navigation start) when first seen true.
 * Each is told to Node through a binding added with raw CDP (`Runtime.addBinding` on a
 * session of our own, Runtime enabled on it: a native function on the page's global, no script; Playwright's
 * `exposeBinding` would add its ~12 KB bindings controller to every document). The loop stops
 * once nothing is pending. Node types the marker when told that the focused pane's text shows.
 * One difference from the pollers, for honesty: text in the DOM is not yet on screen, and this
 * loop, running from the document's start, saw the first paint's text in the DOM 40-165 ms
 * before the page's first contentful paint (the frame rastered and presented: 2026-12-06,
 * performance.md); the pollers, started after Playwright's script, rarely saw it that early.
 * So the two text conditions (the focused pane's, every pane's) are reported once the first
 * contentful paint is known too, at its time when it is later than the DOM's (checked on each
 * frame, and also as a `PerformanceObserver` for `paint` is told of it: the page hears of its
 * paint 14-96 ms after the paint's time, and a frame's check, waiting behind the page's build,
 * could trail the observer by tens of ms, 2026-12-07 night): no key is
 * typed before anything is painted (`paint: false`, TD_BENCH_MEASURE=light-dom in the tmux bench:
 * as the pollers did, reported as the DOM shows them).
 *
 * The figures stay on Node's basis (t0, taken just before `page.goto`, as the pollers'): the
 * page's navigation start is placed on Node's clock by round trips after the attach (Node's
 * time halfway through the shortest `Runtime.evaluate('performance.now()')`, less the page's
 * answer), and checked against the two processes' `performance.timeOrigin` (wall-clock based:
 * the same within a ms or two, unless the wall clock was slewed between their starts). No
 * report may come to Node before the time it claims: each is checked (a report's page time on
 * Node's clock must be before Node's receipt of it, within the round trip and 2 ms, else the
 * attach fails), and the gap is printed.
 */
import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/** The conditions, in the pollers' terms (tmux.bench.ts `answeringLive` and `ours`). */
export type Condition =
  /** The focused pane's text on screen: its first paint part with rows text, or its terminal drawn, and the page's first contentful paint come (the marker is typed then). */
  | 'focusedText'
  /** Every pane shows its text: its first paint part's rows, or its terminal drawn (and the first contentful paint come). */
  | 'texts'
  /** The marker's echo on screen: in the focused pane's first paint part, or (the part gone) by its terminal, drawn. */
  | 'echo'
  /** The focused pane's terminal live and drawn. */
  | 'focusedLive'
  /** Every pane in view (its element on the viewport, not of no size) live and drawn; checked once `focusedLive` is met. */
  | 'inView'
  /** All panes live and drawn; checked once `inView` is met. */
  | 'all';

export interface Report {
  k: Condition;
  /** The page's clock (ms from its navigation start) at the frame's check that first saw it (focusedText, texts: or the first contentful paint, when later). */
  t: number;
  /** focusedText, texts: the check that first saw it, on the page's clock (the paint may come later). */
  dom?: number;
  /** focusedText: the pane's id; echo: 'first paint' or 'terminal'; inView: how many panes are in view. */
  id?: string;
  by?: string;
  count?: number;
  /** The loop's own cost so far, frames checked and ms spent in its checks; echo: the marker's keydowns in the page (first, last, count). */
  frames?: number;
  spent?: number;
  keys?: [number, number, number];
  /** focusedText: the check that reported it, on the page's clock (after the first contentful paint was known to the page), and whose it was: a frame's, or the paint observer's. */
  seen?: number;
  via?: 'frame' | 'paint';
}

interface Options {
  binding: string;
  panes: number;
  marker: string;
  /** The text conditions wait for the first contentful paint (true), or are reported as the DOM shows them, as the pollers did (false). */
  paint: boolean;
}

/**
 * The page's side. Runs as a plain script at the document's creation (no closure: it is sent as
 * its source). Its checks read the same things the pollers read, the first paint's DOM and the
 * renderer's test hook (`window.__td`, `?test=1`); a part's rows known to show text are
 * remembered (the first paint replaces a part's rows whole, live.ts, never empties them in place).
 */
function pageMeasure(o: Options): void {
  type Td = {
    store: { getState(): { focused?: string | null } };
    paneIds(): string[];
    live(id: string): boolean;
    drawn?(id: string): boolean;
    text(id: string, n?: number): string | null;
  };
  const w = window as unknown as Record<string, unknown> & { __td?: Td };
  const pending = new Set(['focusedText', 'texts', 'echo', 'focusedLive', 'inView', 'all']);
  const queue: string[] = [];
  const known = new WeakSet<Element>();
  let focusedId: string | undefined;
  /** When the focused pane's text, and every pane's, were first seen in the DOM. */
  let focusedSeen: number | undefined;
  let textsSeen: number | undefined;
  let frames = 0;
  let spent = 0;
  let firstKey = 0;
  let lastKey = 0;
  let keys = 0;
  const report = (r: Record<string, unknown>): void => {
    pending.delete(r.k as string);
    queue.push(JSON.stringify({ ...r, frames, spent: spent + performance.now() - (r.t as number) }));
  };
  const flush = (): void => {
    const b = w[o.binding];
    if (typeof b !== 'function') return;
    while (queue.length) (b as (s: string) => void)(queue.shift()!);
  };
  // The marker's keys as the page gets them (only for the log: when they came, how spread).
  const onKey = (): void => {
    const t = performance.now();
    if (!keys++) firstKey = t;
    lastKey = t;
  };
  const shows = (part: Element | undefined): boolean => {
    const rows = part?.querySelector('.first-paint-rows');
    if (!rows) return false;
    if (known.has(rows)) return true;
    if (!(rows.textContent ?? '').trim()) return false;
    known.add(rows);
    return true;
  };
  const isLive = (td: Td, id: string): boolean => td.live(id) && (td.drawn?.(id) ?? true);
  /** Every pending condition checked now; `via`: who asked (a frame, or the paint observer). */
  const check = (via: 'frame' | 'paint'): void => {
    const t = performance.now();
    const td = w.__td;
    const fp = document.getElementById('td-first-paint');
    let parts: Map<string, HTMLElement> | undefined;
    const partsNow = (): Map<string, HTMLElement> => (parts ??= new Map(fp ? [...fp.querySelectorAll<HTMLElement>('.pane[data-first-paint-pane]:not(.first-paint-gone)')].map((e) => [e.dataset.firstPaintPane!, e]) : []));
    // Text in the DOM is not yet on screen: the frame that shows it is presented (rastered and
    // drawn) after its main-thread part, and the first one with content is known to the page
    // (its first contentful paint entry) tens of ms after that. The text conditions are seen in
    // the DOM on their own, and reported once that paint is known, with its time when later.
    const fcp = pending.has('focusedText') || pending.has('texts') ? performance.getEntriesByName('first-contentful-paint')[0]?.startTime : undefined;
    if (pending.has('focusedText')) {
      if (focusedSeen === undefined) {
        const part = fp?.querySelector<HTMLElement>('.pane[data-first-paint-pane][data-focused="true"]:not(.first-paint-gone)');
        if (part && shows(part)) focusedId = part.dataset.firstPaintPane!;
        else {
          const id = td?.store.getState().focused;
          if (id && td!.drawn?.(id)) focusedId = id;
        }
        if (focusedId) focusedSeen = t;
      }
      if (focusedSeen !== undefined && (fcp !== undefined || !o.paint)) {
        report({ k: 'focusedText', t: o.paint ? Math.max(focusedSeen, fcp!) : focusedSeen, dom: focusedSeen, id: focusedId, seen: t, via });
        addEventListener('keydown', onKey, true);
      }
    }
    if (pending.has('texts')) {
      // Without the hook (the main bundle not run yet): every part of the first paint, all of them parsed (a count of at least the panes').
      if (textsSeen === undefined && (td
        ? (() => {
            const ids = td.paneIds();
            return ids.length > 0 && ids.every((id) => shows(partsNow().get(id)) || !!td.drawn?.(id));
          })()
        : partsNow().size >= o.panes && [...partsNow().values()].every(shows))) textsSeen = t;
      if (textsSeen !== undefined && (fcp !== undefined || !o.paint)) report({ k: 'texts', t: o.paint ? Math.max(textsSeen, fcp!) : textsSeen, dom: textsSeen });
    }
    if (pending.has('echo') && focusedId) {
      const part = partsNow().get(focusedId);
      if (part && (part.querySelector('.first-paint-rows')?.textContent ?? '').includes(o.marker)) report({ k: 'echo', t, by: 'first paint', keys: [firstKey, lastKey, keys] });
      else if (!part && td?.drawn?.(focusedId) && (td.text(focusedId, 5) ?? '').includes(o.marker)) report({ k: 'echo', t, by: 'terminal', keys: [firstKey, lastKey, keys] });
    }
    if (pending.has('focusedLive') && td) {
      const id = td.store.getState().focused;
      if (id && isLive(td, id)) report({ k: 'focusedLive', t });
    }
    if (!pending.has('focusedLive') && pending.has('inView') && td) {
      const shown = td.paneIds();
      if (shown.length >= o.panes) {
        const notLive = shown.filter((id) => !isLive(td, id));
        const vw = innerWidth;
        const vh = innerHeight;
        const inView = (id: string): boolean => {
          const r = document.querySelector(`.pane[data-pane-id="${CSS.escape(id)}"]`)?.getBoundingClientRect();
          return !!r && r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
        };
        if (!notLive.some(inView)) report({ k: 'inView', t, count: shown.filter(inView).length });
      }
    }
    if (!pending.has('inView') && pending.has('all') && td) {
      const shown = td.paneIds();
      if (shown.length >= o.panes && shown.every((id) => isLive(td, id))) report({ k: 'all', t });
    }
    flush();
    spent += performance.now() - t;
  };
  const frame = (): void => {
    frames++;
    check('frame');
    if (pending.size || queue.length) requestAnimationFrame(frame);
    else removeEventListener('keydown', onKey, true);
  };
  requestAnimationFrame(frame);
  // The first contentful paint is told to the page in a task of its own (the paint observers'),
  // which a frame's check can trail while the page builds its window between frames (the
  // observer 14-61 ms after the paint's time, a frame's check 35-96 ms, 2026-12-07 night,
  // performance.md): the text conditions are checked then too, so that the marker is typed
  // when the page could first know its text is on screen.
  if (o.paint && typeof PerformanceObserver === 'function') {
    const po = new PerformanceObserver(() => {
      if (pending.has('focusedText') || pending.has('texts')) check('paint');
      else po.disconnect();
    });
    po.observe({ type: 'paint', buffered: true });
  }
}

/** The script given to `page.addInitScript`: the function's source (types stripped by Node's loader) called with its options. */
export function measureScript(o: Options): string {
  return `(${pageMeasure.toString()})(${JSON.stringify(o)});`;
}

export interface LightAttach {
  /** ms from t0 (Node's clock, just before page.goto), each condition; `by` where the echo was seen. */
  at: Record<Condition, number>;
  /** focusedText, texts: when the check first saw the text in the DOM (ms from t0), before its paint; focusedText's report: the check that made it (a frame's or the paint observer's), and its receipt by Node (ms from t0). */
  dom: { focusedText: number; texts: number };
  reported: { check: number; via: string; received: number };
  by: string;
  inViewCount: number;
  /** The page's first contentful paint, on the page's clock (as the pollers' figure). */
  fcp: number;
  /** The page's navigation start after t0: by round trip (used) and by the two timeOrigins; the shortest round trip. */
  nav: number;
  navByOrigin: number;
  rtt: number;
  /** The largest and smallest gap between a report's time (on Node's clock) and Node's receipt of it: never below 0. */
  lateMax: number;
  lateMin: number;
  /** The loop's own cost: frames checked, ms spent in its checks; the marker's keys in the page (ms from t0: first, last). */
  frames: number;
  spent: number;
  keys: [number, number, number];
}

/** The light measure set up on a fresh page, before its navigation: each condition as it comes, and the figures once all have. */
export interface LightMeasure {
  when(k: Condition): Promise<Report>;
  /** Once every condition is met: the figures on Node's clock from `t0` (taken just before page.goto). */
  finish(t0: number): Promise<LightAttach>;
  /** Types `text` (lowercase letters and digits) as one burst: see typeAtOnce. */
  typeAtOnce(text: string): Promise<void>;
}

/**
 * Each character's key down and up sent through raw CDP without waiting for the one before to
 * be acknowledged (Playwright's `keyboard.type` waits for each event's acknowledgement, a round
 * trip through the browser and the page's thread: in an attach, 40-60 ms for the marker's 9
 * keys while the page builds the window, which the figure counted as the page's answer). The
 * events still reach the page one by one, in order (`Input.dispatchKeyEvent` on one session).
 */
async function typeAtOnce(cdp: CDPSession, text: string): Promise<void> {
  if (!/^[a-z0-9]*$/.test(text)) throw new Error(`typeAtOnce types lowercase letters and digits, not ${JSON.stringify(text)}`);
  await Promise.all([...text].flatMap((ch) => {
    const key = { key: ch, code: /\d/.test(ch) ? `Digit${ch}` : `Key${ch.toUpperCase()}`, windowsVirtualKeyCode: ch.toUpperCase().charCodeAt(0) };
    return [cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', text: ch, unmodifiedText: ch, ...key }), cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key })] as Promise<unknown>[];
  }));
}

/** Sets the light measure up on `page` (fresh in `context`, not navigated yet); `marker` is what its echo check looks for. */
export async function lightMeasure(context: BrowserContext, page: Page, panes: number, marker: string, paint = true, timeoutMs = 180_000): Promise<LightMeasure> {
  const binding = `__tdMeasure${Math.floor(Math.random() * 1e9)}`;
  const cdp = await context.newCDPSession(page);
  const got = new Map<Condition, { r: Report; at: number }>();
  const waiting = new Map<Condition, () => void>();
  cdp.on('Runtime.bindingCalled', (e: { name: string; payload: string }) => {
    if (e.name !== binding) return;
    const r = JSON.parse(e.payload) as Report;
    got.set(r.k, { r, at: performance.now() });
    waiting.get(r.k)?.();
  });
  // The binding is installed (and its calls reported) only on a session with Runtime enabled
  // (Chromium 14x: without it the page never sees the function). Playwright's own session has it
  // enabled already; a second one costs the page one more report of each console message.
  await cdp.send('Runtime.enable');
  await cdp.send('Runtime.addBinding', { name: binding });
  await page.addInitScript({ content: measureScript({ binding, panes, marker, paint }) });
  const when = (k: Condition): Promise<Report> => new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      resolve(got.get(k)!.r);
    };
    const timer = setTimeout(() => reject(new Error(`the light measure: ${k} not met in ${timeoutMs} ms (met: ${[...got.keys()].join(', ') || 'none'})`)), timeoutMs);
    if (got.has(k)) done();
    else waiting.set(k, done);
  });
  const finish = async (t0: number): Promise<LightAttach> => {
    for (const k of ['focusedText', 'texts', 'echo', 'focusedLive', 'inView', 'all'] as const) await when(k);
    // The page's clock on Node's: the shortest of a few round trips, after the attach (nothing measured waits on them).
    let best = { rtt: Infinity, nav: 0 };
    for (let i = 0; i < 8; i++) {
      const a = performance.now();
      const r = (await cdp.send('Runtime.evaluate', { expression: 'performance.now()', returnByValue: true })) as { result: { value: number } };
      const b = performance.now();
      if (b - a < best.rtt) best = { rtt: b - a, nav: (a + b) / 2 - r.result.value - t0 };
    }
    const read = async (expression: string): Promise<number> => ((await cdp.send('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value: number } }).result.value;
    const navByOrigin = (await read('performance.timeOrigin')) - (performance.timeOrigin + t0);
    const fcp = await read(`performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN`);
    const at = Object.fromEntries([...got].map(([k, v]) => [k, best.nav + v.r.t])) as Record<Condition, number>;
    const late = [...got.values()].map((v) => v.at - t0 - (best.nav + v.r.t));
    const last = [...got.values()].map((v) => v.r).sort((a, b) => b.t - a.t)[0]!;
    const keys = got.get('echo')!.r.keys!;
    await cdp.detach().catch(() => { /* the context closes anyway */ });
    // No report may reach Node before the time it claims (within the clocks' mapping: the round trip, and 2 ms).
    if (Math.min(...late) < -(best.rtt + 2)) throw new Error(`a report reached Node ${(-Math.min(...late)).toFixed(1)} ms before the time it claims: the page's clock is placed wrong on Node's (round trip ${best.rtt.toFixed(1)} ms)`);
    return {
      at,
      dom: { focusedText: best.nav + got.get('focusedText')!.r.dom!, texts: best.nav + got.get('texts')!.r.dom! },
      reported: { check: best.nav + got.get('focusedText')!.r.seen!, via: got.get('focusedText')!.r.via ?? 'frame', received: got.get('focusedText')!.at - t0 },
      by: got.get('echo')!.r.by!,
      inViewCount: got.get('inView')!.r.count!,
      fcp,
      nav: best.nav,
      navByOrigin,
      rtt: best.rtt,
      lateMax: Math.max(...late),
      lateMin: Math.min(...late),
      frames: last.frames!,
      spent: last.spent!,
      keys: [best.nav + keys[0], best.nav + keys[1], keys[2]],
    };
  };
  return { when, finish, typeAtOnce: (text) => typeAtOnce(cdp, text) };
}

/**
 * One attach measured light: `page` fresh in `context`, nothing evaluated in it yet. Navigates
 * to `url` (t0 just before, on Node's performance.now()), types `marker` once the focused pane's
 * text shows (as one burst: typeAtOnce, since 2026-12-07 evening), and resolves once every
 * condition is met.
 */
export async function lightAttach(context: BrowserContext, page: Page, url: string, panes: number, marker: string, paint = true, timeoutMs = 180_000): Promise<LightAttach> {
  const m = await lightMeasure(context, page, panes, marker, paint, timeoutMs);
  const t0 = performance.now();
  await page.goto(url, { waitUntil: 'commit' });
  await m.when('focusedText');
  await m.typeAtOnce(marker);
  return m.finish(t0);
}
