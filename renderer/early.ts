/**
 * The page's first script, in a browser window on serve (not Electron's, which has
 * `window.td` from its preload): it opens serve's WebSocket and says `app.hello` as soon as
 * the HTML is parsed, while the main bundle still downloads and runs, and keeps every frame
 * that comes, in order. td-client adopts the socket (`createWsClient({ early })`): it takes
 * the kept frames as if they had just come, and a request sent here (the hello) is the
 * answer to the window's own first `invoke` of it. So the socket's handshake and the hello's
 * round trip overlap the script instead of following it (docs/spec/performance.md).
 *
 * It imports nothing of the app but the live first paint (first-paint/live.ts, itself
 * importing only after-frame.ts), so it stays small: in the built page a classic script inline, first in
 * index.html (vite.config.ts, `inlineEarly`; the shells' CSP allow it by its hash), which runs
 * as the page is parsed (an async module script of its own ran only just before the main bundle).
 */
import { TERMINAL_LINE_HEIGHT } from '../common/themes.ts';
import { liveFirstPaint, type LiveLink, type LiveState } from './first-paint/live.ts';

/** A request sent on the early socket, answered among its frames. */
export interface EarlyRequest {
  id: number;
  name: string;
  req: unknown;
}

export interface EarlySocket {
  readonly socket: WebSocket;
  /** Requests sent on it, with ids from 1. */
  readonly requests: readonly EarlyRequest[];
  /** Each pane's `pane.snapshot` ask as sent, by pane id (with the size it was asked at, `firstPaintSize`); the window's own ask takes it (attachSnapshotReq). */
  readonly snapshotAsks: Map<string, { paneId: string; cols?: number; rows?: number }>;
  /** Stop keeping frames and hand over those kept so far, in the order they came. */
  release(): Array<string | ArrayBuffer>;
  /**
   * The live first paint's own requests (keys, rows, focus) and the panes' output, on the same
   * socket, before and after td-client adopts it (first-paint/live.ts).
   */
  readonly live: LiveLink;
}

/**
 * Ids of the live first paint's own requests: far above any td-client sends, so their answers
 * are never taken for one of its own (td-client leaves an answer it did not ask alone), and
 * none is claimed by the window (they are not among `requests`).
 */
export const LIVE_ID_BASE = 2 ** 40;

/** The pane id of a binary output frame (preload/output-frame.ts), read without decoding the output; undefined for any other frame. */
export function outputPaneId(bytes: Uint8Array): string | undefined {
  if (bytes.length < 6 || bytes[0] !== 1) return undefined;
  const n = bytes[1]!;
  if (n < 1 || bytes.length < 2 + n + 4) return undefined;
  return String.fromCharCode(...bytes.subarray(2, 2 + n));
}

