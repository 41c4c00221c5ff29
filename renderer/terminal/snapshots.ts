/**
 * Snapshots a window asks for when it attaches (or reconnects), a few at a time, the
 * focused pane first: with many panes flooding, the pane a person looks at is drawn
 * first and its live output resumes at once (docs/design/service.md, "Snapshots on attach").
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
