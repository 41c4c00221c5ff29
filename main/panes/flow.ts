/**
 * Flow control accounting for one pane, per reader (a window, or the pane's own headless
 * screen): the characters of output each has been sent and not yet acknowledged.
 *
 * - A reader more than the high watermark behind while another reader keeps up is
 *   **dropped**: it is sent nothing more of this pane (`accepts` is false) and never holds
 *   the pane paused. Once it has acknowledged what it had back under the low watermark it
 *   is taken back (`ack` says so) and should redraw from a snapshot.
 * - The PTY pauses only when no reader that is still in the flow can take more (every one
 *   is over the high watermark), and resumes once one is under the low one (hysteresis).
 *   With one window that is the classic behaviour (VS Code's terminal does the same).
 * - With `latency.skipAfterChars`, a long flood skips ahead: once that much output has
 *   been sent with no quiet spell longer than `latency.ms`, a reader it would make full,
 *   and known to read slower than `latency.skipBelowRate`, is dropped rather than holding
 *   the PTY paused, and taken back once it holds less than
 *   `latency.skipBackChars` (it has read nearly all it was sent; the rest is in the
 *   renderer's next acknowledgement). The program then runs at the pace of the pane's
 *   headless screen, which keeps every line; the window redraws from its snapshot. Taken
 *   back, it is sent nothing until that snapshot is taken (`redrawn`: what comes before is
 *   in it, and a page drops it), and from then on it reads at the rate it read the flood at
 *   (left unknown, the first sample held the PTY paused through every redraw). One that does
 *   not ask for its snapshot within `latency.skipRedrawMs` is sent output all the same.
 * - A pane in the background (`background`: it floods while other panes flood, and nobody
 *   looks at it or types into it; PaneService decides) leaves behind at once every reader
 *   not known to keep nearly up (under `latency.skipBelowRate`, or its rate not known yet),
 *   whatever the flood's length: such a window is sent none of the pane's output and redraws
 *   from a snapshot every `latency.backgroundRedrawMs`, taken back and left behind again as in a
 *   long flood (issue 38: 16 floods streamed to one page kept its one thread parsing and
 *   drawing them, and a quiet pane's echo waited behind it). Out of the background, a reader
 *   left behind is taken back as soon as it has caught up (`hurry`).
 * - With `latency`, a reader also counts as full once what it holds would take it more
 *   than `latency.ms` to read at the rate it has been acknowledging (and it holds more than
 *   `latency.minChars`), and as ready again under half that. Until its rate is known (the
 *   first `latency.sampleMs` of a flood after a quiet spell) it may hold
 *   `latency.startChars`; from then on what it may hold follows the rate it acknowledges.
 *   A slow window (a page drawing a flood) holds about `latency.ms` of output, not a
 *   megabyte, from the flood's first burst on: what comes after (the prompt after Ctrl-C,
 *   a keystroke's echo) is about that much behind.
 *
 * Pure: the pane applies the verdicts to its process (docs/design/service.md, "Flow control").
 */
import { FLOW } from '../../preload/contract.ts';

interface Reader {
  name: string;
  unacked: number;
  dropped: boolean;
  /** Dropped by skipping ahead in a long flood (taken back under skipBackChars, not the low watermark), and when. */
  skipped: boolean;
  skippedAt: number;
  /** Taken back from skipping ahead, waiting for its snapshot (sent nothing meanwhile), since when. */
  redrawing: boolean;
  redrawingSince: number;
  /** Characters it acknowledges a millisecond while it has output to read (0: not known yet). */
  rate: number;
  lastAckAt: number;
  /** The sample of its rate being taken: since when, and the characters acknowledged in it. */
  sampleStart: number;
  sampleChars: number;
}