/** serve's window socket on the page's own origin, asking for pane output as binary frames. */
export function defaultWsUrl(loc: { protocol: string; host: string } = globalThis.location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws?output=binary`;
}

/** A layout tree as the hello's answer carries it (preload/contract.ts `Layout`), read here without importing it. */
type LayoutTree = { type: 'pane'; paneId: string } | { type: 'split'; children: LayoutTree[] };

/**
 * The panes whose snapshots the early socket asks for once the hello is answered, in the order
 * main.tsx asks (`TerminalRegistry.prefetch`): the focused pane (else the layout's first), then the
 * rest in reading order. This machine's panes only (another machine's, `name/id`, go through the
 * home service wrapped: td-client's to ask). Pure.
 */
export function snapshotOrder(hello: unknown): { first?: string; rest: string[] } {
  const h = hello as { layout?: LayoutTree | null; focused?: string | null } | null;
  const ids: string[] = [];
  const walk = (n: LayoutTree | null | undefined): void => {
    if (!n || typeof n !== 'object') return;
    if (n.type === 'pane' && typeof n.paneId === 'string') ids.push(n.paneId);
    else if (n.type === 'split' && Array.isArray(n.children)) n.children.forEach(walk);
  };
  walk(h?.layout);
  const first = typeof h?.focused === 'string' && h.focused ? h.focused : ids[0];
  const local = (id: string) => !id.includes('/');
  return { first: first && local(first) ? first : undefined, rest: ids.filter((id) => id !== first && local(id)) };
}

/** A pane's size in the core, as the hello's answer carries it (PaneInfo). */
type PaneSize = { cols: number; rows: number };

/** The last font measured for firstPaintSize (every pane of a window has the same). */
let measured: { font: string; width: number; height: number } | undefined;

/** A character's width and its font box's height in `font` (OffscreenCanvas, `measureText('W')`), measured once a font; undefined when it cannot be. */
function fontCell(font: string): { width: number; height: number } | undefined {
  if (measured?.font === font) return measured;
  const ctx = new OffscreenCanvas(100, 100).getContext('2d');
  if (!ctx) return undefined;
  ctx.font = font;
  const m = ctx.measureText('W');
  const height = m.fontBoundingBoxAscent + m.fontBoundingBoxDescent;
  if (!(m.width > 0) || !(height > 0)) return undefined;
  measured = { font, width: m.width, height };
  return measured;
}

/**
 * The size a pane's terminal will fit to in this window (TerminalSession's fit: xterm 6's
 * FitAddon over its DOM renderer's cell), read from the door's first paint, which lays the
 * window out as React will (the same classes: each pane's `.terminal-container` is the box its
 * terminal fills): the box's width and height (parseInt of the computed style, as FitAddon reads
 * the terminal's parent), less xterm's scroll bar (14 px), over the cell xterm measures for the
 * first paint's font (OffscreenCanvas, `measureText('W')`: its width, and its font box's height
 * rounded up to a device pixel, times the line height TERMINAL_LINE_HEIGHT rounded down), a cell's CSS width and
 * height taken as xterm takes them at the terminal's first size (`current`, the pane's size in
 * the core: the terminal is made at it). Undefined when it cannot be read as the page will lay
 * it out: no first paint of the pane, the stylesheets not all applied yet, no OffscreenCanvas,
 * or a box of no size. A size that turns out wrong costs what a window cost before: the terminal
 * fits and resizes the pane again.
 */
export function firstPaintSize(doc: Document, paneId: string, current: PaneSize | undefined): PaneSize | undefined {
  const win = doc.defaultView;
  if (!win || typeof OffscreenCanvas !== 'function') return undefined;
  for (const link of doc.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')) if (!link.sheet) return undefined;
  let rowsEl: HTMLElement | undefined;
  for (const el of doc.querySelectorAll<HTMLElement>('#td-first-paint [data-first-paint-pane]')) {
    if (el.dataset.firstPaintPane !== paneId) continue;
    rowsEl = el.querySelector<HTMLElement>('.terminal-container > .first-paint-rows') ?? undefined;
    break;
  }
  if (!rowsEl) return undefined;
  const style = win.getComputedStyle(rowsEl);
  const width = parseInt(style.width);
  const height = parseInt(style.height);
  if (!(width > 0) || !(height > 0)) return undefined;
  const m = fontCell(`${rowsEl.style.fontSize} ${rowsEl.style.fontFamily}`);
  if (!m) return undefined;
  const charHeight = m.height;
  const dpr = win.devicePixelRatio || 1;
  const deviceCellWidth = m.width * dpr;
  const deviceCellHeight = Math.floor(Math.ceil(charHeight * dpr) * TERMINAL_LINE_HEIGHT);
  const cols0 = current && current.cols > 0 ? current.cols : 80;
  const rows0 = current && current.rows > 0 ? current.rows : 24;
  const cellWidth = Math.round(deviceCellWidth * cols0 / dpr) / cols0;
  const cellHeight = Math.round(deviceCellHeight * rows0 / dpr) / rows0;
  const cols = Math.max(2, Math.floor((width - 14) / cellWidth));
  const rows = Math.max(1, Math.floor(height / cellHeight));
  return Number.isFinite(cols) && Number.isFinite(rows) && cols <= 2000 && rows <= 1000 ? { cols, rows } : undefined;
}

/** A pane's `pane.snapshot` ask, at `size` when known (one builder: the early socket's ask and the window's, which claims its answer, are the same text). */
function sizedSnapshotReq(paneId: string, size: PaneSize | undefined): { paneId: string; cols?: number; rows?: number } {
  return size ? { paneId, cols: size.cols, rows: size.rows } : { paneId };
}

/** The panes' sizes in the core, by id, from the hello's answer. */
function paneSizes(hello: unknown): Map<string, PaneSize> {
  const sizes = new Map<string, PaneSize>();
  const panes = (hello as { panes?: Array<{ id?: unknown; cols?: unknown; rows?: unknown }> } | null)?.panes;
  if (Array.isArray(panes)) for (const p of panes) if (typeof p?.id === 'string' && typeof p.cols === 'number' && typeof p.rows === 'number') sizes.set(p.id, { cols: p.cols, rows: p.rows });
  return sizes;
}

/** The id of an answer frame (the core writes `{"t":"res","id":N,...}`), read without parsing the rest; undefined for any other frame. */
export function answerId(data: string): number | undefined {
  const m = /^\{"t":"res","id":(\d+),/.exec(data.slice(0, 40));
  return m ? Number(m[1]) : undefined;
}

/**
 * Open the socket and say `app.hello` once it is open, keeping every frame until released.
 * Once the hello is answered it asks for the focused pane's snapshot, and once that is answered
 * for the other panes' (the asks main.tsx makes, which td-client then claims): the core makes
 * them while the main bundle still loads and parses, instead of after it (issue 38, item 4).
 */
export function openEarly(url: string, WS: typeof WebSocket = WebSocket, sizeOf?: (paneId: string, current: PaneSize | undefined) => PaneSize | undefined, measurable: (go: () => void) => void = (go) => go()): EarlySocket {
  const socket = new WS(url);
  socket.binaryType = 'arraybuffer';
  const kept: Array<string | ArrayBuffer> = [];
  const requests: EarlyRequest[] = [];
  let released = false;
  const ask = (name: string, req: unknown): number | undefined => {
    const r: EarlyRequest = { id: requests.length + 1, name, req };
    try {
      socket.send(JSON.stringify({ t: 'req', ...r }));
      requests.push(r);
      return r.id;
    } catch {
      // closing already: td-client connects again and asks itself
      return undefined;
    }
  };
  /** The other panes, asked for once the focused pane's snapshot is answered (its id). */
  let rest: { after: number; ids: string[]; snapshot: (paneId: string) => number | undefined } | undefined;
  /** Each pane's snapshot ask as sent (with the size it was asked at), for the window's own ask to claim its answer. */
  const snapshotAsks = new Map<string, { paneId: string; cols?: number; rows?: number }>();
  const onOpen = (): void => {
    performance.mark('td:open');
    ask('app.hello', {});
  };
  /** The hello's answer (id 1) and the first snapshot's lead to the next asks. */
  const answered = (data: string): void => {
    const id = answerId(data);
    if (id === 1 && requests.length === 1) {
      let order: ReturnType<typeof snapshotOrder>;
      let f: { ok: boolean; res?: unknown };
      try {
        f = JSON.parse(data) as { ok: boolean; res?: unknown };
        if (!f.ok) return;
        order = snapshotOrder(f.res);
      } catch {
        return;
      }
      if (!order.first) return;
      // Once the first paint can be measured (parsed, its stylesheets applied: `measurable`); the hello may be answered before.
      const hello = f;
      const first = { first: order.first, rest: order.rest };
      measurable(() => askSnapshots(hello, first));
    } else if (rest && id === rest.after) {
      const { ids, snapshot } = rest;
      rest = undefined;
      for (const paneId of ids) if (snapshot(paneId) === undefined) return;
    }
  };
  const askSnapshots = (f: { res?: unknown }, order: { first: string; rest: string[] }): void => {
    // td-client took the socket meanwhile: its requests are its own now (it asks the snapshots itself).
    if (released) return;
    // Each pane at the size its terminal will fit to, where the first paint says it: the core
    // resizes it and answers at that size, so the first window after the pane was made at
    // another size draws it once (the size read for all of them now, one layout of the page).
    let sized: Map<string, PaneSize> | undefined;
    try {
      const current = paneSizes(f.res);
      sized = new Map();
      for (const paneId of [order.first, ...order.rest]) {
        const size = sizeOf?.(paneId, current.get(paneId));
        if (size) sized.set(paneId, size);
      }
    } catch {
      sized = undefined;
    }
    const snapshot = (paneId: string): number | undefined => {
      const req = sizedSnapshotReq(paneId, sized?.get(paneId));
      snapshotAsks.set(paneId, req);
      return ask('pane.snapshot', req);
    };
    const after = snapshot(order.first);
    if (after !== undefined && order.rest.length > 0) rest = { after, ids: order.rest, snapshot };
  };
  const onMessage = (ev: MessageEvent): void => {
    const data = ev.data as string | ArrayBuffer;
    // The core's liveness check is answered here, so a slow bundle never looks like a frozen tab.
    if (data === '{"t":"ping"}') {
      try {
        socket.send('{"t":"pong"}');
      } catch {
        // closing: the same
      }
      return;
    }
    kept.push(data);
    if (typeof data === 'string') answered(data);
  };
  socket.addEventListener('open', onOpen);
  socket.addEventListener('message', onMessage);
  // The live first paint's answers and the panes' output, for as long as the page lives (after release too: td-client ignores both answers and nothing else).
  let liveId = LIVE_ID_BASE;
  const liveAnswers = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const outputs: Array<(paneId: string) => void> = [];
  socket.addEventListener('message', (ev: MessageEvent) => {
    // Nothing asked and nobody listening (the first paint gone): nothing to read.
    if (outputs.length === 0 && liveAnswers.size === 0) return;
    const data = ev.data as string | ArrayBuffer;
    if (typeof data !== 'string') {
      const paneId = outputs.length ? outputPaneId(new Uint8Array(data)) : undefined;
      if (paneId) for (const cb of outputs) cb(paneId);
      return;
    }
    const id = liveAnswers.size ? answerId(data) : undefined;
    const a = id === undefined ? undefined : liveAnswers.get(id);
    if (!a) return;
    liveAnswers.delete(id!);
    try {
      const f = JSON.parse(data) as { ok: boolean; res?: unknown; error?: string };
      if (f.ok) a.resolve(f.res);
      else a.reject(new Error(String(f.error)));
    } catch (err) {
      a.reject(err as Error);
    }
  });
  socket.addEventListener('close', () => {
    for (const a of liveAnswers.values()) a.reject(new Error('closed'));
    liveAnswers.clear();
  });
  const live: LiveLink = {
    request(name, req) {
      if (socket.readyState !== 1) return undefined;
      const id = liveId++;
      try {
        socket.send(JSON.stringify({ t: 'req', id, name, req }));
      } catch {
        return undefined;
      }
      return new Promise((resolve, reject) => liveAnswers.set(id, { resolve, reject }));
    },
    onOutput(cb) {
      outputs.push(cb);
      return () => {
        const at = outputs.indexOf(cb);
        if (at >= 0) outputs.splice(at, 1);
      };
    },
  };
  return {
    socket,
    requests,
    snapshotAsks,
    live,
    release() {
      if (released) return [];
      released = true;
      socket.removeEventListener('open', onOpen);
      socket.removeEventListener('message', onMessage);
      return kept.splice(0);
    },
  };
}

/**
 * What a key typed on the window's first paint (renderer/first-paint/: the panes drawn into
 * index.html, before the terminal exists) sends to the focused pane, as xterm would send it
 * (`appCursor`: the program asked for application cursor keys, as vim and less do);
 * undefined for a key left to the browser and the app (its shortcuts: Ctrl+Shift, Alt, Meta).
 * Pure.
 */
export function typedInput(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'altKey' | 'metaKey' | 'shiftKey' | 'isComposing'>, appCursor = false): string | undefined {
  if (e.isComposing || e.metaKey || e.altKey) return undefined;
  if (e.ctrlKey) return !e.shiftKey && /^[a-z]$/i.test(e.key) ? String.fromCharCode(e.key.toLowerCase().charCodeAt(0) - 96) : undefined;
  if (e.key === 'Tab' && e.shiftKey) return '\x1b[Z';
  const arrow: Record<string, string> = { ArrowUp: 'A', ArrowDown: 'B', ArrowRight: 'C', ArrowLeft: 'D' };
  if (Object.hasOwn(arrow, e.key)) return `${appCursor ? '\x1bO' : '\x1b['}${arrow[e.key]}`;
  const named: Record<string, string> = { Enter: '\r', Backspace: '\x7f', Tab: '\t', Escape: '\x1b', Home: '\x1b[H', End: '\x1b[F', Delete: '\x1b[3~' };
  if (Object.hasOwn(named, e.key)) return named[e.key];
  return [...e.key].length === 1 && e.key >= ' ' ? e.key : undefined;
}

/**
 * What the page's first run of this file leaves for the main bundle, on `globalThis.__tdEarly`:
 * in the built page this file runs twice, first as a classic script inline in index.html
 * (vite.config.ts, `inlineEarly`), then inside the main bundle, which imports it for takeEarly and takeTyped; the
 * two copies share only the global. The second run finds it there and starts nothing.
 */
interface EarlyState extends LiveState {
  /** The early socket, until td-client takes it (none in Electron). */
  early?: EarlySocket;
  /** Its snapshot asks, by pane id (kept after td-client takes it: `earlySnapshotAsk`). */
  snapshotAsks?: EarlySocket['snapshotAsks'];
}

const state = (): EarlyState | undefined => (globalThis as { __tdEarly?: EarlyState }).__tdEarly;

/** Electron's window has `window.td` from its preload before any script runs: the live first paint's link (its output comes once the window's hello has made it a reader). */
function electronLink(td: { invoke(name: string, req: unknown): Promise<unknown>; on(name: string, h: (p: { paneId: string }) => void): unknown }): LiveLink {
  return {
    request: (name, req) => td.invoke(name, req),
    onOutput: (cb) => {
      const off = td.on('pane.output', (p) => cb(p.paneId));
      return typeof off === 'function' ? (off as () => void) : () => {};
    },
  };
}

/**
 * What was kept of the keys typed on the first paint (those that could not go at once: the
 * socket still opening), once; after this, a key is kept no more (it goes at once, or is the
 * window's).
 */
export function takeTyped(): string {
  const s = state();
  if (!s) return '';
  s.handed = true;
  return (s.typed ?? []).splice(0).join('');
}

/** The longest whenMeasurable waits for the page's stylesheets once it is parsed (one that failed before the parse ended tells nothing more). */
export const STYLESHEETS_WAIT_MS = 1000;

/** A function that calls `go` the first time it is called, or `ms` from now if it is not called by then; once either way. */
function onceOrAfter(go: () => void, ms: number): () => void {
  let done = false;
  const once = (): void => {
    if (done) return;
    done = true;
    clearTimeout(timer);
    go();
  };
  const timer = setTimeout(once, ms);
  return once;
}

/**
 * Call `go` once `doc` is parsed and its stylesheets are applied (or failed): the first paint is
 * laid out as the window will be (firstPaintSize); at the latest `waitMs` after the parse (a
 * stylesheet whose load failed before the parse ended has no sheet and fires nothing more). Once.
 */
export function whenMeasurable(doc: Document, go: () => void, waitMs = STYLESHEETS_WAIT_MS): void {
  if (doc.readyState === 'loading') {
    doc.addEventListener('DOMContentLoaded', () => whenMeasurable(doc, go, waitMs), { once: true });
    return;
  }
  const pending = [...doc.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')].filter((l) => !l.sheet);
  let left = pending.length;
  if (left === 0) return go();
  const once = onceOrAfter(go, waitMs);
  const one = (): void => {
    if (--left === 0) once();
  };
  for (const l of pending) {
    l.addEventListener('load', one, { once: true });
    l.addEventListener('error', one, { once: true });
  }
}

/** The longest startScripts waits for a script's preload before starting it anyway (a preload that says nothing). */
export const PRELOAD_WAIT_MS = 1000;

/** The longest the page's scripts wait for the early socket's open once the page is parsed (startScripts). */
export const LATER_SCRIPTS_WAIT_MS = 100;

/**
 * Start the page's scripts the door left inert (common/first-paint.ts `withScriptsLater`,
 * fetched already by their preloads), in their order, each once the one before has run (the
 * vendor script, then the main module): once the page is parsed and its stylesheets applied
 * (as deferred scripts would), and `socket` has opened (its hello sent first), or has closed,
 * or LATER_SCRIPTS_WAIT_MS after that, whichever comes first; without a socket, at once. Each
 * goes through `settled` first (the live first paint's afterTyping: keys typed on it meanwhile
 * echoed there before the script's evaluation, a long task, runs). Once only.
 */
export function startScripts(doc: Document, socket: WebSocket | undefined, waitMs = LATER_SCRIPTS_WAIT_MS, settled: (go: () => void) => void = (go) => go()): void {
  let started = false;
  const start = (): void => {
    if (started) return;
    started = true;
    const later = [...doc.querySelectorAll<HTMLScriptElement>('script[type="text/x-td-later"]')];
    if (later.length) performance.mark('td:scripts');
    // Each once it has come (its preload loaded: its evaluation follows its start at once), then
    // once the keys typed on the first paint meanwhile have their echo drawn (`settled`: live.ts afterTyping).
    const next = (i: number): void => fetched(later[i], () => settled(() => run(i)));
    const run = (i: number): void => {
      const inert = later[i];
      if (!inert?.dataset.src) return;
      const el = doc.createElement('script');
      if (inert.dataset.module === 'true') el.type = 'module';
      if (inert.dataset.crossorigin === 'true') el.crossOrigin = '';
      el.async = false;
      el.addEventListener('load', () => next(i + 1), { once: true });
      el.addEventListener('error', () => next(i + 1), { once: true });
      el.src = inert.dataset.src;
      inert.replaceWith(el);
    };
    next(0);
  };
  /** `go` once the script `inert` stands for has been fetched by its preload (the link before it; withScriptsLater), or failed; at most PRELOAD_WAIT_MS on; at once where there is no such link. */
  const fetched = (inert: HTMLScriptElement | undefined, go: () => void): void => {
    const link = inert?.previousElementSibling as HTMLLinkElement | null | undefined;
    const src = inert?.dataset.src;
    if (!src || !link || link.tagName !== 'LINK' || !/preload/.test(link.rel) || link.getAttribute('href') !== src) return go();
    let url: string;
    try {
      url = new URL(src, doc.baseURI).href;
    } catch {
      return go();
    }
    if (performance.getEntriesByName(url, 'resource').length > 0) return go();
    const once = onceOrAfter(go, PRELOAD_WAIT_MS);
    link.addEventListener('load', once, { once: true });
    link.addEventListener('error', once, { once: true });
  };
  const parsed = (): void => {
    if (!socket || socket.readyState !== 0) return start();
    socket.addEventListener('open', start, { once: true });
    socket.addEventListener('close', start, { once: true });
    setTimeout(start, waitMs);
  };
  // As a deferred script, after the parse and the stylesheets (the window lays itself out, and its terminals fit, as the first paint does).
  whenMeasurable(doc, parsed);
}

if (typeof globalThis !== 'undefined' && !state()) {
  performance.mark('td:early');
  const s: EarlyState = {};
  (globalThis as { __tdEarly?: EarlyState }).__tdEarly = s;
  try {
    const td = typeof window !== 'undefined' ? (window as Window & { td?: Parameters<typeof electronLink>[0] }).td : undefined;
    if (td) s.link = electronLink(td);
    else if (typeof window !== 'undefined' && typeof WebSocket === 'function') {
      s.early = openEarly(defaultWsUrl(), WebSocket, (paneId, current) => firstPaintSize(document, paneId, current), (go) => whenMeasurable(document, go));
      s.snapshotAsks = s.early.snapshotAsks;
      s.link = s.early.live;
      // Keys typed before the socket opened go as soon as it has.
      s.early.socket.addEventListener('open', () => s.flush?.());
    }
    if (typeof document !== 'undefined') liveFirstPaint(document, s, typedInput);
  } finally {
    // The page's scripts, once its socket has opened (the door left them inert: withScriptsLater);
    // started whatever failed above (the window then connects on its own, without the early socket).
    if (typeof document !== 'undefined') startScripts(document, s.early?.socket, LATER_SCRIPTS_WAIT_MS, (go) => (s.settled ? s.settled(go) : go()));
  }
}

/**
 * `cb` hears of each pane a click on the first paint focuses: at once of the last one clicked
 * so far, then as each is. The window calls it once its hello is answered (main.tsx): its
 * store then shows the pane focused that the first paint shows.
 */
export function onFirstPaintFocus(cb: (paneId: string) => void): void {
  const s = state();
  if (!s) return;
  s.onFocus = cb;
  if (s.focused) cb(s.focused);
}

/**
 * Call `go` in a task of its own once the keys typed on the window's first paint have their echo
 * drawn there (live.ts afterTyping; at most HOLD_MAX_MS of holds in all): main.tsx starts
 * React's first render of the window through it, a long task a key and its echo would otherwise
 * wait behind. The check is made in the task before the render's, not when main.tsx runs, so
 * keys that came meanwhile count. Where nothing was typed, `go` runs in the next task.
 */
export function afterFirstPaintTyping(go: () => void): void {
  const settled = state()?.settled;
  if (!settled || typeof MessageChannel !== 'function') return go();
  const ch = new MessageChannel();
  ch.port1.onmessage = () => {
    ch.port1.close();
    settled(go);
  };
  ch.port2.postMessage(null);
}

/**
 * Call `go` now, in this task, or once the keys typed on the window's first paint have their echo
 * drawn there (as afterFirstPaintTyping, without its task first: the caller is in a task of its
 * own already): TerminalRegistry opens the first pane's terminal through it (issue 38).
 */
export function whenFirstPaintTypingSettled(go: () => void): void {
  const settled = state()?.settled;
  if (!settled) return go();
  settled(go);
}

/** The early socket, once: the main bundle's td-client adopts it (undefined in Electron, or when taken). */
export function takeEarly(): EarlySocket | undefined {
  const s = state();
  const e = s?.early;
  if (s) s.early = undefined;
  return e;
}

/**
 * The window's `pane.snapshot` ask for a pane it attaches to (TerminalRegistry.prefetch): the
 * early socket's, as it sent it, where it asked one (td-client then hands over its answer);
 * else at the size the first paint says the pane's terminal will fit to (`firstPaintSize`; the
 * early socket asks only the first pane's when td-client adopts it before that is answered),
 * else without a size (and always so for another machine's pane). `current`: the pane's size in
 * the core (the hello's).
 */
export function attachSnapshotReq(paneId: string, current: PaneSize | undefined): { paneId: string; cols?: number; rows?: number } {
  // The early socket's ask, once (the window's ask that claims its answer); a later ask (a hello after a reconnect) is sized afresh.
  const asks = state()?.snapshotAsks;
  const asked = asks?.get(paneId);
  if (asked) {
    asks!.delete(paneId);
    return asked;
  }
  // Another machine's pane (`name/id`) is asked as before: its size is its home service's to set, by pane.resize.
  if (paneId.includes('/')) return { paneId };
  let size: PaneSize | undefined;
  try {
    size = typeof document !== 'undefined' ? firstPaintSize(document, paneId, current) : undefined;
  } catch {
    size = undefined;
  }
  return sizedSnapshotReq(paneId, size);
}
