/**
 * Every pane's terminal in this window, by pane id. Output for a pane without a
 * terminal here (not in the layout, or not drawn yet) is acknowledged at once, so
 * this window never holds a pane's PTY paused.
 *
 * A window attaching asks for its focused pane's snapshot as soon as its hello is answered
 * (`prefetch`), while React and xterm still build the window: the terminal then draws that
 * snapshot instead of asking and waiting. Output that came for the pane after the ask is
 * counted; the terminal asks again when there was any (it may have come after the answer).
 */
import type { TdApi } from '../../preload/contract.ts';
import { Acker, acknowledge } from './flow.ts';
import type { TerminalSession } from './session.ts';
import { PREFETCH_AFTER_MAX, type Prefetched, SnapshotQueue } from './snapshots.ts';
import { attachSnapshotReq, whenFirstPaintTypingSettled } from '../early.ts';
import { WebglPool } from './webgl-pool.ts';
import { afterFrame, pageFrame } from '../after-frame.ts';

/** Snapshots a window has asked for and not yet been answered, at most (issue 38, item 4). */
export const SNAPSHOTS_AT_ONCE = 8;
/**
 * A window attaching opens its first pane's terminal (the focused one) at once and the others
 * once that one has drawn its snapshot, or this long after, whichever comes first: the pane keys
 * go to is live before the rest are built (the door's first paint shows theirs meanwhile).
 */
export const OPEN_REST_AFTER_MS = 250;

/** A terminal opened by `opening` and not started yet. */
export interface Opened {
  measureFit(): void;
  start(): void;
}

/** The longest turn of the page's thread the window's other terminals take at once (openRest). */
export const TURN_MS = 8;

/** How long after a key the window's other terminals are opened in turns (TURN_MS) rather than at once: its echo may be on its way. */
export const TYPING_MS = 100;

/** Whether a key (or a click) waits for the page's thread (Chromium's isInputPending; elsewhere, never said). */
function inputWaits(): boolean {
  const s = (globalThis.navigator as { scheduling?: { isInputPending?(): boolean } } | undefined)?.scheduling;
  return typeof s?.isInputPending === 'function' && s.isInputPending();
}

/** When this page last handled a key (on the door's first paint or in a terminal), -Infinity before any. */
let lastKeyAt = -Infinity;
globalThis.addEventListener?.('keydown', () => { lastKeyAt = performance.now(); }, { capture: true, passive: true });

/**
 * A task of its own, after the page's other work: `scheduler.postTask` at 'background' priority
 * where there is one (Chromium: keys, socket messages and frames go first), else a message to
 * itself (behind what is queued already).
 */
export function laterTurn(): Promise<void> {
  const s = (globalThis as { scheduler?: { postTask?(f: () => void, o: { priority: string }): Promise<unknown> } }).scheduler;
  if (typeof s?.postTask === 'function') return s.postTask(() => undefined, { priority: 'background' }).then(() => undefined);
  return new Promise((resolve) => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => {
      ch.port1.close();
      resolve();
    };
    ch.port2.postMessage(null);
  });
}

export class TerminalRegistry {
  private readonly sessions = new Map<string, TerminalSession>();
  private readonly prefetched = new Map<string, Prefetched>();
  private readonly strayAckers = new Map<string, Acker>();
  /** Panes whose terminal has drawn its first snapshot, and who waits to hear of the next. */
  private readonly drawnPanes = new Set<string>();
  private readonly drawnListeners = new Set<() => void>();
  /** Who waits to hear that a pane's terminal was opened (put into the page: it can take the keyboard now). */
  private readonly openedListeners = new Set<(paneId: string) => void>();
  private readonly api: TdApi;
  /**
   * Snapshots of this window's panes, SNAPSHOTS_AT_ONCE at a time, the focused pane first (two
   * at a time, a window of 32 panes waited ~1 s for their round trips one pair after another).
   */
  readonly snapshots = new SnapshotQueue(SNAPSHOTS_AT_ONCE);
  /** Which of this window's terminals draw with WebGL (at most WEBGL_POOL_SIZE at once). */
  readonly webgl = new WebglPool();

  /** Terminals waiting to be opened until the first pane has drawn (`opening`). */
  private readonly openWaiting = new Map<string, (start: boolean) => Opened | void>();
  private openTimer: ReturnType<typeof setTimeout> | undefined;
  private restOpened = false;
  /** The rest are opened in the next task (paneDrawn). */
  private restSoon = false;

