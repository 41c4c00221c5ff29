/**
 * Snapshots a window asks for when it attaches (or reconnects), a few at a time, the
 * focused pane first: with many panes flooding, the pane a person looks at is drawn
 * first and its live output resumes at once (docs/design/service.md, "Snapshots on attach").
 *
 * Keys typed into a pane hold the other panes' snapshots (a flood in the background redrawn,
 * about once a second each) until that pane's answer has been drawn, at most ECHO_HOLD_MS:
 * neither asked for (the core serializes a screen) nor drawn (a reset, a parse, a fit, the
 * rows) while the echo is on its way (issue 38, a quiet pane's echo beside 16 floods).
 */
import type { Res } from '../../preload/contract.ts';

/** A snapshot asked for before the pane's terminal was made, and the output characters that came for the pane since. */
export interface Prefetched {
  answer: Promise<Res<'pane.snapshot'> | undefined>;
  dropped: number;
}

interface Job {
  priority: () => number;
  run: () => Promise<void>;
  paneId?: string;
  queuedAt: number;
}

/** How long keys typed into a pane hold other panes' snapshots at most, waiting for its echo. */
export const ECHO_HOLD_MS = 100;
/** A snapshot is held back by keys at most this long in all (one typed into while keys keep coming still draws). */
export const ECHO_HOLD_MAX_MS = 300;

export interface SnapshotQueueOptions {
  /** Calls `f` once the next frame has begun (in the task after requestAnimationFrame's; a timer where there is none). */
  afterFrame?: (f: () => void) => void;
  now?: () => number;
}

export class SnapshotQueue {
  private readonly waiting: Job[] = [];
  private running = 0;
  private readonly concurrency: number;
  private readonly afterFrame: (f: () => void) => void;
  private readonly now: () => number;
  /** The pane keys were typed into whose echo is awaited (`hold` tells one key's hold from the next). */
  private heldFor: { paneId: string; hold: number } | undefined;
  private holds = 0;
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly openWaiters: Array<() => void> = [];

  constructor(concurrency = 2, opts: SnapshotQueueOptions = {}) {
    this.concurrency = concurrency;
    // The task after the frame has begun: the echo's rows are drawn before the snapshots' work.
    this.afterFrame = opts.afterFrame ?? ((f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => setTimeout(f, 0)) : setTimeout(f, 16)));
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * Run `fn` when its turn comes; lower `priority()` goes first (read when a slot frees). A job
   * of another pane than `paneId` waits while keys typed into a pane await their echo (`typed`).
   */
  run<T>(priority: () => number, fn: () => Promise<T>, paneId?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ priority, run: () => fn().then(resolve, reject), paneId, queuedAt: this.now() });
      this.next();
    });
  }

  /** Keys were sent to `paneId`: other panes' snapshots wait until its output has been drawn (`answered`), ECHO_HOLD_MS at most. */
  typed(paneId: string): void {
    const hold = ++this.holds;
    this.heldFor = { paneId, hold };
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = setTimeout(() => this.release(hold), ECHO_HOLD_MS);
  }

  /** Output came for `paneId`: if keys typed into it hold the others, they go once the frame that draws it has begun. */
  answered(paneId: string): void {
    const held = this.heldFor;
    if (!held || held.paneId !== paneId) return;
    this.afterFrame(() => this.release(held.hold));
  }

  /**
   * Resolves when a snapshot of `paneId` that has come may be drawn: at once, unless keys typed
   * into another pane await their echo (then when that is drawn; ECHO_HOLD_MAX_MS at most).
   */
  drawable(paneId?: string): Promise<void> {
    if (!this.holding(paneId, this.now())) return Promise.resolve();
    return new Promise<void>((go) => {
      this.openWaiters.push(go);
      setTimeout(go, ECHO_HOLD_MAX_MS);
    });
  }

  get pending(): number {
    return this.waiting.length;
  }

  /** Whether a job of `paneId` queued at `since` waits for another pane's echo now. */
  private holding(paneId: string | undefined, since: number): boolean {
    const held = this.heldFor;
    return held !== undefined && held.paneId !== paneId && this.now() - since < ECHO_HOLD_MAX_MS;
  }

  private release(hold: number): void {
    if (this.heldFor?.hold !== hold) return;
    this.heldFor = undefined;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    for (const go of this.openWaiters.splice(0)) go();
    this.next();
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      let best = -1;
      for (let i = 0; i < this.waiting.length; i++) {
        const job = this.waiting[i];
        if (this.holding(job.paneId, job.queuedAt)) continue;
        if (best < 0 || job.priority() < this.waiting[best].priority()) best = i;
      }
      if (best < 0) {
        this.recheck();
        return;
      }
      const [job] = this.waiting.splice(best, 1);
      this.running++;
      void job.run().finally(() => {
        this.running--;
        this.next();
      });
    }
  }

  private recheckTimer: ReturnType<typeof setTimeout> | undefined;

  /** Jobs held back: looked at again when the oldest has waited ECHO_HOLD_MAX_MS (a release looks at once). */
  private recheck(): void {
    if (this.recheckTimer) return;
    const oldest = Math.min(...this.waiting.map((j) => j.queuedAt));
    this.recheckTimer = setTimeout(() => {
      this.recheckTimer = undefined;
      this.next();
    }, Math.max(0, oldest + ECHO_HOLD_MAX_MS - this.now()) + 1);
  }
}