export interface LatencyBound {
  /** How long a reader may take to read what it holds before it counts as full. */
  ms: number;
  /** Below this a reader never counts as full for its latency (a keystroke's echo is never held back). */
  minChars: number;
  /** What a reader whose rate is not known yet may hold (minChars if not given): a flood's first burst. */
  startChars?: number;
  /**
   * A reader's rate is sampled over at least this long (50 ms if not given): a page
   * acknowledges what it parsed in a frame all at once, and the gap between two of those
   * acknowledgements says nothing about how fast it reads.
   */
  sampleMs?: number;
  /** Skip ahead once a flood has sent this much (off when not given); see the header. */
  skipAfterChars?: number;
  /**
   * ...leaving behind only a reader known to read slower than this (characters a
   * millisecond; any known rate if not given): one that keeps nearly up (a window on a fast
   * machine, a program reading the socket) is flow-controlled, and one whose rate is not
   * known yet (just taken back) reads until it is.
   */
  skipBelowRate?: number;
  /** A reader dropped by skipping ahead is taken back once it holds less than this (1 if not given). */
  skipBackChars?: number;
  /**
   * ...and no sooner than this after it was dropped (0 if not given): each time it is taken
   * back it redraws from a snapshot, which costs the core a catch-up of its screen. Until
   * then it waits, caught up (`nextTakeBack`, `takeBack`).
   */
  skipRedrawMs?: number;
  /** ...and in the background (skipRedrawMs if not given): a flood nobody looks at. */
  backgroundRedrawMs?: number;
  /**
   * The windows' output held across a service's panes (WindowShares): a window that holds
   * output of several panes shares `minChars`, `startChars` and what it reads in `ms` among
   * them, never going under `shareFloorChars` a pane. Without it each pane's floor was its own: 16 floods let one
   * page hold 16 x 128 KiB, and a quiet pane's echo waited behind ~2 MB on the page's one
   * socket (issue 38).
   */
  shares?: WindowShares;
  /** The least a pane's share may be (what lets the renderer acknowledge: FLOW.ackChunkChars and more). */
  shareFloorChars?: number;
  now?: () => number;
}

/**
 * Which panes hold unacknowledged output for each window, across a service's panes (one
 * FlowMeter a pane): how many the window's floor is shared among.
 */
export class WindowShares {
  private readonly holding = new Map<string, Set<object>>();

  /** The pane (its meter) holds output for the reader now, or holds none. */
  set(reader: string, meter: object, holds: boolean): void {
    let s = this.holding.get(reader);
    if (holds) {
      if (!s) this.holding.set(reader, (s = new Set()));
      s.add(meter);
    } else if (s) {
      s.delete(meter);
      if (s.size === 0) this.holding.delete(reader);
    }
  }

  /** Panes holding output for the reader (at least 1), `meter`'s pane among them (it is about to hold some) when given. */
  count(reader: string, meter?: object): number {
    const s = this.holding.get(reader);
    return Math.max(1, (s?.size ?? 0) + (meter && !s?.has(meter) ? 1 : 0));
  }
}

export class FlowMeter {
  private readonly readers = new Map<string, Reader>();
  private paused = false;
  private readonly high: number;
  private readonly low: number;
  private readonly latency: LatencyBound | undefined;
  private readonly now: () => number;
  /** Characters sent in the current flood (since the last quiet spell longer than latency.ms), and when the last was sent. */
  private run = 0;
  private lastSentAt = -Infinity;
  /** The pane floods in the background (see the header): its slow readers only redraw. */
  private bg = false;

  constructor(high: number = FLOW.highWatermarkChars, low: number = FLOW.lowWatermarkChars, latency?: LatencyBound) {
    this.high = high;
    this.low = low;
    this.latency = latency;
    this.now = latency?.now ?? (() => performance.now());
  }

  /** A reader that must keep up from now on. */
  attach(reader: string): void {
    if (!this.readers.has(reader)) this.readers.set(reader, { name: reader, unacked: 0, dropped: false, skipped: false, skippedAt: 0, redrawing: false, redrawingSince: 0, rate: 0, lastAckAt: 0, sampleStart: 0, sampleChars: 0 });
  }

  /** A reader went away: it no longer holds the pane paused. */
  detach(reader: string): void {
    this.readers.delete(reader);
    this.latency?.shares?.set(reader, this, false);
  }

