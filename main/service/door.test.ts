import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { decodeOutputFrame } from '../../preload/output-frame.ts';
import { FLOW } from '../../preload/contract.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { letGo } from '../serve/rest.ts';
import { newToken } from '../door/security.ts';
import { connectService, type ServiceConnection } from './client.ts';
import { Doors } from './door.ts';
import { startService, type RunningService } from './service.ts';

let state: ReturnType<typeof tempState>;
let running: RunningService | undefined;
const conns: ServiceConnection[] = [];

beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  for (const c of conns.splice(0)) c.close();
  await running?.stop('test over');
  running = undefined;
  state.cleanup();
});

async function start(doors?: Doors): Promise<RunningService> {
  const r = await startService({ env: state.env, fresh: true, idleMs: 0, doors });
  if (!r.started) throw new Error('not started');
  running = r.service;
  return r.service;
}

async function connect(): Promise<ServiceConnection> {
  const c = await connectService({ env: state.env, client: 'serve', start: false });
  conns.push(c);
  return c;
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function get(url: string): Promise<{ status: number; cookie?: string }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, cookie: res.headers['set-cookie']?.[0] });
    }).on('error', reject);
  });
}

/** A window on the door's WebSocket, as the renderer opens it. */
interface TestWindow {
  ws: WebSocket;
  request(name: string, req: unknown): Promise<Record<string, unknown>>;
  send(frame: unknown): Promise<Record<string, unknown>>;
  closed: Promise<number>;
  /** Every answer that came, asked for or not. */
  answers: Array<Record<string, unknown>>;
  /** Called with each pane output that comes. */
  onOutput?: (paneId: string, data: string) => void;
}

function window(port: number, token: string): Promise<TestWindow> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?output=binary&token=${token}`, { headers: { Origin: `http://127.0.0.1:${port}` } });
    let id = 0;
    const waiting = new Map<number, (v: Record<string, unknown>) => void>();
    const answers: Array<Record<string, unknown>> = [];
    let w: TestWindow;
    ws.on('message', (data, binary) => {
      if (binary) {
        const out = decodeOutputFrame(new Uint8Array(data as Buffer));
        if (out) w.onOutput?.(out.paneId, out.data);
        return;
      }
      const f = JSON.parse(String(data)) as Record<string, unknown>;
      if (f.t === 'res') {
        answers.push(f);
        waiting.get(f.id as number)?.(f);
      }
    });
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    const send = (frame: Record<string, unknown>): Promise<Record<string, unknown>> =>
      new Promise((r) => {
        waiting.set(frame.id as number, r);
        ws.send(JSON.stringify(frame));
      });
    ws.once('open', () => {
      w = { ws, closed, answers, request: (name, req) => send({ t: 'req', id: ++id, name, req }), send: (frame) => send({ id: ++id, ...(frame as object) }) };
      resolve(w);
    });
    ws.once('error', reject);
  });
}

const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createConnection({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });

