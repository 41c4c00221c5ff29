/**
 * Snapshots a window asks for when it attaches (or reconnects), a few at a time, the
 * focused pane first: with many panes flooding, the pane a person looks at is drawn
 * first and its live output resumes at once (docs/design/service.md, "Snapshots on attach").
 */
import type { Res } from '../../preload/contract.ts';

/**
 * A snapshot asked for before the pane's terminal was made, and the output that came for the
 * pane since: `dropped` characters between the ask and the answer (they may or may not be in
 * it: the terminal asks again), and `after` the answer, kept in order (at most
 * PREFETCH_AFTER_MAX characters; past that they count as dropped) for the terminal to write
 * after the snapshot: the prompt a shell draws again once the snapshot's ask resized its pane
 * comes right after the answer, before the terminal exists.
 */
export interface Prefetched {
  answer: Promise<Res<'pane.snapshot'> | undefined>;
  dropped: number;
  answered?: boolean;
  after?: string[];
  afterChars?: number;
}

/** Output kept after a prefetched snapshot's answer, at most (characters), for its terminal to write. */
export const PREFETCH_AFTER_MAX = 64 * 1024;

interface Job {
  priority: () => number;
  run: () => Promise<void>;
}

export class SnapshotQueue {
  private readonly waiting: Job[] = [];
  private running = 0;
  private readonly concurrency: number;

  constructor(concurrency = 2) {
    this.concurrency = concurrency;
  }

  /** Run `fn` when its turn comes; lower `priority()` goes first (read when a slot frees). */
  run<T>(priority: () => number, fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ priority, run: () => fn().then(resolve, reject) });
      this.next();
    });
  }

  get pending(): number {
    return this.waiting.length;
  }

  private next(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      let best = 0;
      for (let i = 1; i < this.waiting.length; i++) if (this.waiting[i].priority() < this.waiting[best].priority()) best = i;
      const [job] = this.waiting.splice(best, 1);
      this.running++;
      void job.run().finally(() => {
        this.running--;
        this.next();
      });
    }
  }
}