  /** Tell the window's shares whether this pane holds output for it now (a flood in the background counts as holding: it would, if it were sent). */
  private held(name: string, r: Reader): void {
    this.latency?.shares?.set(name, this, r.unacked > 0 || this.bg);
  }

  get background(): boolean {
    return this.bg;
  }

  /**
   * In the background or out of it (see the header). A flood in the background still counts
   * among its windows' shares (WindowShares): a pane taken out of it among other floods (the
   * one focused to type Ctrl-C into) holds a share of the window's floor, not all of it, so
   * what it holds when the prompt comes is what it did before (issue 38).
   */
  set background(on: boolean) {
    if (on === this.bg) return;
    this.bg = on;
    for (const [name, r] of this.readers) this.held(name, r);
  }

  has(reader: string): boolean {
    return this.readers.has(reader);
  }

  /** Whether output should be sent to this reader (false only while it is dropped). */
  accepts(reader: string): boolean {
    return this.readers.get(reader)?.dropped !== true;
  }

  /** Whether the reader is left out of the flow now. */
  dropped(reader: string): boolean {
    return this.readers.get(reader)?.dropped === true;
  }

  /**
   * Output about to be sent to every reader in the flow. A reader it would put over the
   * high watermark while another reader stays under it is dropped first (and not charged:
   * it will not be sent this output), and so is one it would make full in a long flood
   * (`latency.skipAfterChars`). Returns the readers dropped now.
   */
  sent(chars: number): string[] {
    this.overdue();
    const live = [...this.readers.entries()].filter(([, r]) => !r.dropped);
    const keepsUp = live.some(([, r]) => r.unacked + chars <= this.high);
    const skipping = this.flood(chars);
    const droppedNow: string[] = [];
    for (const [name, r] of live) {
      if (keepsUp && r.unacked + chars > this.high) {
        r.dropped = true;
        droppedNow.push(name);
      } else if ((skipping && this.slow(r) && this.full(r, chars)) || (this.bg && !this.fast(r))) {
        r.dropped = true;
        r.skipped = true;
        r.skippedAt = this.now();
        droppedNow.push(name);
      } else {
        if (r.unacked === 0 && this.latency) this.startReading(r, this.latency);
        r.unacked += chars;
        if (r.unacked === chars) this.held(name, r);
      }
    }
    return droppedNow;
  }

  /** The reader parsed this much. True when a dropped reader has caught up and is back in the flow. */
  ack(reader: string, chars: number): boolean {
    const r = this.readers.get(reader);
    if (!r || !(chars > 0)) return false;
    if (this.latency) {
      const t = this.now();
      // Its reading rate, sampled while it had output waiting (not while it was idle).
      if (r.unacked > 0 && r.sampleStart > 0) {
        r.sampleChars += chars;
        const span = t - r.sampleStart;
        if (span >= (this.latency.sampleMs ?? 50)) {
          const rate = r.sampleChars / span;
          r.rate = r.rate > 0 ? 0.5 * r.rate + 0.5 * rate : rate;
          r.sampleStart = t;
          r.sampleChars = 0;
        }
      }
      r.lastAckAt = t;
    }
    r.unacked = Math.max(0, r.unacked - chars);
    if (r.unacked === 0) this.held(reader, r);
    // (A late acknowledgement of what it read before it was taken back.)
    if (r.redrawing) return false;
    if (r.skipped) return this.due(r, this.now()) && this.back(r);
    if (r.dropped && r.unacked < this.low) return this.back(r);
    return false;
  }

  /** A reader dropped by skipping ahead that has read what it held: taken back when its time comes. */
  private caughtUp(r: Reader): boolean {
    return r.skipped && r.unacked < (this.latency?.skipBackChars ?? 1);
  }

  /** A reader dropped by skipping ahead that has caught up and waited skipRedrawMs since it was dropped (at `t`). */
  private due(r: Reader, t: number): boolean {
    return this.caughtUp(r) && t - r.skippedAt >= this.redrawMs();
  }

