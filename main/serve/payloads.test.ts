/**
 * Security: a window (or anything holding the token) sending requests with wrong
 * types gets a one-sentence error per request, never a JavaScript internal message,
 * and the core keeps answering. Frames that are binary, not JSON, or over the size
 * limit are refused without taking serve down. A real serve, a real WebSocket, real PTYs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { REQUEST_NAMES } from '../../preload/contract.ts';
import { tempState } from '../panes/testing.ts';
import { startServe, type Served } from './server.ts';

let state: ReturnType<typeof tempState>;
let served: Served;

beforeAll(async () => {
  state = tempState();
  served = await startServe({ port: 0, fresh: true, cwd: state.dir, env: state.env });
});

afterAll(async () => {
  await served?.close();
  state?.cleanup();
});

type Frame = { t: string; id: number; ok?: boolean; res?: unknown; error?: string };

async function connect(): Promise<{ ws: WebSocket; req(name: unknown, payload: unknown): Promise<Frame>; raw(data: string | Buffer): Promise<Frame>; text(id: number, frame: string): Promise<Frame> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws`, { headers: { Origin: `http://127.0.0.1:${served.port}`, Cookie: `td_token=${served.token}` } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const waiting = new Map<number, (f: Frame) => void>();
  ws.on('message', (d) => {
    const f = JSON.parse(d.toString()) as Frame;
    if (f.t === 'res') {
      waiting.get(f.id)?.(f);
      waiting.delete(f.id);
    }
  });
  const wait = (id: number): Promise<Frame> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer to frame ${id} in 20 s`)), 20_000);
      waiting.set(id, (f) => {
        clearTimeout(timer);
        resolve(f);
      });
    });
  return {
    ws,
    req(name, payload) {
      const id = next++;
      const p = wait(id);
      ws.send(JSON.stringify({ t: 'req', id, name, req: payload }));
      return p;
    },
    text(id, frame) {
      const p = wait(id);
      ws.send(frame);
      return p;
    },
    raw(data) {
      const p = wait(-1);
      ws.send(data);
      return p;
    },
  };
}

/** A message a person should never read: JavaScript's own words for a type mistake. */
const INTERNAL = /Cannot read propert|is not a function|is not iterable|\[object Object\]|Cannot convert|undefined \(reading/;

describe('requests with wrong types', () => {
  it('each get a clear answer, never a JavaScript internal message, and the core keeps answering', async () => {
    const c = await connect();
    const hello = await c.req('app.hello', {});
    expect(hello.ok).toBe(true);
    const paneId = (hello.res as { panes: Array<{ id: string }> }).panes[0]!.id;
    const bad: unknown[] = [
      {},
      { paneId: 5, surfaceId: {}, instanceId: {}, approvalId: [], approve: 'yes', open: 'y' },
      { paneId, surfaceId: { toString: 1 }, instanceId: 7, data: 5, cols: 'x', rows: -1, chars: 'x', surfaceIds: 'x', text: 7, layout: 'x', command: 'ls', cwd: 5, action: 3, kind: 'zz', direction: 'up', splitOf: 9 },
      { paneId, cols: Number.MAX_SAFE_INTEGER, rows: 1e9, chars: -1e12, layout: { type: 'split', children: 'x' }, command: [1, 2], cwd: '/nonexistent', surfaceIds: [1, null] },
      { paneId: '__proto__', surfaceId: 'constructor', instanceId: 'shell:__proto__', layout: null, command: [], data: null },
    ];
    for (const name of REQUEST_NAMES) {
      if (name === 'pane.close') continue;
      for (const payload of bad) {
        const f = await c.req(name, payload);
        const text = f.ok ? JSON.stringify(f.res ?? null) : String(f.error);
        expect(text, `${name} ${JSON.stringify(payload)}`).not.toMatch(INTERNAL);
        if (!f.ok) expect(typeof f.error, name).toBe('string');
      }
      for (const payload of [null, [], 'x', 5]) {
        const f = await c.req(name, payload);
        expect(f.ok, name).toBe(false);
        expect(f.error).toMatch(new RegExp(`request "${name.replace('.', '\\.')}" needs an object payload`));
      }
    }
    // A layout nested 100 000 splits deep (about 6 MB of JSON) is refused in one sentence, not recursed into;
    // one 65 splits deep fits the contract's schema and is refused by the layout's own rule.
    const nest = (depth: number) => '{"type":"split","direction":"row","sizes":[1],"children":['.repeat(depth) + JSON.stringify({ type: 'pane', paneId }) + ']}'.repeat(depth);
    expect(await c.text(1_000_000, `{"t":"req","id":1000000,"name":"layout.set","req":{"layout":${nest(100_000)}}}`)).toMatchObject({ ok: false, error: 'request "layout.set" nests more than 1000 levels deep: send a flatter payload; nothing was changed.' });
    expect(await c.text(1_000_001, `{"t":"req","id":1000001,"name":"layout.set","req":{"layout":${nest(65)}}}`)).toMatchObject({ ok: false, error: 'layout is nested more than 64 splits deep: send a flatter layout' });
    const unknown = await c.req('pane.explode', {});
    expect(unknown).toMatchObject({ ok: false, error: 'unknown request "pane.explode"' });
    const nameless = await c.req(42, {});
    expect(nameless.ok).toBe(false);
    expect((await c.req('app.hello', {})).ok).toBe(true);
    c.ws.close();
  }, 120_000);
});

describe('payloads checked against the contract', () => {
  it('refuses bench.set {open: "x"} in one sentence before the handler runs, and changes nothing', async () => {
    const c = await connect();
    const hello = await c.req('app.hello', {});
    const paneId = (hello.res as { panes: Array<{ id: string; benchOpen: boolean }> }).panes[0]!.id;
    expect(await c.req('bench.set', { paneId, open: 'x' })).toMatchObject({ ok: false, error: 'request "bench.set": "open" must be true or false, not "x"; nothing was changed.' });
    expect(await c.req('pane.resize', { paneId, cols: 'x', rows: 30 })).toMatchObject({ ok: false, error: 'request "pane.resize": "cols" must be a number, not "x"; nothing was changed.' });
    const again = await c.req('app.hello', {});
    expect((again.res as { panes: Array<{ id: string; benchOpen: boolean }> }).panes.find((p) => p.id === paneId)!.benchOpen).toBe(false);
    c.ws.close();
  });
});

describe('malformed frames', () => {
  it('answers a frame whose id is not a safe integer with id -1, never null', async () => {
    const c = await connect();
    for (const id of ['1e400', '1.5', '9007199254740993', '"7"']) {
      expect(await c.raw(`{"t":"req","id":${id},"name":"app.hello","req":{}}`), id).toMatchObject({ t: 'res', id: -1, ok: false, error: expect.stringMatching(/^the frame is not a request/) });
    }
    c.ws.close();
  });

  it('answers a frame that is not JSON, or is binary, with a one-sentence error on the same socket', async () => {
    const c = await connect();
    expect(await c.raw('{not json')).toMatchObject({ ok: false, error: expect.stringMatching(/^the frame is not JSON: send /) });
    expect(await c.raw(Buffer.from([1, 2, 3]))).toMatchObject({ ok: false, error: 'frames must be JSON text, not binary' });
    expect(await c.raw('{"t":"res","id":"x"}')).toMatchObject({ ok: false, error: expect.stringMatching(/^the frame is not a request/) });
    expect((await c.req('app.hello', {})).ok).toBe(true);
    c.ws.close();
  });

  it('closes a socket that sends a frame over 16 MiB (1009), and serve goes on accepting windows', async () => {
    const c = await connect();
    const closed = new Promise<number>((resolve) => c.ws.once('close', (code) => resolve(code)));
    c.ws.send('x'.repeat(16 * 1024 * 1024 + 1));
    expect(await closed).toBe(1009);
    const again = await connect();
    expect((await again.req('app.hello', {})).ok).toBe(true);
    again.ws.close();
  }, 60_000);
});
