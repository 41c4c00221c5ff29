/**
 * The output governor: when more panes flood at once than `running`, they take turns.
 *
 * Time is cut in slices (the PaneService calls `slice()` every few milliseconds while
 * output comes). A pane that wrote at least `bulkChars` in a slice is *bulk*. While more
 * panes are bulk than `running`, only `running` of them read their PTY in the next slice
 * and the others are *paced*: their PTY is paused, so their program blocks on its full
 * PTY and leaves the CPU (16 `yes` reading at once kept the 2 cores busy in the kernel's
 * tty code and the service's loop 16 reads deep, and a quiet pane's echo waited ~30 ms,
 * p99 ~70). The turns go round: the panes that ran go to the back of the line. A paced
 * pane counts as bulk until it has had a turn and written less than `bulkChars` in it.
 *
 * Never paced: a pane that writes little (an echo, a prompt, an agent's answer), and a
 * pane given input (`input`: it reads at once, so the prompt after Ctrl-C is not held
 * back by its turn). One pane flooding alone, or `running` of them, are never paced.
 *
 * Pure: the PaneService applies the verdicts (Pane.pace), and a pane's PTY reads only when
 * neither flow control nor the governor holds it (main/panes/pane.ts).
 */

export interface GovernorOptions {
  /** Bulk panes that read at once (the others wait their turn). */
  running: number;
  /** What a pane writes in one slice to count as bulk. */
  bulkChars: number;
}

/**
 * One bulk pane reads at a time, in turns of 20 ms (16 panes: each reads 20 ms in 320), and
 * a pane writing 16 KB in a turn (800 KB/s: a flood, not an agent's answer or a prompt) is
 * bulk. Measured with 16 `yes` and a quiet `cat` on 2 busy cores (bench/service.bench.ts).
 */
export const GOVERNOR = { running: 1, sliceMs: 20, bulkChars: 16_384 } as const;

export class OutputGovernor {
  private readonly running: number;
  private readonly bulkChars: number;
  /** Characters each pane wrote in this slice. */
  private readonly counts = new Map<string, number>();
  /** Panes waiting their turn now. */
  private readonly paced = new Set<string>();
  /** The bulk panes in the order their turns come (the next first). */
  private line: string[] = [];

  constructor(opts: GovernorOptions) {
    this.running = Math.max(1, Math.floor(opts.running));
    this.bulkChars = opts.bulkChars;
  }

  /** A pane wrote this much output. */
  received(paneId: string, chars: number): void {
    this.counts.set(paneId, (this.counts.get(paneId) ?? 0) + chars);
  }

  /** A pane was given input: it reads at once. True when it was paced (the caller lets its PTY go). */
  input(paneId: string): boolean {
    return this.paced.delete(paneId);
  }

  /** A pane closed or its process ended: it takes no more turns. True when it was paced. */
  remove(paneId: string): boolean {
    this.counts.delete(paneId);
    this.line = this.line.filter((id) => id !== paneId);
    return this.paced.delete(paneId);
  }

  isPaced(paneId: string): boolean {
    return this.paced.has(paneId);
  }

  /** Whether slices still matter: output came in this one, or a pane waits its turn. */
  get active(): boolean {
    return this.counts.size > 0 || this.paced.size > 0;
  }

  /**
   * The end of a slice: who reads in the next one. Returns the panes paced from now on
   * (`pace`) and those let go (`release`); the rest keep their state.
   */
  slice(): { pace: string[]; release: string[] } {
    const bulk = new Set(this.paced);
    for (const [id, n] of this.counts) if (n >= this.bulkChars) bulk.add(id);
    this.counts.clear();
    const before = [...this.paced];
    this.paced.clear();
    if (bulk.size <= this.running) {
      this.line = [];
      return { pace: [], release: before };
    }
    // Newcomers join the back of the line; those no longer bulk leave it.
    this.line = this.line.filter((id) => bulk.has(id));
    for (const id of bulk) if (!this.line.includes(id)) this.line.push(id);
    const turn = this.line.slice(0, this.running);
    this.line = [...this.line.slice(this.running), ...turn];
    for (const id of this.line) if (!turn.includes(id)) this.paced.add(id);
    return {
      pace: [...this.paced].filter((id) => !before.includes(id)),
      release: before.filter((id) => !this.paced.has(id)),
    };
  }
}
