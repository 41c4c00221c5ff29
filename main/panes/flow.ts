/**
 * Flow control accounting for one pane, as VS Code's terminal does it: every window
 * attached to the pane (and the pane's own headless screen) counts the characters of
 * output it has been sent and not yet acknowledged. The PTY pauses when any of them is
 * more than the high watermark behind, and resumes once all are under the low one.
 * Pure: the pane applies the verdicts to its process.
 */
import { FLOW } from '../../preload/contract.ts';

export class FlowMeter {
  private readonly unacked = new Map<string, number>();
  private paused = false;
  private readonly high: number;
  private readonly low: number;

  constructor(high: number = FLOW.highWatermarkChars, low: number = FLOW.lowWatermarkChars) {
    this.high = high;
    this.low = low;
  }

  /** A reader that must keep up from now on (a window, the headless screen). */
  attach(reader: string): void {
    if (!this.unacked.has(reader)) this.unacked.set(reader, 0);
  }

  /** A reader went away: it no longer holds the pane paused. */
  detach(reader: string): void {
    this.unacked.delete(reader);
  }

  has(reader: string): boolean {
    return this.unacked.has(reader);
  }

  /** Output sent to every reader. */
  sent(chars: number): void {
    for (const [reader, n] of this.unacked) this.unacked.set(reader, n + chars);
  }

  ack(reader: string, chars: number): void {
    const n = this.unacked.get(reader);
    if (n === undefined || !(chars > 0)) return;
    this.unacked.set(reader, Math.max(0, n - chars));
  }

  behind(reader: string): number {
    return this.unacked.get(reader) ?? 0;
  }

  /** Forget what was outstanding (a restarted process starts clean). */
  reset(): void {
    for (const reader of this.unacked.keys()) this.unacked.set(reader, 0);
    this.paused = false;
  }

  /**
   * Whether the PTY should be paused now, with hysteresis: pause when any reader is
   * over the high watermark, stay paused until every reader is under the low one.
   */
  shouldPause(): boolean {
    const worst = Math.max(0, ...this.unacked.values());
    if (!this.paused && worst > this.high) this.paused = true;
    else if (this.paused && worst < this.low) this.paused = false;
    return this.paused;
  }
}
