/**
 * What the service writes to one client's socket, in an order that lets a quiet pane's
 * output (a keystroke's echo) go ahead of other panes' floods (issue 11, "Many panes at
 * once"): the socket is given at most `highWater` bytes at a time, and what waits is
 * queued here, where it can still be reordered.
 *
 * - JSON lines (answers, events) are never reordered: each waits for everything queued
 *   before it, and everything after waits for it (a snapshot's answer must follow the
 *   output it holds).
 * - Between two lines, output frames of different panes may pass each other: the pane with
 *   the least queued goes first, so a pane that prints a little is never behind one that
 *   prints a lot; a pane's own frames stay in order.
 */

/** Output frames of one stretch between two JSON lines, per pane, in order. */
interface Stretch {
  kind: 'output';
  panes: Map<string, { frames: Buffer[]; bytes: number }>;
}
type Item = { kind: 'line'; text: string } | Stretch;

export interface SocketLike {
  /** Bytes the socket holds unwritten. */
  readonly writableLength: number;
  write(data: string | Buffer): unknown;
  cork(): void;
  uncork(): void;
}

export class FrameSender {
  private readonly items: Item[] = [];
  private queuedBytes = 0;
  private readonly socket: SocketLike;
  private readonly highWater: number;
  private readonly header: (length: number) => Buffer;

  constructor(socket: SocketLike, header: (length: number) => Buffer, highWater = 128 * 1024) {
    this.socket = socket;
    this.header = header;
    this.highWater = highWater;
  }

  /** Bytes waiting here (not yet given to the socket). */
  get queued(): number {
    return this.queuedBytes;
  }

  /** A JSON line: after everything queued. */
  line(text: string): void {
    this.items.push({ kind: 'line', text });
    this.queuedBytes += text.length + 1;
    this.pump();
  }

  /** One pane's output frame. */
  output(paneId: string, frame: Buffer): void {
    let last = this.items[this.items.length - 1];
    if (!last || last.kind !== 'output') {
      last = { kind: 'output', panes: new Map() };
      this.items.push(last);
    }
    let q = last.panes.get(paneId);
    if (!q) last.panes.set(paneId, (q = { frames: [], bytes: 0 }));
    q.frames.push(frame);
    q.bytes += frame.length;
    this.queuedBytes += frame.length;
    this.pump();
  }

  /** Give the socket what it can take now (call again on its 'drain'). */
  pump(): void {
    if (this.items.length === 0 || this.socket.writableLength >= this.highWater) return;
    this.socket.cork();
    try {
      while (this.items.length > 0 && this.socket.writableLength < this.highWater) {
        const item = this.items[0]!;
        if (item.kind === 'line') {
          this.items.shift();
          this.queuedBytes -= item.text.length + 1;
          this.socket.write(item.text + '\n');
          continue;
        }
        // The pane with the least queued in this stretch goes first.
        let best: string | undefined;
        let least = Infinity;
        for (const [id, q] of item.panes) {
          if (q.bytes < least) {
            least = q.bytes;
            best = id;
          }
        }
        const q = item.panes.get(best!)!;
        const frame = q.frames.shift()!;
        q.bytes -= frame.length;
        if (q.frames.length === 0) item.panes.delete(best!);
        if (item.panes.size === 0) this.items.shift();
        this.queuedBytes -= frame.length;
        this.socket.write(this.header(frame.length));
        this.socket.write(frame);
      }
    } finally {
      this.socket.uncork();
    }
  }
}
