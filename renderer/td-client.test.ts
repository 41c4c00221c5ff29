// The browser's TdApi against a real WebSocket server (the `ws` package), with
// Node's own WebSocket as the client, as in the browser.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import type { ClientFrame as AnyClientFrame, ServerFrame } from '../preload/contract.ts';

type ClientFrame = Extract<AnyClientFrame, { t: 'req' }>;
import { createWsClient, defaultWsUrl, type WsClient } from './td-client.ts';
import { encodeOutputFrame } from '../main/clients/frames.ts';
import { openEarly } from './early.ts';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startServer(port = 0, onFrame?: (frame: ClientFrame, ws: ServerSocket) => void) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  await once(wss, 'listening');
  const sockets: ServerSocket[] = [];
  wss.on('connection', (ws) => {
    sockets.push(ws);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as ClientFrame;
      if (onFrame) onFrame(frame, ws);
      else reply(ws, { t: 'res', id: frame.id, ok: true, res: { echo: frame.name, req: frame.req } });
    });
  });
  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.terminate();
    wss.close(() => resolve());
  });
  cleanups.push(stop);
  return { wss, port: (wss.address() as AddressInfo).port, sockets, stop };
}

function reply(ws: ServerSocket, frame: ServerFrame) {
  ws.send(JSON.stringify(frame));
}

function client(port: number, extra: Parameters<typeof createWsClient>[0] = {}): WsClient {
  const c = createWsClient({ url: `ws://127.0.0.1:${port}/ws`, minDelayMs: 20, maxDelayMs: 100, ...extra });
  cleanups.push(() => c.close());
  return c;
}

