/**
 * Where a door's windows reach the core: the `Backend` every way implements, and the core in
 * this process (the service's own door, tests, the benchmark's baseline). serve's relay to a
 * service elsewhere is main/serve/relay.ts.
 */
import type { WebSocket } from 'ws';
import type { App } from '../app.ts';
import type { ResolvedFile } from '../core.ts';
import { firstPaintFor, type FirstPaintAnswer, type FirstPaintAsk } from './first-paint.ts';

export interface WindowOptions {
  /** The window asked for `pane.output` as binary frames (`/ws?output=binary`, preload/output-frame.ts). */
  binary?: boolean;
}

export interface Backend {
  /** A window's WebSocket, authenticated: carry its frames to the core and the core's to it. */
  window(ws: WebSocket, opts?: WindowOptions): void;
  resolveFile(prefix: string, rest: string): Promise<ResolvedFile | undefined>;
  /** The theme and first paint for a window about to load (first-paint.ts), drawn by the core wherever it runs. */
  firstPaint(ask: FirstPaintAsk): Promise<FirstPaintAnswer | undefined>;
  close(): void;
}

export function coreBackend(app: App): Backend {
  return {
    window(ws, opts = {}) {
      const conn = app.hub.connect(
        {
          send: (text) => {
            if (ws.readyState === ws.OPEN) ws.send(text);
          },
          ...(opts.binary
            ? {
                sendBinary: (frame: Buffer) => {
                  if (ws.readyState === ws.OPEN) ws.send(frame, { binary: true });
                },
              }
            : {}),
          backlog: () => ws.bufferedAmount,
          close: (reason) => {
            ws.close(1008, reason.slice(0, 120));
            ws.terminate();
          },
        },
        { idPrefix: 'ws', shell: 'serve' },
        // A window's socket says app.hello at once (renderer/early.ts, td-client's reconnect); one that never does is let go.
        { helloWithinMs: app.hub.helloWithinMs },
      );
      ws.on('message', (raw, isBinary) => {
        if (isBinary) return conn.sendFrame({ t: 'res', id: -1, ok: false, error: 'frames must be JSON text, not binary' });
        conn.receive(raw.toString());
      });
      ws.on('close', () => conn.gone());
    },
    resolveFile: (prefix, rest) => Promise.resolve(app.core.resolveFile(prefix, rest)),
    firstPaint: (ask) => Promise.resolve(firstPaintFor(app, ask)),
    close() {},
  };
}
