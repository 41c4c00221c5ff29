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
 * flood given input in the last `inputMs` (`input`: it reads at once and takes no turns
 * meanwhile, so the prompt after Ctrl-C is not held back by its turn, nor is the rest of
 * the flood's output before it: `yes` leaves ~24 KB in its PTY, which counted as a flood in
 * the next slice and sent the pane to the back of a line of 16, ~300 ms before its prompt;
 * issue 38). One pane flooding alone, or `running` of them, are never paced.
 *
 * Input goes ahead of bulk output: while floods take turns, input to a pane that is not
 * bulk (a key typed at a prompt or into `cat`) holds every flood, the one whose turn it
 * is too, until that pane answers (its echo) or `holdMs` have passed, so the echo's way
 * through the kernel and the service's loop is not shared with a flood.
 *
 * Pure: the PaneService applies the verdicts (Pane.pace), and a pane's PTY reads only when
 * neither flow control nor the governor holds it (main/panes/pane.ts).
 */

export interface GovernorOptions {
  /** Bulk panes that read at once (the others wait their turn). */
  running: number;
  /** What a pane writes in one slice to count as bulk. */
  bulkChars: number;
  /** How long input to a quiet pane holds the floods at most, waiting for its answer. */
  holdMs: number;
  /** How long a flood given input takes no turns (0 if not given: only until the next slice); a quiet pane given input holds the floods instead (holdMs). */
  inputMs?: number;
}

/**
 * One bulk pane reads at a time, in turns of 20 ms (16 panes: each reads 20 ms in 320); a
 * pane writing 16 KiB in a turn (800 KB/s: a flood, not an agent's answer or a prompt) is
 * bulk; a key holds the floods 20 ms at most. Measured with 16 `yes` and a quiet `cat` on 2
 * busy cores (bench/service.bench.ts; docs/spec/performance.md, "Many panes flooding").
 */
export const GOVERNOR = { running: 1, sliceMs: 20, bulkChars: 16_384, holdMs: 20, inputMs: 1000 } as const;

export class OutputGovernor {
  private readonly running: number;
  private readonly bulkChars: number;
  private readonly holdMs: number;
  private readonly inputMs: number;
  /** Floods given input lately, and until when they take no turns. */
  private readonly typed = new Map<string, number>();
  /** Input to this quiet pane holds the floods until it answers or `holdUntil` (see the header). */
  private holdFor: string | undefined;
  private holdUntil = 0;
  /** Characters each pane wrote in this slice. */
  private readonly counts = new Map<string, number>();
  /** Panes waiting their turn now. */
  private readonly paced = new Set<string>();
  /** The bulk panes in the order their turns come (the next first). */
  private line: string[] = [];

  constructor(opts: GovernorOptions) {
    this.running = Math.max(1, Math.floor(opts.running));
    this.bulkChars = opts.bulkChars;
    this.holdMs = opts.holdMs;
    this.inputMs = opts.inputMs ?? 0;
  }

  /** A pane wrote this much output. True when that ends a hold (the caller lets the floods go: isPaced). */
  received(paneId: string, chars: number): boolean {
    this.counts.set(paneId, (this.counts.get(paneId) ?? 0) + chars);
    if (this.holdFor !== paneId) return false;
    this.holdFor = undefined;
    return true;
  }

  /**
   * A pane was given input at `now` (ms): a flood reads at once and leaves the line for
   * `inputMs`; a quiet pane holds the floods while they take turns (see the header). True when
   * who is paced changed.
   */
  input(paneId: string, now: number): boolean {
    if (this.line.includes(paneId)) {
      if (this.inputMs > 0) {
        this.typed.set(paneId, now + this.inputMs);
        this.line = this.line.filter((id) => id !== paneId);
      }
      return this.paced.delete(paneId);
    }
    if (this.line.length <= this.running) return false;
    const was = this.holdFor !== undefined;
    this.holdFor = paneId;
    this.holdUntil = now + this.holdMs;
    return !was;
  }

  /** A pane closed or its process ended: it takes no more turns, and input to it holds nobody. True when who is paced changed. */
  remove(paneId: string): boolean {
    this.counts.delete(paneId);
    this.typed.delete(paneId);
    const held = this.holdFor === paneId;
    if (held) this.holdFor = undefined;
    this.line = this.line.filter((id) => id !== paneId);
    return this.paced.delete(paneId) || held;
  }

  /** Whether the pane's PTY is to be held now: it waits its turn, or input to a quiet pane holds the floods. */
  isPaced(paneId: string): boolean {
    return this.paced.has(paneId) || (this.holdFor !== undefined && this.line.includes(paneId));
  }

  /** Whether the pane floods while other panes flood (it takes turns with them now). */
  takesTurns(paneId: string): boolean {
    return this.line.includes(paneId);
  }

  /** Whether slices still matter: output came in this one, or a pane waits its turn. */
  get active(): boolean {
    return this.counts.size > 0 || this.paced.size > 0 || this.holdFor !== undefined;
  }

  /** The end of a slice, at `now` (ms): who reads in the next one (isPaced says). */
  slice(now: number): void {
    if (this.holdFor !== undefined && now >= this.holdUntil) this.holdFor = undefined;
    const bulk = new Set(this.paced);
    for (const [id, n] of this.counts) if (n >= this.bulkChars) bulk.add(id);
    // Given input lately: no turns (see the header).
    for (const [id, until] of this.typed) {
      if (now < until) bulk.delete(id);
      else this.typed.delete(id);
    }
    this.counts.clear();
    this.paced.clear();
    if (bulk.size <= this.running) {
      this.line = [];
      this.holdFor = undefined;
      return;
    }
    // Newcomers join the back of the line; those no longer bulk leave it.
    this.line = this.line.filter((id) => bulk.has(id));
    for (const id of bulk) if (!this.line.includes(id)) this.line.push(id);
    const turn = this.line.slice(0, this.running);
    this.line = [...this.line.slice(this.running), ...turn];
    for (const id of this.line) if (!turn.includes(id)) this.paced.add(id);
  }
}