  /** What the other terminals wait for before they are opened (main.tsx: the panes' held headers shown, panes/reveal.ts). */
  beforeRest: (() => Promise<void>) | undefined;
  /**
   * What the first pane's terminal, opened after the frame (`opening` 'after-frame'), waits for
   * then: keys typed on the door's first paint meanwhile have their echo drawn there (early.ts
   * whenFirstPaintTypingSettled: live.ts afterTyping, within the window's one hold budget), so its open
   * and its snapshot's parse, tasks a key waits behind, do not come between a burst of keys and
   * their echo (issue 38). At once where nothing was typed.
   */
  firstOpenGate: (go: () => void) => void = whenFirstPaintTypingSettled;

  constructor(api: TdApi) {
    this.api = api;
  }

  /**
   * Open a pane's terminal (`open`): at once for the window's first pane (`first`) and for every
   * pane once the window has drawn one; the first pane in a task after the next frame instead
   * (`'after-frame'`: the door's first paint shows it, and answers keys, meanwhile; the commit's
   * task ends sooner, and the glyph measure of xterm's open finds the page laid out), once keys
   * typed on the first paint by then have their echo drawn there (`firstOpenGate`); else once
   * the first has drawn (in the task after that frame), or OPEN_REST_AFTER_MS after the first
   * that waits, and once `beforeRest` has resolved (`openRest`: in one go, or in short turns while
   * someone types): each opened (`open(false)`), then each measured, then each started, so the
   * page is laid out once for them all, not once a terminal. Returns the cancel (the pane view
   * went away).
   */
  opening(paneId: string, first: boolean | 'after-frame', open: (start: boolean) => Opened | void): () => void {
    if (first === 'after-frame' && !this.restOpened) {
      // The door's first paint shows this pane (live, answering keys): its terminal is opened in a
      // task of its own after the frame of React's commit, not in the commit's task (issue 38).
      let cancelled = false;
      afterFrame(() => {
        if (!cancelled) this.firstOpenGate(() => {
          if (!cancelled) open(true);
        });
      }, pageFrame);
      return () => {
        cancelled = true;
      };
    }
    if (first || this.restOpened) {
      open(true);
      return () => {};
    }
    this.openWaiting.set(paneId, open);
    this.openTimer ??= setTimeout(() => void this.openRest(), OPEN_REST_AFTER_MS);
    return () => {
      if (this.openWaiting.get(paneId) === open) this.openWaiting.delete(paneId);
    };
  }

  /** Whether a pane's terminal waits to be opened (`opening`). */
  waitsToOpen(paneId: string): boolean {
    return this.openWaiting.has(paneId);
  }

  /**
   * The waiting terminals opened, then all measured (one layout of the page for them all), then
   * started. While someone types (a keydown within TYPING_MS) in turns of at most TURN_MS, the
   * next a task of its own behind what else the page has to do (`laterTurn`: keys, socket
   * messages, frames first); a turn also ends at once when input waits (`inputWaits`); else in one
   * go. In one task of 90-150 ms (until 2026-12-06) a key typed meanwhile, its echo, and the frame
   * that shows the focused terminal waited for all 31 of a 32-pane window; turns when nobody types
   * made the first window (every pane resized) 100-300 ms slower (docs/spec/performance.md).
   */
  private async openRest(): Promise<void> {
    if (this.restOpened) return;
    this.restOpened = true;
    clearTimeout(this.openTimer);
    // The window's first render in pieces: the panes' headers come first (panes/reveal.ts).
    if (this.beforeRest) await this.beforeRest();
    let turn = performance.now();
    const yieldIfDue = async (): Promise<void> => {
      const now = performance.now();
      if (!inputWaits() && (now - turn < TURN_MS || now - lastKeyAt > TYPING_MS)) return;
      await laterTurn();
      turn = performance.now();
    };
    const opened: Opened[] = [];
    // Taken one at a time: a pane view gone meanwhile (its cancel) is not opened.
    for (let next = this.openWaiting.entries().next(); !next.done; next = this.openWaiting.entries().next()) {
      this.openWaiting.delete(next.value[0]);
      const o = next.value[1](false);
      if (o) opened.push(o);
      if (this.openWaiting.size > 0) await yieldIfDue();
    }
    if (opened.length === 0) return;
    await yieldIfDue();
    for (const o of opened) o.measureFit();
    for (const [i, o] of opened.entries()) {
      if (i > 0) await yieldIfDue();
      o.start();
    }
  }