  /** Back in the flow: one dropped by skipping ahead waits for its snapshot first (redrawn). */
  private back(r: Reader): true {
    r.unacked = 0;
    this.released(r);
    if (r.skipped) {
      r.skipped = false;
      r.redrawing = true;
      r.redrawingSince = this.now();
      return true;
    }
    r.dropped = false;
    return true;
  }

  /**
   * The reader's snapshot is being taken (it holds all output sent so far): a reader taken
   * back from skipping ahead is sent output from now on, read at the rate it read the flood
   * at. A new sample of that rate starts now (the wait was not reading). True when it was
   * waiting for this snapshot.
   */
  redrawn(reader: string): boolean {
    const r = this.readers.get(reader);
    if (!r?.redrawing) return false;
    this.into(r);
    return true;
  }

  private into(r: Reader): void {
    const t = this.now();
    r.redrawing = false;
    r.dropped = false;
    r.unacked = 0;
    this.released(r);
    r.lastAckAt = t;
    r.sampleStart = t;
    r.sampleChars = 0;
  }

  /** Readers taken back that have not asked for their snapshot in skipRedrawMs: sent output all the same (a client that does not redraw, a snapshot that failed). */
  private overdue(): void {
    // (On every batch: the clock is read only for a reader that waits.)
    for (const r of this.readers.values()) if (r.redrawing && this.now() - r.redrawingSince >= (this.latency?.skipRedrawMs ?? 0)) this.into(r);
  }

  /** Milliseconds until a reader dropped by skipping ahead, caught up now, may be taken back (undefined: none waits). */
  nextTakeBack(): number | undefined {
    let next: number | undefined;
    const t = this.now();
    for (const r of this.readers.values()) {
      if (!this.caughtUp(r)) continue;
      const wait = r.skippedAt === -Infinity ? 0 : Math.max(0, r.skippedAt + this.redrawMs() - t);
      next = next === undefined ? wait : Math.min(next, wait);
    }
    return next;
  }

  /** Whether any reader is left behind by skipping ahead now. */
  skipping(): boolean {
    for (const r of this.readers.values()) if (r.skipped) return true;
    return false;
  }

  /**
   * Input came, or the flood went quiet: readers left behind by skipping ahead need not wait
   * out `skipRedrawMs` (those caught up can be taken back at once: `takeBack`; the others on
   * the acknowledgement that catches them up).
   */
  hurry(): void {
    for (const r of this.readers.values()) if (r.skipped) r.skippedAt = -Infinity;
  }

  /** Take back every reader dropped by skipping ahead that has caught up and waited its time; returns them (each should redraw). */
  takeBack(): string[] {
    const t = this.now();
    const back: string[] = [];
    for (const [name, r] of this.readers) {
      if (this.due(r, t)) {
        this.back(r);
        back.push(name);
      }
    }
    return back;
  }

  behind(reader: string): number {
    return this.readers.get(reader)?.unacked ?? 0;
  }

  /** Forget what was outstanding (a restarted process starts clean). */
  reset(): void {
    for (const [name, r] of this.readers) {
      r.unacked = 0;
      this.held(name, r);
      r.lastAckAt = 0;
      r.sampleStart = 0;
      r.sampleChars = 0;
    }
    this.paused = false;
  }

  /**
   * A reader that had nothing to read is sent output. After a spell longer than
   * `latency.ms` its rate is forgotten and sampled afresh from now (the spell is not slow
   * reading): this output may be read at another pace than the last (a page draws the
   * lines of a `cat` faster than the two-character lines of `yes`), and a rate carried over
   * from a faster flood would let it hold that flood's allowance. A shorter spell (a reader
   * that keeps up catches up between batches) changes nothing.
   */
  private startReading(r: Reader, l: LatencyBound): void {
    const t = this.now();
    if (r.sampleStart === 0 || t - r.lastAckAt > l.ms) {
      r.rate = 0;
      r.sampleStart = t;
      r.sampleChars = 0;
    }
  }

  /** A reader's share of a floor: the floor over the panes holding output for it (WindowShares), never under shareFloorChars. */
  private share(r: Reader, chars: number): number {
    const s = this.latency?.shares;
    if (!s) return chars;
    return Math.max(Math.min(chars, this.latency?.shareFloorChars ?? 0), chars / s.count(r.name, this));
  }

