/**
 * Flow control on the renderer side: acknowledge output to the core once xterm
 * has parsed it, in chunks of FLOW.ackChunkChars (as VS Code does). The core
 * pauses a pane's PTY while a window is too far behind.
 */
import { FLOW, type TdApi } from '../../preload/contract.ts';

/** Acknowledge `chars` of a pane's output: without an answer where the transport can (serve), else as a request. */
export function acknowledge(api: TdApi, paneId: string, chars: number): void {
  if (api.ack) return api.ack(paneId, chars);
  api.invoke('pane.ack', { paneId, chars }).catch(() => { /* the core forgets a gone window's debt */ });
}

export class Acker {
  private pending = 0;
  private readonly chunk: number;
  private readonly send: (chars: number) => void;

  constructor(send: (chars: number) => void, chunk: number = FLOW.ackChunkChars) {
    this.send = send;
    this.chunk = chunk;
  }

  /** `chars` of output were parsed (or dropped as already drawn). */
  written(chars: number): void {
    if (!(chars > 0)) return;
    this.pending += chars;
    if (this.pending >= this.chunk) this.flush();
  }

  /** Acknowledge whatever is left now (for example when the pane goes away from view). */
  flush(): void {
    if (this.pending <= 0) return;
    const n = this.pending;
    this.pending = 0;
    this.send(n);
  }

  get unacknowledged(): number {
    return this.pending;
  }
}

/**
 * Output is handed to xterm at most this many characters a write. xterm parses each write
 * whole and only then looks at the clock (it yields to the page every ~12 ms, between
 * writes): a batch of 64 KiB as one write held the page for one long task (on a slow machine
 * ~50 ms of parsing, more with the rows it drew), in pieces it yields between them.
 */
export const WRITE_PIECE_CHARS = 16 * 1024;

/** `data` in pieces of at most `max` characters (one more where a piece would end inside a surrogate pair), in order. */
export function writePieces(data: string, max: number = WRITE_PIECE_CHARS): string[] {
  if (data.length <= max) return [data];
  const pieces: string[] = [];
  for (let at = 0; at < data.length; ) {
    let end = Math.min(data.length, at + max);
    // A high surrogate at the end: its low one comes along (a character is never cut in two).
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end++;
    pieces.push(data.slice(at, end));
    at = end;
  }
  return pieces;
}
