/**
 * A window without a page, for the benchmarks: serve's WebSocket with pane output as binary
 * frames (as the renderer asks for it), acknowledging every output at once, with requests
 * and a way to wait for text in a pane's output. Left behind a flood ('pane.stale'), it
 * redraws from a snapshot of the screen as the renderer does: its tail is then that screen.
 */
import WebSocket from 'ws';
import type { ServerFrame } from '../preload/contract.ts';
import { decodeOutputFrame } from '../preload/output-frame.ts';

export interface WsWindow {
  ws: WebSocket;
  request<T = unknown>(name: string, req: unknown): Promise<T>;
  /** Send without waiting for the answer (as the renderer sends keys). */
  send(name: string, req: unknown): void;
  /** Take the pane's screen from a snapshot as its tail (what it showed before this window came, too). */
  redraw(paneId: string): Promise<void>;
  /** Redraws per pane ('pane.stale': left behind a flood, then redrawn from a snapshot). */
  redraws: Map<string, number>;
  /** Characters of output received per pane so far. */
  received: Map<string, number>;
  /** The last characters of a pane's output. */
  tail(paneId: string): string;
  /** Called with every output (pane, data); returns what stops it. */
  onOutput(fn: (paneId: string, data: string) => void): () => void;
  /** Wait until the pane's output tail, escape sequences left out, matches. */
  until(paneId: string, re: RegExp, timeoutMs: number): Promise<void>;
  close(): void;
}

export async function wsWindow(url: string, opts: { ack?: boolean } = {}): Promise<WsWindow> {
  const u = new URL(url);
  const token = u.searchParams.get('token');
  const ws = new WebSocket(`ws://${u.host}/ws?output=binary${token ? `&token=${token}` : ''}`, { origin: u.origin });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const received = new Map<string, number>();
  const tails = new Map<string, string>();
  const listeners: Array<(paneId: string, data: string) => void> = [];
  const ack = opts.ack !== false;
  const output = (paneId: string, data: string, redraw = false): void => {
    if (!redraw) received.set(paneId, (received.get(paneId) ?? 0) + data.length);
    tails.set(paneId, redraw ? data.slice(-4000) : ((tails.get(paneId) ?? '') + data.slice(-400)).slice(-400));
    for (const l of listeners) l(paneId, data);
    if (ack && !redraw) ws.send(JSON.stringify({ t: 'req', id: nextId++, name: 'pane.ack', req: { paneId, chars: data.length } }));
  };
  const request = <T>(name: string, req: unknown) => new Promise<T>((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    ws.send(JSON.stringify({ t: 'req', id, name, req }));
  });
  const redraws = new Map<string, number>();
  const redraw = (paneId: string) => request<{ data: string }>('pane.snapshot', { paneId, scrollback: 0 }).then((snap) => output(paneId, snap.data, true));
  ws.on('message', (raw: Buffer, binary: boolean) => {
    if (binary) {
      const out = decodeOutputFrame(new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength));
      if (out) output(out.paneId, out.data);
      return;
    }
    const f = JSON.parse(raw.toString()) as ServerFrame | { t: 'ping' };
    if (f.t === 'ping') {
      ws.send('{"t":"pong"}');
    } else if (f.t === 'res') {
      const p = pending.get(f.id);
      pending.delete(f.id);
      if (p) {
        if (f.ok) p.resolve(f.res);
        else p.reject(new Error(f.error));
      }
    } else if (f.t === 'evt' && f.name === 'pane.output') {
      const p = f.payload as { paneId: string; data: string };
      output(p.paneId, p.data);
    } else if (f.t === 'evt' && f.name === 'pane.stale') {
      // Left behind a flood (FLOW.skipAfterChars) and caught up: redraw from the screen, as the renderer does.
      const { paneId } = f.payload as { paneId: string };
      redraws.set(paneId, (redraws.get(paneId) ?? 0) + 1);
      redraw(paneId).catch(() => undefined);
    }
  });
  return {
    ws,
    received,
    request,
    redraws,
    redraw,
    send: (name, req) => ws.send(JSON.stringify({ t: 'req', id: nextId++, name, req })),
    tail: (paneId) => tails.get(paneId) ?? '',
    onOutput: (fn) => {
      listeners.push(fn);
      return () => {
        const i = listeners.indexOf(fn);
        if (i >= 0) listeners.splice(i, 1);
      };
    },
    async until(paneId, re, timeoutMs) {
      const end = Date.now() + timeoutMs;
      // Matched against the text, without escape sequences (shell integration marks the prompt with OSC 133).
      const text = () => (tails.get(paneId) ?? '').replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '').replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
      while (!re.test(text())) {
        if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${re} in pane ${paneId}; its last output: ${JSON.stringify((tails.get(paneId) ?? '').slice(-80))}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    close: () => ws.close(),
  };
}