  /** A reader holds nothing now: it no longer counts among the window's shares (unless the pane is in the background). */
  private released(r: Reader): void {
    this.latency?.shares?.set(r.name, this, this.bg);
  }

  /** What a reader may hold before it counts as full for its latency: what it reads in `latency.ms`, or `startChars` until that is known (floors shared: WindowShares). */
  private allowance(r: Reader, l: LatencyBound): number {
    return r.rate > 0 ? Math.max(this.share(r, l.minChars), this.share(r, r.rate * l.ms)) : this.share(r, l.startChars ?? l.minChars);
  }

  /** Whether this reader can take no more (with `more` sent to it): over the high watermark, or (latency) holding more than its allowance. */
  private full(r: Reader, more = 0): boolean {
    const held = r.unacked + more;
    if (held > this.high) return true;
    const l = this.latency;
    return !!l && held > this.allowance(r, l);
  }

  /** Whether a reader reads slowly enough to be left behind in a long flood: its rate known, and under skipBelowRate. */
  private slow(r: Reader): boolean {
    return r.rate > 0 && r.rate < (this.latency?.skipBelowRate ?? Infinity);
  }

  /** How long a reader left behind waits to be taken back (and redraw): skipRedrawMs, or backgroundRedrawMs in the background. */
  private redrawMs(): number {
    return (this.bg ? this.latency?.backgroundRedrawMs : undefined) ?? this.latency?.skipRedrawMs ?? 0;
  }

  /** Whether a reader is known to read nearly as fast as the core (a program acknowledging at once): never left behind in the background. */
  private fast(r: Reader): boolean {
    return r.rate >= (this.latency?.skipBelowRate ?? Infinity);
  }

  /** Count output sent; true once the flood it belongs to is long enough to skip ahead in. */
  private flood(chars: number): boolean {
    const l = this.latency;
    if (l?.skipAfterChars === undefined) return false;
    const t = this.now();
    if (t - this.lastSentAt > l.ms) this.run = 0;
    this.lastSentAt = t;
    this.run += chars;
    return this.run > l.skipAfterChars;
  }

  /** Whether a reader that was full can take more again: under the low watermark and (latency) under half its allowance (under minChars once its rate is known). */
  private ready(r: Reader): boolean {
    if (r.unacked >= this.low) return false;
    const l = this.latency;
    if (!l) return true;
    return r.rate > 0 ? r.unacked < Math.max(this.share(r, l.minChars), this.share(r, r.rate * l.ms) / 2) : r.unacked < this.allowance(r, l) / 2;
  }

  /**
   * Whether `more` characters sent now would leave every reader in the flow full (the PTY
   * would pause after them): the pane sends its batch then, not after FLOW.batchMs or 64 KiB,
   * so a window holds at most its allowance and a read more. A batch of 46 KB of `yes` went to
   * a page whose share of 16 floods was 16 KiB, and the prompt after Ctrl-C waited ~150 ms
   * for the page to parse it (issue 38). False with no reader in the flow.
   */
  fills(more: number): boolean {
    let live = false;
    for (const r of this.readers.values()) {
      if (r.dropped) continue;
      live = true;
      if (!this.full(r, more)) return false;
    }
    return live;
  }

  /**
   * Whether the PTY should be paused now, with hysteresis: pause when every reader in the
   * flow is over the high watermark, stay paused until one is under the low one.
   */
  shouldPause(): boolean {
    // Asked at every read of the PTY: one pass, nothing allocated (the arrays and closures
    // this made were ~4% of what a flood allocated in the service).
    let live = false;
    // Not paused: whether every reader is full; paused: whether none is ready.
    let all = true;
    for (const r of this.readers.values()) {
      if (r.dropped) continue;
      live = true;
      if (this.paused ? this.ready(r) : !this.full(r)) {
        all = false;
        break;
      }
    }
    if (!live) this.paused = false;
    else if (!this.paused && all) this.paused = true;
    else if (this.paused && !all) this.paused = false;
    return this.paused;
  }
}
