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
 *
 * Pure: the pane applies the verdicts to its process (docs/design/service.md, "Flow control").
 */
import { FLOW } from '../../preload/contract.ts';

interface Reader {
  unacked: number;
  dropped: boolean;
}

export class FlowMeter {
  private readonly readers = new Map<string, Reader>();
  private paused = false;
  private readonly high: number;
  private readonly low: number;

  constructor(high: number = FLOW.highWatermarkChars, low: number = FLOW.lowWatermarkChars) {
    this.high = high;
    this.low = low;
  }

  /** A reader that must keep up from now on. */
  attach(reader: string): void {
    if (!this.readers.has(reader)) this.readers.set(reader, { unacked: 0, dropped: false });
  }

  /** A reader went away: it no longer holds the pane paused. */
  detach(reader: string): void {
    this.readers.delete(reader);
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
   * it will not be sent this output). Returns the readers dropped now.
   */
  sent(chars: number): string[] {
    const live = [...this.readers.entries()].filter(([, r]) => !r.dropped);
    const keepsUp = live.some(([, r]) => r.unacked + chars <= this.high);
    const droppedNow: string[] = [];
    for (const [name, r] of live) {
      if (keepsUp && r.unacked + chars > this.high) {
        r.dropped = true;
        droppedNow.push(name);
      } else {
        r.unacked += chars;
      }
    }
    return droppedNow;
  }

  /** The reader parsed this much. True when a dropped reader has caught up and is back in the flow. */
  ack(reader: string, chars: number): boolean {
    const r = this.readers.get(reader);
    if (!r || !(chars > 0)) return false;
    r.unacked = Math.max(0, r.unacked - chars);
    if (r.dropped && r.unacked < this.low) {
      r.dropped = false;
      r.unacked = 0;
      return true;
    }
    return false;
  }

  behind(reader: string): number {
    return this.readers.get(reader)?.unacked ?? 0;
  }

  /** Forget what was outstanding (a restarted process starts clean). */
  reset(): void {
    for (const r of this.readers.values()) r.unacked = 0;
    this.paused = false;
  }

  /**
   * Whether the PTY should be paused now, with hysteresis: pause when every reader in the
   * flow is over the high watermark, stay paused until one is under the low one.
   */
  shouldPause(): boolean {
    let best = Infinity;
    for (const r of this.readers.values()) if (!r.dropped) best = Math.min(best, r.unacked);
    if (best === Infinity) {
      this.paused = false;
      return false;
    }
    if (!this.paused && best > this.high) this.paused = true;
    else if (this.paused && best < this.low) this.paused = false;
    return this.paused;
  }
}
