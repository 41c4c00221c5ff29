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