  /** Ask for a pane's snapshot now, for its terminal to draw once made (nothing when it has one); resolves once answered. `current`: the pane's size in the core (the hello's). */
  prefetch(paneId: string, current?: { cols: number; rows: number }): Promise<unknown> {
    if (this.sessions.has(paneId)) return Promise.resolve();
    const known = this.prefetched.get(paneId);
    if (known) return known.answer;
    // A failed ask is no answer: the terminal asks itself. At the size the first paint says its
    // terminal will fit to (`current`: the pane's size in the core), as the early socket asked it
    // where it did (td-client hands over that answer): early.ts, attachSnapshotReq.
    const p: Prefetched = { answer: this.api.invoke('pane.snapshot', attachSnapshotReq(paneId, current)).catch(() => undefined), dropped: 0 };
    p.answer = p.answer.then((res) => {
      // A failed ask is forgotten (a later hello asks again), and output after it is not kept: the terminal's own snapshot has it.
      if (res === undefined) {
        if (this.prefetched.get(paneId) === p) this.prefetched.delete(paneId);
      } else p.answered = true;
      return res;
    });
    this.prefetched.set(paneId, p);
    return p.answer;
  }

  /** The pane's prefetched snapshot, once (its terminal's first draw). */
  takePrefetched(paneId: string): Prefetched | undefined {
    const p = this.prefetched.get(paneId);
    this.prefetched.delete(paneId);
    return p;
  }

  get(paneId: string): TerminalSession | undefined {
    return this.sessions.get(paneId);
  }

  ensure(paneId: string, make: () => TerminalSession): TerminalSession {
    let s = this.sessions.get(paneId);
    if (!s) {
      s = make();
      this.sessions.set(paneId, s);
      this.strayAckers.get(paneId)?.flush();
      this.strayAckers.delete(paneId);
    }
    return s;
  }

  /**
   * A pane's terminal drew its first snapshot (TerminalSession's onDrawn, in the frame that draws
   * it). The others are opened in the task after it, once that frame is painted: opened within it,
   * their long task held the first pane's rows off the screen until all were made.
   */
  paneDrawn(paneId: string): void {
    this.drawnPanes.add(paneId);
    if (!this.restOpened && !this.restSoon) {
      clearTimeout(this.openTimer);
      this.restSoon = true;
      setTimeout(() => void this.openRest(), 0);
    }
    for (const f of [...this.drawnListeners]) f();
  }

  /** Whether every one of these panes' terminals has drawn its first snapshot. */
  allDrawn(paneIds: Iterable<string>): boolean {
    for (const id of paneIds) if (!this.drawnPanes.has(id)) return false;
    return true;
  }

  /** Called each time a pane's terminal draws its first snapshot; returns the unsubscribe. */
  onDrawn(f: () => void): () => void {
    this.drawnListeners.add(f);
    return () => this.drawnListeners.delete(f);
  }

  /** A pane's terminal was opened into the page (PaneView, after its attach): it can take the keyboard from now on. */
  paneOpened(paneId: string): void {
    for (const f of [...this.openedListeners]) f(paneId);
  }

  /** Called each time a pane's terminal is opened into the page; returns the unsubscribe. */
  onOpened(f: (paneId: string) => void): () => void {
    this.openedListeners.add(f);
    return () => this.openedListeners.delete(f);
  }

  all(): TerminalSession[] {
    return [...this.sessions.values()];
  }

  output(paneId: string, data: string): void {
    const s = this.sessions.get(paneId);
    if (s) {
      s.output(data);
      return;
    }
    const pre = this.prefetched.get(paneId);
    // After the answer: not in the snapshot, kept for the terminal to write after it (within bounds).
    if (pre?.answered && (pre.afterChars ?? 0) + data.length <= PREFETCH_AFTER_MAX) {
      (pre.after ??= []).push(data);
      pre.afterChars = (pre.afterChars ?? 0) + data.length;
    } else if (pre) pre.dropped += data.length;
    let a = this.strayAckers.get(paneId);
    if (!a) {
      a = new Acker((chars) => acknowledge(this.api, paneId, chars));
      this.strayAckers.set(paneId, a);
    }
    a.written(data.length);
    // A pane out of view gets its debt cleared right away, chunk or not.
    a.flush();
  }

  /** Drop terminals of panes that are no longer shown. */
  keepOnly(paneIds: Iterable<string>): void {
    const keep = new Set(paneIds);
    for (const id of this.prefetched.keys()) if (!keep.has(id)) this.prefetched.delete(id);
    for (const [id, s] of this.sessions) {
      if (!keep.has(id)) {
        s.dispose();
        this.sessions.delete(id);
      }
    }
  }

  removed(paneId: string): void {
    this.sessions.get(paneId)?.dispose();
    this.sessions.delete(paneId);
    this.strayAckers.delete(paneId);
    this.prefetched.delete(paneId);
    this.drawnPanes.delete(paneId);
  }
}