describe("the browser's door in the service", () => {
  it("opens on a service connection's word, takes windows straight to the core, and closes with that connection", async () => {
    const s = await start();
    const c = await connect();
    const port = await freePort();
    const token = newToken();
    const answer = await c.openDoor({ host: '127.0.0.1', port, token });
    expect(answer).toMatchObject({ ok: true, port, url: `http://127.0.0.1:${port}/?token=${token}` });
    // The same door rules as serve's: the token in the URL once, then a cookie.
    expect((await get(`http://127.0.0.1:${port}/`)).status).toBe(403);
    const first = await get(`http://127.0.0.1:${port}/?token=${token}`);
    expect(first.status).toBe(302);
    expect(first.cookie).toMatch(/HttpOnly/);

    const w = await window(port, token);
    const hello = await w.request('app.hello', {});
    expect(hello.ok).toBe(true);
    await waitFor(() => s.app.hub.windows === 1, 'the window counted by the core');
    // A window is not a control connection: it cannot open doors.
    const door = await w.send({ t: 'door', host: '127.0.0.1', port: await freePort(), token: newToken() });
    expect(door).toMatchObject({ ok: false, error: expect.stringMatching(/^the frame is not a request/) });

    // serve gone: its door closes, and its windows are let go (they reconnect to the next one).
    c.close();
    expect(await w.closed).toBe(1001);
    await waitFor(() => refused(port), 'the door closed');
    expect(s.doors.size).toBe(0);
  });

  it("takes a window's acknowledgements without answering them, and a flood runs on past the window's allowance because of them", async () => {
    const w = await saidHello();
    // Four times the most a window may hold unacknowledged: without the acks it stops at the allowance.
    const size = 4 * FLOW.highWatermarkChars;
    let got = 0;
    let paneId = '';
    w.onOutput = (id, data) => {
      if (id !== paneId) return;
      got += data.length;
      w.ws.send(JSON.stringify({ t: 'ack', paneId: id, chars: data.length }));
    };
    const pane = await w.request('pane.create', { command: ['/bin/sh', '-c', `head -c ${size} /dev/zero | tr '\\0' x; echo; echo flood-over`] });
    paneId = (pane.res as { id: string }).id;
    // Wrong acknowledgements are dropped without an answer too.
    w.ws.send(JSON.stringify({ t: 'ack', paneId: 5, chars: 'many' }));
    w.ws.send(JSON.stringify({ t: 'ack', paneId: 'no-such-pane', chars: 10 }));
    await waitFor(() => got >= size, `all ${size} characters of the flood (got ${got})`, 60_000);
    // Two requests, two answers: none for the acknowledgements.
    expect(w.answers.map((a) => a.id)).toEqual([1, 2]);
  });

  /** A window on a new door of a new service, its hello said. */
  async function saidHello(): Promise<TestWindow> {
    await start();
    const c = await connect();
    const port = await freePort();
    const token = newToken();
    expect((await c.openDoor({ host: '127.0.0.1', port, token })).ok).toBe(true);
    const w = await window(port, token);
    expect((await w.request('app.hello', {})).ok).toBe(true);
    return w;
  }

  /** A window on a new door, its hello said, acknowledging every output (so no pane is held), each pane's output gathered. */
  async function helloWindow(): Promise<TestWindow & { out: Map<string, string> }> {
    const w = await saidHello();
    const out = new Map<string, string>();
    w.onOutput = (id, data) => {
      out.set(id, (out.get(id) ?? '') + data);
      w.ws.send(JSON.stringify({ t: 'ack', paneId: id, chars: data.length }));
    };
    return Object.assign(w, { out });
  }

  /**
   * A pane running `cat` alone (a terminal in cooked mode: the kernel echoes a key at once), then `n` panes of `lines`
   * lines of history each (their floods in the background: what they print is read from their screens here).
   */
  async function fullPanes(w: TestWindow, n: number, lines: number): Promise<string[]> {
    const ids = [((await w.request('pane.create', { command: ['cat'] })).res as { id: string }).id];
    for (let i = 0; i < n; i++) {
      const p = await w.request('pane.create', { command: ['/bin/sh', '-c', `seq -f 'line %g: the quick brown fox jumps over the lazy dog, 0123456789' 1 ${lines}; echo filled; exec cat`] });
      ids.push((p.res as { id: string }).id);
    }
    for (const id of ids.slice(1)) {
      await waitFor(async () => ((await w.request('pane.peek', { paneId: id, scrollback: 0 })).res as { text: string }).text.includes('filled'), `pane ${id} filled`, 60_000, 200);
    }
    return ids;
  }

  it("answers a key, and sends its echo, before the snapshot asks of other panes that came before it (one heavy ask a turn), and never before an earlier ask about its own pane", async () => {
    const w = await helloWindow();
    const ids = await fullPanes(w, 16, 10_000);
    const [keyed, ...others] = ids as [string, ...string[]];
    // What came back, in order: each answer by its request's id, and the first echo of the key.
    const order: string[] = [];
    const onOutput = w.onOutput!;
    w.onOutput = (id, data) => {
      onOutput(id, data);
      if (id === keyed && (w.out.get(id) ?? '').includes('key1') && !order.includes('echo')) order.push('echo');
    };
    w.ws.on('message', (data, binary) => {
      if (binary) return;
      const f = JSON.parse(String(data)) as { t: string; id?: number };
      if (f.t === 'res') order.push(`res ${f.id}`);
    });
    // As the first window does: every other pane's snapshot asked at a new size (each resizes and reflows it), then a key, all at once.
    // An ask about no pane between them (the page asks for the worktrees while it builds) holds no key back.
    for (const [i, id] of others.entries()) w.ws.send(JSON.stringify({ t: 'req', id: 1000 + i, name: 'pane.snapshot', req: { paneId: id, cols: 100, rows: 30 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 1999, name: 'worktree.list', req: {} }));
    w.ws.send(JSON.stringify({ t: 'req', id: 2000, name: 'pane.input', req: { paneId: keyed, data: 'key1' } }));
    await waitFor(() => others.every((_, i) => order.includes(`res ${1000 + i}`)) && order.includes('echo') && order.includes('res 2000') && order.includes('res 1999'), 'every answer and the echo', 60_000);
    const lastSnapshot = Math.max(...others.map((_, i) => order.indexOf(`res ${1000 + i}`)));
    expect(order.indexOf('res 2000')).toBeLessThan(lastSnapshot);
    expect(order.indexOf('echo')).toBeLessThan(lastSnapshot);

    // A pane's own earlier ask is never passed: its key waits for its snapshot (which resizes it), and goes before the asks after it.
    order.length = 0;
    const [a, b, c] = others as [string, string, string];
    w.ws.send(JSON.stringify({ t: 'req', id: 3000, name: 'pane.snapshot', req: { paneId: b, cols: 90, rows: 28 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 3001, name: 'pane.snapshot', req: { paneId: a, cols: 90, rows: 28 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 3002, name: 'pane.input', req: { paneId: a, data: 'key2' } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 3003, name: 'pane.snapshot', req: { paneId: c, cols: 90, rows: 28 } }));
    await waitFor(() => ['res 3000', 'res 3001', 'res 3002', 'res 3003'].every((r) => order.includes(r)), 'the four answers', 60_000);
    expect(order.indexOf('res 3001')).toBeLessThan(order.indexOf('res 3002'));
    // ...and the snapshot it waited for holds nothing of it: the key came after it.
    const snap = w.answers.find((f) => f.id === 3001) as { res: { data: string; cols: number } };
    expect(snap.res.cols).toBe(90);
    expect(snap.res.data).not.toContain('key2');
    await waitFor(async () => ((await w.request('pane.peek', { paneId: a, scrollback: 0 })).res as { text: string }).text.includes('key2'), 'the second key on its screen', 10_000, 100);

    // The pane typed into goes first: its own waiting ask, and then the key, go ahead of the other panes' asks that came before them.
    order.length = 0;
    const [, , , d, e, f] = others as [string, string, string, string, string, string];
    w.ws.send(JSON.stringify({ t: 'req', id: 4000, name: 'pane.snapshot', req: { paneId: d, cols: 80, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 4001, name: 'pane.snapshot', req: { paneId: e, cols: 80, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 4002, name: 'pane.snapshot', req: { paneId: f, cols: 80, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 4003, name: 'pane.snapshot', req: { paneId: a, cols: 80, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 4004, name: 'pane.input', req: { paneId: a, data: 'key3' } }));
    await waitFor(() => ['res 4000', 'res 4001', 'res 4002', 'res 4003', 'res 4004'].every((r) => order.includes(r)), 'the five answers', 60_000);
    expect(order.indexOf('res 4003')).toBeLessThan(order.indexOf('res 4004'));
    expect(order.indexOf('res 4004')).toBeLessThan(order.indexOf('res 4002'));
    expect((w.answers.find((x) => x.id === 4003) as { res: { data: string } }).res.data).not.toContain('key3');

    // ...but only its asks about itself alone: a focus moved (shared: the service's focus order) keeps its place, so the focus ends where the person put it last.
    order.length = 0;
    w.ws.send(JSON.stringify({ t: 'req', id: 5000, name: 'pane.snapshot', req: { paneId: d, cols: 81, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 5001, name: 'pane.snapshot', req: { paneId: e, cols: 81, rows: 24 } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 5002, name: 'pane.focus', req: { paneId: b } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 5003, name: 'pane.focus', req: { paneId: a } }));
    w.ws.send(JSON.stringify({ t: 'req', id: 5004, name: 'pane.input', req: { paneId: a, data: 'key4' } }));
    await waitFor(() => ['res 5000', 'res 5001', 'res 5002', 'res 5003', 'res 5004'].every((r) => order.includes(r)), 'the five answers', 60_000);
    expect(order.indexOf('res 5002')).toBeLessThan(order.indexOf('res 5003'));
    expect(((await w.request('app.hello', {})).res as { focused: string | null }).focused).toBe(a);
  }, 120_000);

  it('refuses a door it cannot open in one sentence, and keeps one port to one serve', async () => {
    await start();
    const c = await connect();
    const token = newToken();
    expect(await c.openDoor({ host: '0.0.0.0', port: await freePort(), token })).toMatchObject({ ok: false, error: expect.stringMatching(/^the door's host "0\.0\.0\.0" is not loopback/) });
    expect(await c.openDoor({ host: '127.0.0.1', port: await freePort(), token: 'abc' })).toMatchObject({ ok: false, error: expect.stringMatching(/token is not usable/) });
    expect(await c.openDoor({ host: '127.0.0.1', port: 70000, token })).toMatchObject({ ok: false, error: expect.stringMatching(/is not a port/) });
    // A port something else holds.
    const other = net.createServer();
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    const held = (other.address() as net.AddressInfo).port;
    expect(await c.openDoor({ host: '127.0.0.1', port: held, token })).toMatchObject({ ok: false, error: `port ${held} is in use: pick another with --port, or 0 for a free one` });
    other.close();
    // Another serve asking for a port that is already a door.
    const port = await freePort();
    expect((await c.openDoor({ host: '127.0.0.1', port, token })).ok).toBe(true);
    const d = await connect();
    expect(await d.openDoor({ host: '127.0.0.1', port, token })).toMatchObject({ ok: false, error: `port ${port} is already another serve's door: pick another with --port, or 0 for a free one` });
    // The door is still serve's own, answering.
    expect((await get(`http://127.0.0.1:${port}/?token=${token}`)).status).toBe(302);
  });

  it("held by a process instead: outlives the connection, refuses a holder it cannot trust in one sentence, and closes on the holder's \"stop\" or its end", async () => {
    await start();
    const run = statePaths(state.env).run;
    const fifo = (name: string): string => {
      const f = path.join(run, name);
      expect(spawnSync('mkfifo', ['-m', '600', f]).status).toBe(0);
      return f;
    };
    const c = await connect();
    const token = newToken();
    const port = await freePort();
    const spec = { host: '127.0.0.1', port, token };
    // Holders it cannot trust: each refused in one sentence, and no door opens.
    expect(await c.openDoor(spec, { pid: 1, fifo: fifo('a.fifo') })).toMatchObject({ ok: false, error: 'the door\'s holder 1 is not a process id: give a whole number above 1' });
    expect(await c.openDoor(spec, { pid: process.pid, fifo: 'relative.fifo' })).toMatchObject({ ok: false, error: expect.stringMatching(/^the door's holder FIFO is not an absolute path/) });
    const outside = path.join(state.dir, 'outside.fifo');
    spawnSync('mkfifo', ['-m', '600', outside]);
    expect(await c.openDoor(spec, { pid: process.pid, fifo: outside })).toMatchObject({ ok: false, error: expect.stringMatching(/^the door's holder FIFO is not in the service's run folder/) });
    fs.writeFileSync(path.join(run, 'plain'), '');
    expect(await c.openDoor(spec, { pid: process.pid, fifo: path.join(run, 'plain') })).toMatchObject({ ok: false, error: expect.stringMatching(/is not a FIFO of this user's/) });
    const gone = spawnSync('true').pid!;
    expect(await c.openDoor(spec, { pid: gone, fifo: fifo('b.fifo') })).toMatchObject({ ok: false, error: `process ${gone} does not run: a door's holder is the serve asking` });
    expect(await refused(port)).toBe(true);

    // A holder that runs (a sleeping child here): the door is its, and stays when the connection goes.
    const holder = spawn('sleep', ['60']);
    const f = fifo('held.fifo');
    expect(await c.openDoor(spec, { pid: holder.pid!, fifo: f })).toMatchObject({ ok: true, held: true, port });
    c.close();
    await new Promise((r) => setTimeout(r, 300));
    expect((await get(`http://127.0.0.1:${port}/?token=${token}`)).status).toBe(302);
    // The service keeps the FIFO open for writing: a reader sees no end while it runs.
    const reader = spawn('cat', [f]);
    let ended = false;
    const readerGone = new Promise<void>((r) => reader.on('exit', () => r()));
    reader.on('exit', () => (ended = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(ended).toBe(false);
    // Gone before "stop" is written, or it could read the word itself.
    reader.kill();
    await readerGone;
    // The holder says "stop": the door closes.
    letGo({ pid: holder.pid!, fifo: f });
    await waitFor(() => refused(port), 'the door closed on "stop"');

    // A holder that ends without a word: the door closes within a check or two.
    const port2 = await freePort();
    const holder2 = spawn('sleep', ['60']);
    const c2 = await connect();
    expect(await c2.openDoor({ ...spec, port: port2 }, { pid: holder2.pid!, fifo: fifo('held2.fifo') })).toMatchObject({ ok: true, held: true });
    holder2.kill('SIGKILL');
    await waitFor(() => refused(port2), 'the door closed when its holder ended', 5_000);
    holder.kill('SIGKILL');
  });

  it("opened at the service's start, listens before the core loads, holds a window's frames until it has, and is claimed by serve's connection", async () => {
    const doors = new Doors();
    expect(await doors.openAtStart('{not json')).toMatch(/^TD_DOOR is not JSON/);
    const port = await freePort();
    const token = newToken();
    expect(await doors.openAtStart(JSON.stringify({ host: '127.0.0.1', port, token }))).toBeUndefined();
    // The page loads while the core does: a window's hello waits for it.
    const w = await window(port, token);
    const hello = w.request('app.hello', {});
    const s = await start(doors);
    expect((await hello).ok).toBe(true);
    const c = await connect();
    expect(await c.openDoor({ host: '127.0.0.1', port, token })).toMatchObject({ ok: true, port });
    c.close();
    await waitFor(() => refused(port), 'the claimed door closed with its connection');
    expect(s.doors.size).toBe(0);
  });
});