async function until(cond: () => boolean, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('createWsClient', () => {
  it('derives the socket URL from the page origin', () => {
    expect(defaultWsUrl({ protocol: 'http:', host: '127.0.0.1:4000' })).toBe('ws://127.0.0.1:4000/ws?output=binary');
    expect(defaultWsUrl({ protocol: 'https:', host: 'example.test' })).toBe('wss://example.test/ws?output=binary');
  });

  it('queues a request made before the socket opens and answers it', async () => {
    const srv = await startServer();
    const c = client(srv.port);
    expect(c.state).toBe('connecting');
    const res = await c.invoke('pane.focus', { paneId: 'p1' });
    expect(res).toEqual({ echo: 'pane.focus', req: { paneId: 'p1' } });
    expect(c.state).toBe('open');
  });

  it('rejects with the server error text', async () => {
    const srv = await startServer(0, (f, ws) => reply(ws, { t: 'res', id: f.id, ok: false, error: 'no pane "zz": pick a pane that exists.' }));
    const c = client(srv.port);
    await expect(c.invoke('pane.close', { paneId: 'zz' })).rejects.toThrow('no pane "zz": pick a pane that exists.');
  });

  it('delivers events to every handler and stops after unsubscribe', async () => {
    const srv = await startServer();
    const c = client(srv.port);
    await c.invoke('pane.focus', { paneId: 'x' });
    const got: string[] = [];
    const off = c.on('pane.output', (p) => got.push(`a:${p.data}`));
    c.on('pane.output', (p) => got.push(`b:${p.data}`));
    reply(srv.sockets[0]!, { t: 'evt', name: 'pane.output', payload: { paneId: 'p', data: 'one' } });
    await until(() => got.length === 2);
    off();
    reply(srv.sockets[0]!, { t: 'evt', name: 'pane.output', payload: { paneId: 'p', data: 'two' } });
    await until(() => got.length === 3);
    expect(got).toEqual(['a:one', 'b:one', 'b:two']);
  });

  it('delivers pane output sent as a binary frame as the same event, escapes and all', async () => {
    const srv = await startServer();
    const c = client(srv.port);
    await c.invoke('pane.focus', { paneId: 'x' });
    const got: Array<{ paneId: string; data: string }> = [];
    c.on('pane.output', (p) => got.push(p));
    const data = '\x1b[31mred\x1b[0m\r\n世界 😀\n';
    srv.sockets[0]!.send(encodeOutputFrame('p7', data), { binary: true });
    await until(() => got.length === 1);
    expect(got).toEqual([{ paneId: 'p7', data }]);
  });

  it('fails requests in flight when the socket drops, then reconnects and says so', async () => {
    const srv = await startServer(0, () => { /* never answers */ });
    const states: Array<[string, boolean]> = [];
    const c = client(srv.port);
    c.onConnection((s, r) => states.push([s, r]));
    const inFlight = c.invoke('pane.snapshot', { paneId: 'p' });
    await until(() => srv.sockets.length === 1 && c.state === 'open');
    await new Promise((r) => setTimeout(r, 20));
    srv.sockets[0]!.terminate();
    await expect(inFlight).rejects.toThrow(/closed before "pane.snapshot" was answered/);
    await until(() => srv.sockets.length === 2 && c.state === 'open');
    expect(states).toContainEqual(['closed', false]);
    expect(states.at(-1)).toEqual(['open', true]);
  });

  it('keeps retrying with backoff while the server is down, and recovers when it is back', async () => {
    const first = await startServer();
    const port = first.port;
    const c = client(port);
    await c.invoke('pane.focus', { paneId: 'a' });
    await first.stop();
    await until(() => c.state !== 'open');
    const late = c.invoke('pane.focus', { paneId: 'b' });
    await new Promise((r) => setTimeout(r, 150));
    await startServer(port);
    await expect(late).resolves.toEqual({ echo: 'pane.focus', req: { paneId: 'b' } });
  });

  it('fails a queued request clearly when no server answers in time', async () => {
    const srv = await startServer();
    const port = srv.port;
    await srv.stop();
    const c = client(port, { queueTimeoutMs: 200 });
    await expect(c.invoke('app.hello', {})).rejects.toThrow(/could not be reached within/);
  });

  it('close() fails what is pending and refuses new requests', async () => {
    const srv = await startServer(0, () => { /* never answers */ });
    const c = client(srv.port);
    const p = c.invoke('app.hello', {});
    await until(() => c.state === 'open');
    c.close();
    await expect(p).rejects.toThrow(/closed/);
    await expect(c.invoke('app.hello', {})).rejects.toThrow(/reload the page/);
  });

  describe('adopting the early socket (renderer/early.ts)', () => {
    /** A server that answers the hello at once and then sends events and output, as a core does to a window. */
    async function helloServer() {
      const frames: ClientFrame[] = [];
      let pongs = 0;
      const srv = await startServer(0, (f, ws) => {
        if ((f as { t: string }).t === 'pong') return void pongs++;
        frames.push(f);
        if (f.name === 'app.hello') {
          reply(ws, { t: 'res', id: f.id, ok: true, res: { hello: 'early' } } as unknown as ServerFrame);
          reply(ws, { t: 'evt', name: 'layout.changed', payload: { layout: { type: 'pane', paneId: 'p1' }, focused: 'p1' } });
          ws.send(encodeOutputFrame('p1', 'one\r\n'), { binary: true });
          ws.send('{"t":"ping"}');
          ws.send(encodeOutputFrame('p1', 'two\r\n'), { binary: true });
        } else reply(ws, { t: 'res', id: f.id, ok: true, res: { echo: f.name, req: f.req } });
      });
      return { srv, frames, pongs: () => pongs };
    }

    it('hands over every frame kept before the app ran, in order and once, and the hello answers the app\'s own', async () => {
      const { srv, frames, pongs } = await helloServer();
      const early = openEarly(`ws://127.0.0.1:${srv.port}/ws`);
      // Everything the server sent comes while no app is there (the bundle still loading); the early socket answers the ping.
      await until(() => pongs() === 1);
      await new Promise((r) => setTimeout(r, 50));
      const c = client(srv.port, { early });
      const got: string[] = [];
      // Handlers are registered after the client is made, as main.tsx does.
      c.on('layout.changed', (p) => got.push(`layout:${p.focused}`));
      c.on('pane.output', (p) => got.push(`out:${p.data.trim()}`));
      expect(c.state).toBe('open');
      // The app's hello (which sets the layout) runs before the events that followed its answer, as it would live.
      const hello = c.invoke('app.hello', {}).then((res) => { got.push('hello'); return res; });
      await expect(hello).resolves.toEqual({ hello: 'early' });
      expect(c.adopted).toEqual({ frames: 4, requests: 1 });
      srv.sockets[0]!.send(encodeOutputFrame('p1', 'three\r\n'), { binary: true });
      await until(() => got.length === 5);
      expect(got).toEqual(['hello', 'layout:p1', 'out:one', 'out:two', 'out:three']);
      // One hello on the wire; the next request gets an id of its own.
      await expect(c.invoke('pane.focus', { paneId: 'p1' })).resolves.toEqual({ echo: 'pane.focus', req: { paneId: 'p1' } });
      expect(frames.map((f) => [f.name, f.id])).toEqual([['app.hello', 1], ['pane.focus', 2]]);
      // Asking again is a new hello (a reconnect's).
      await expect(c.invoke('app.hello', {})).resolves.toEqual({ hello: 'early' });
      expect(frames.filter((f) => f.name === 'app.hello')).toHaveLength(2);
      expect(srv.sockets).toHaveLength(1);
    });

    it('asks the focused pane\'s snapshot once the hello is answered, the others once that one is, and the app\'s asks claim them', async () => {
      const frames: ClientFrame[] = [];
      const layout = { type: 'split', direction: 'row', sizes: [0.5, 0.25, 0.25], children: [{ type: 'pane', paneId: 'p1' }, { type: 'pane', paneId: 'p2' }, { type: 'pane', paneId: 'box/p9' }] };
      const srv = await startServer(0, (f, ws) => {
        frames.push(f);
        if (f.name === 'app.hello') reply(ws, { t: 'res', id: f.id, ok: true, res: { panes: [], layout, focused: 'p2' } } as unknown as ServerFrame);
        else reply(ws, { t: 'res', id: f.id, ok: true, res: { snapshotOf: (f.req as { paneId: string }).paneId } } as unknown as ServerFrame);
      });
      const early = openEarly(`ws://127.0.0.1:${srv.port}/ws`);
      // The focused pane first, then the rest of this machine's (another machine's pane is td-client's to ask, wrapped).
      await until(() => frames.length === 3);
      await new Promise((r) => setTimeout(r, 50));
      expect(frames.map((f) => [f.id, f.name, f.req])).toEqual([[1, 'app.hello', {}], [2, 'pane.snapshot', { paneId: 'p2' }], [3, 'pane.snapshot', { paneId: 'p1' }]]);
      const c = client(srv.port, { early });
      expect(c.adopted).toEqual({ frames: 3, requests: 3 });
      await c.invoke('app.hello', {});
      await expect(c.invoke('pane.snapshot', { paneId: 'p2' })).resolves.toEqual({ snapshotOf: 'p2' });
      await expect(c.invoke('pane.snapshot', { paneId: 'p1' })).resolves.toEqual({ snapshotOf: 'p1' });
      // Claimed once: asking again goes on the wire.
      await expect(c.invoke('pane.snapshot', { paneId: 'p1' })).resolves.toEqual({ snapshotOf: 'p1' });
      expect(frames.map((f) => f.id)).toEqual([1, 2, 3, 4]);
    });

    it('a pane\'s output kept behind other panes\' snapshots is handled before them, never before its own', async () => {
      // An attach: the early socket asked every pane's snapshot and kept the answers; a key typed
      // on the first paint was echoed after them. The app works through the answers a task each
      // (building a terminal from each): the echo is not held until the last.
      const ids = ['p1', 'p2', 'p3', 'p4', 'p5', 'p6'];
      const layout = { type: 'split', direction: 'row', sizes: ids.map(() => 1 / ids.length), children: ids.map((paneId) => ({ type: 'pane', paneId })) };
      const frames: ClientFrame[] = [];
      const srv = await startServer(0, (f, ws) => {
        frames.push(f);
        if (f.name === 'app.hello') return reply(ws, { t: 'res', id: f.id, ok: true, res: { panes: [], layout, focused: 'p1' } } as unknown as ServerFrame);
        const paneId = (f.req as { paneId: string }).paneId;
        reply(ws, { t: 'res', id: f.id, ok: true, res: { snapshotOf: paneId } } as unknown as ServerFrame);
        if (paneId !== 'p6') return;
        // The echo, and output of p6 after its snapshot's answer: that one keeps its place.
        ws.send(encodeOutputFrame('p1', 'echo'), { binary: true });
        ws.send(encodeOutputFrame('p6', 'late'), { binary: true });
      });
      const early = openEarly(`ws://127.0.0.1:${srv.port}/ws`);
      await until(() => frames.length === 1 + ids.length);
      await new Promise((r) => setTimeout(r, 50));
      const c = client(srv.port, { early });
      expect(c.adopted).toEqual({ frames: 3 + ids.length, requests: 1 + ids.length });
      const got: string[] = [];
      c.on('pane.output', (p) => got.push(`out:${p.paneId}:${p.data}`));
      await Promise.all([c.invoke('app.hello', {}), ...ids.map((paneId) => c.invoke('pane.snapshot', { paneId }).then(() => void got.push(`snap:${paneId}`)))]);
      await until(() => got.length === ids.length + 2);
      expect(got).toEqual(['snap:p1', 'out:p1:echo', 'snap:p2', 'snap:p3', 'snap:p4', 'snap:p5', 'snap:p6', 'out:p6:late']);
    });

    /**
     * A socket of the page's own (an EventTarget the test delivers frames to at chosen moments:
     * between the replay's steps, which a real socket cannot be made to hit), adopted as the early
     * socket with its kept frames; td-client itself is what is tested.
     */
    function heldSocket(requests: Array<{ id: number; name: string; req: unknown }>, kept: Array<string | ArrayBuffer>) {
      const sock = Object.assign(new EventTarget(), { readyState: 1, binaryType: 'arraybuffer', send: (): void => undefined, close: (): void => undefined });
      const early = { socket: sock as unknown as WebSocket, requests, snapshotAsks: new Map(), live: {} as never, release: () => kept.splice(0) };
      const deliver = (data: string | ArrayBuffer): void => void sock.dispatchEvent(Object.assign(new Event('message'), { data }));
      const frame = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
      const c = createWsClient({ url: 'ws://127.0.0.1:1/ws', early, WebSocketImpl: { OPEN: 1, CLOSED: 3 } as unknown as typeof WebSocket });
      cleanups.push(() => c.close());
      return { c, deliver, frame };
    }
    const answer = (id: number, res: unknown): string => JSON.stringify({ t: 'res', id, ok: true, res });

    it('a pane\'s output freed from behind its snapshot\'s answer keeps its order with output of it that comes before the next replay step', async () => {
      const { c, deliver, frame } = heldSocket(
        [{ id: 1, name: 'app.hello', req: {} }, { id: 2, name: 'pane.snapshot', req: { paneId: 'p1' } }, { id: 3, name: 'pane.snapshot', req: { paneId: 'p2' } }],
        [answer(1, { panes: [], layout: null, focused: 'p1' }), answer(2, { snapshotOf: 'p1' }), answer(3, { snapshotOf: 'p2' })],
      );
      const got: string[] = [];
      c.on('pane.output', (p) => got.push(`${p.paneId}:${p.data}`));
      // The first key's echo comes while p1's snapshot answer is held (it waits behind it); the
      // next key's echo comes once that answer is handled, before the replay's next step.
      void c.invoke('app.hello', {}).then(() => deliver(frame(encodeOutputFrame('p1', 'a'))));
      void c.invoke('pane.snapshot', { paneId: 'p1' }).then(() => deliver(frame(encodeOutputFrame('p1', 'b'))));
      void c.invoke('pane.snapshot', { paneId: 'p2' });
      await until(() => got.length === 2);
      expect(got).toEqual(['p1:a', 'p1:b']);
    });

    it('a pane\'s output does not pass other answers while its own snapshot is asked and not yet answered', async () => {
      const { c, deliver, frame } = heldSocket(
        [{ id: 1, name: 'app.hello', req: {} }, { id: 2, name: 'pane.snapshot', req: { paneId: 'p1' } }, { id: 3, name: 'pane.snapshot', req: { paneId: 'p2' } }],
        [answer(1, { panes: [], layout: null, focused: 'p1' }), answer(2, { snapshotOf: 'p1' })],
      );
      const got: string[] = [];
      c.on('pane.output', (p) => got.push(`out:${p.paneId}`));
      // p2's output comes between its ask and its answer: the page counts it against that
      // snapshot only once p1's answer (after which it asks p2's) is handled.
      void c.invoke('app.hello', {}).then(() => {
        deliver(frame(encodeOutputFrame('p2', 'x')));
        deliver(answer(3, { snapshotOf: 'p2' }));
      });
      void c.invoke('pane.snapshot', { paneId: 'p1' }).then(() => void got.push('snap:p1'));
      void c.invoke('pane.snapshot', { paneId: 'p2' }).then(() => void got.push('snap:p2'));
      await until(() => got.length === 3);
      expect(got).toEqual(['snap:p1', 'out:p2', 'snap:p2']);
    });

    it('adopts a socket still opening: the app\'s own hello goes out when it opens, the early one never', async () => {
      const { srv, frames } = await helloServer();
      const early = openEarly(`ws://127.0.0.1:${srv.port}/ws`);
      const c = client(srv.port, { early });
      expect(c.state).toBe('connecting');
      expect(c.adopted).toEqual({ frames: 0, requests: 0 });
      const got: string[] = [];
      c.on('pane.output', (p) => got.push(p.data.trim()));
      await expect(c.invoke('app.hello', {})).resolves.toEqual({ hello: 'early' });
      await until(() => got.length === 2);
      expect(got).toEqual(['one', 'two']);
      expect(c.state).toBe('open');
      expect(frames.map((f) => [f.name, f.id])).toEqual([['app.hello', 1]]);
      expect(srv.sockets).toHaveLength(1);
    });

    it('a socket that closed before it was adopted is replaced by a new connection, and its hello is not claimed', async () => {
      const { srv, frames } = await helloServer();
      const early = openEarly(`ws://127.0.0.1:${srv.port}/ws`);
      await until(() => frames.length === 1);
      srv.sockets[0]!.terminate();
      await until(() => early.socket.readyState === WebSocket.CLOSED);
      const c = client(srv.port, { early });
      expect(c.state).toBe('closed');
      await expect(c.invoke('app.hello', {})).resolves.toEqual({ hello: 'early' });
      expect(srv.sockets).toHaveLength(2);
      expect(frames.filter((f) => f.name === 'app.hello')).toHaveLength(2);
    });
  });
});

describe('panes of other machines (qualified ids, via frames)', () => {
  it('sends a request about build-box/p1 to build-box with the id unwrapped, and qualifies what comes back', async () => {
    const seen: unknown[] = [];
    const srv = await startServer(0, (frame, ws) => {
      seen.push(frame);
      const f = frame as unknown as { t: string; m?: string; f?: { t: string; id: number; name: string; req: Record<string, unknown> } };
      if (f.t === 'via' && f.f?.t === 'req') {
        const res = f.f.name === 'pane.restart' ? { id: 'p2', title: 'sh' } : f.f.name === 'app.hello' ? { panes: [], layout: null, focused: null } : null;
        ws.send(JSON.stringify({ t: 'via', m: f.m, f: { t: 'res', id: f.f.id, ok: true, res } }));
      } else if (f.t === 'req') reply(ws, { t: 'res', id: frame.id, ok: true, res: null });
    });
    const c = client(srv.port);
    const pane = await c.invoke('pane.restart', { paneId: 'build-box/p2' });
    expect(pane.id).toBe('build-box/p2');
    await c.invoke('pane.input', { paneId: 'p9', data: 'home' });
    expect(seen[0]).toMatchObject({ t: 'via', m: 'build-box', f: { t: 'req', name: 'pane.restart', req: { paneId: 'p2' } } });
    expect(seen[1]).toMatchObject({ t: 'req', name: 'pane.input', req: { paneId: 'p9' } });
    // The home service makes panes (on any machine) and holds the layout's focus: those stay home, ids as they are.
    await c.invoke('pane.create', { splitOf: 'build-box/p1', direction: 'right' });
    await c.invoke('pane.focus', { paneId: 'build-box/p1' });
    expect(seen.splice(2, 2)).toMatchObject([{ t: 'req', name: 'pane.create', req: { splitOf: 'build-box/p1' } }, { t: 'req', name: 'pane.focus', req: { paneId: 'build-box/p1' } }]);
    // A request may name its machine: the far window's hello.
    await c.invoke('app.hello', { machine: 'build-box', far: true });
    expect(seen.splice(2, 1)).toMatchObject([{ t: 'via', m: 'build-box', f: { t: 'req', name: 'app.hello', req: { far: true } } }]);
    await expect(c.invoke('pane.snapshot' as never, { paneId: 'a/p1', splitOf: 'b/p2' } as never)).rejects.toThrow('a request names panes of two machines: a pane is split or moved within its own machine only');
    // Acks go to the pane's machine too.
    c.ack!('build-box/p2', 12);
    await until(() => seen.length === 3);
    expect(seen[2]).toEqual({ t: 'via', m: 'build-box', f: { t: 'ack', paneId: 'p2', chars: 12 } });
  });

  it('qualifies a machine\'s events and output (JSON and binary), answers its pings through it, and keeps its layout out of this window', async () => {
    const seen: unknown[] = [];
    const srv = await startServer(0, (frame, ws) => {
      seen.push(frame);
      if ((frame as { t: string }).t === 'req') reply(ws, { t: 'res', id: frame.id, ok: true, res: null });
    });
    const c = client(srv.port);
    await c.invoke('pane.focus', { paneId: 'x' });
    const out: Array<{ paneId: string; data: string }> = [];
    const stale: string[] = [];
    const layouts: unknown[] = [];
    c.on('pane.output', (p) => out.push(p));
    c.on('pane.stale', (p) => stale.push(p.paneId));
    c.on('layout.changed', (p) => layouts.push(p));
    const ws = srv.sockets[0]!;
    ws.send(JSON.stringify({ t: 'via', m: 'gpu', f: { t: 'evt', name: 'pane.output', payload: { paneId: 'p3', data: 'json' } } }));
    const frame = encodeOutputFrame('p3', 'binary \x1b[1m😀');
    ws.send(Buffer.concat([Buffer.from([2, 3]), Buffer.from('gpu'), frame]), { binary: true });
    ws.send(JSON.stringify({ t: 'via', m: 'gpu', f: { t: 'evt', name: 'pane.stale', payload: { paneId: 'p3' } } }));
    ws.send(JSON.stringify({ t: 'via', m: 'gpu', f: { t: 'evt', name: 'layout.changed', payload: { layout: { type: 'pane', paneId: 'p3' }, focused: 'p3' } } }));
    ws.send(JSON.stringify({ t: 'via', m: 'gpu', f: { t: 'ping' } }));
    await until(() => out.length === 2 && stale.length === 1 && seen.length === 2);
    expect(out).toEqual([{ paneId: 'gpu/p3', data: 'json' }, { paneId: 'gpu/p3', data: 'binary \x1b[1m😀' }]);
    expect(stale).toEqual(['gpu/p3']);
    expect(layouts).toEqual([]);
    expect(seen[1]).toEqual({ t: 'via', m: 'gpu', f: { t: 'pong' } });
  });
});
