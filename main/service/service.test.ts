import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { connectService } from './client.ts';
import { checkPrivateDir, startService, type RunningService } from './service.ts';
import { PROTOCOL } from '../version.ts';

let state: ReturnType<typeof tempState>;
let running: RunningService | undefined;
let stopped = 0;

beforeEach(() => {
  state = tempState();
  stopped = 0;
});
afterEach(async () => {
  await running?.stop('test over');
  running = undefined;
  state.cleanup();
});

async function start(opts: { idleMs?: number; lastWindowGraceMs?: number } = {}): Promise<RunningService> {
  const r = await startService({ env: state.env, fresh: true, idleMs: opts.idleMs ?? 0, lastWindowGraceMs: opts.lastWindowGraceMs, onStopped: () => stopped++ });
  if (!r.started) throw new Error('not started');
  running = r.service;
  return r.service;
}

/** A raw connection: send lines, read lines. */
function raw(socketPath: string): Promise<{ send(obj: unknown): void; sendText(t: string): void; next(): Promise<Record<string, unknown>>; closed: Promise<void>; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    socket.setEncoding('utf8');
    let buf = '';
    const queue: Array<Record<string, unknown>> = [];
    const waiters: Array<(v: Record<string, unknown>) => void> = [];
    socket.on('data', (d: string) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const v = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
        buf = buf.slice(nl + 1);
        const w = waiters.shift();
        if (w) w(v);
        else queue.push(v);
      }
    });
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => undefined);
    socket.once('connect', () => resolve({
      socket,
      closed,
      send: (obj) => socket.write(JSON.stringify(obj) + '\n'),
      sendText: (t) => socket.write(t + '\n'),
      next: () => new Promise((r) => {
        const v = queue.shift();
        if (v) r(v);
        else waiters.push(r);
      }),
    }));
    socket.once('error', reject);
  });
}

const token = (s: RunningService) => fs.readFileSync(s.paths.serviceToken, 'utf8').trim();
const hello = (s: RunningService, extra: Record<string, unknown> = {}) => ({ t: 'hello', protocol: PROTOCOL, version: '0.1.0', token: token(s), client: 'cli', ...extra });

describe('the service socket', () => {
  it('is the user\'s alone: 0600 in a 0700 folder, with a token file of 0600', async () => {
    const s = await start();
    expect((fs.statSync(s.paths.serviceSocket).mode & 0o777).toString(8)).toBe('600');
    expect((fs.statSync(s.paths.run).mode & 0o777).toString(8)).toBe('700');
    expect((fs.statSync(s.paths.serviceToken).mode & 0o777).toString(8)).toBe('600');
    expect(token(s)).toMatch(/^[0-9a-f]{64}$/);
    // A folder others can write is refused in one sentence.
    const open = path.join(state.dir, 'open');
    fs.mkdirSync(open, { mode: 0o777 });
    fs.chmodSync(open, 0o777);
    expect(checkPrivateDir(open)).toMatch(/can be read or written by other users \(mode 777\): run chmod 700 on it, then start again$/);
  });

  it('refuses a wrong token, another protocol, or no hello, in one sentence, and closes', async () => {
    const s = await start();
    for (const [first, why] of [
      [JSON.stringify(hello(s, { token: 'ab'.repeat(32) })), /^the token is wrong: read it from run\/service\.token/],
      [JSON.stringify(hello(s, { protocol: PROTOCOL + 1 })), new RegExp(`speaks protocol ${PROTOCOL} and the client \\(version 0\\.1\\.0\\) speaks ${PROTOCOL + 1}: restart the service to update`)],
      ['{"t":"req","id":1,"name":"app.hello","req":{}}', /^the first line was not a hello/],
      ['not json', /^the first line was not JSON/],
    ] as const) {
      const c = await raw(s.paths.serviceSocket);
      c.sendText(first);
      const answer = await c.next();
      expect(answer).toMatchObject({ t: 'hello', ok: false, protocol: PROTOCOL });
      expect(String(answer.error)).toMatch(why);
      await c.closed;
    }
  });

  it('answers requests after a good hello; bad frames get one sentence and change nothing', async () => {
    const s = await start();
    const c = await raw(s.paths.serviceSocket);
    c.send(hello(s));
    expect(await c.next()).toMatchObject({ t: 'hello', ok: true, protocol: PROTOCOL, pid: process.pid });
    c.sendText('{"t":"req","id":1e400,"name":"service.info","req":{}}');
    expect(await c.next()).toMatchObject({ t: 'res', id: -1, ok: false });
    c.sendText('garbage');
    expect(await c.next()).toMatchObject({ t: 'res', id: -1, ok: false, error: expect.stringMatching(/^the frame is not JSON/) });
    c.send({ t: 'req', id: 2, name: 'service.quit', req: { endPanes: 'yes' } });
    expect(await c.next()).toMatchObject({ t: 'res', id: 2, ok: false, error: 'request "service.quit": "endPanes" must be true or false, not "yes"; nothing was changed.' });
    c.send({ t: 'req', id: 3, name: 'service.info', req: {} });
    expect(await c.next()).toMatchObject({ t: 'res', id: 3, ok: true, res: { pid: process.pid, protocol: PROTOCOL, running: [] } });
    // A file route the core does not serve resolves to nothing (relays then answer 404).
    c.send({ t: 'file', id: 4, prefix: 'artifact', rest: '../../etc/passwd' });
    expect(await c.next()).toEqual({ t: 'file', id: 4, file: null });
    expect(stopped).toBe(0);
  });

  it('lets a window go when it stops answering pings, within seconds', async () => {
    const s = await start();
    const c = await raw(s.paths.serviceSocket);
    c.send(hello(s));
    await c.next();
    c.send({ t: 'req', id: 1, name: 'app.hello', req: {} });
    // Read frames (pings among them) but never answer: the service closes after its silence limit.
    const seen: string[] = [];
    void (async () => {
      for (;;) seen.push(String((await c.next()).t));
    })();
    await c.closed;
    expect(seen).toContain('ping');
    expect(s.app.hub.windows).toBe(0);
  }, 30_000);

  it('stops on a shutdown line with the token, whatever protocol the client speaks; not without it', async () => {
    const s = await start();
    const wrong = await raw(s.paths.serviceSocket);
    wrong.send({ t: 'shutdown', token: 'cd'.repeat(32), reason: 'upgrade' });
    expect(await wrong.next()).toMatchObject({ t: 'hello', ok: false });
    expect(stopped).toBe(0);
    const right = await raw(s.paths.serviceSocket);
    right.send({ t: 'shutdown', token: token(s), reason: 'upgrade' });
    await waitFor(() => stopped === 1, 'the service to stop');
    running = undefined;
    const session = JSON.parse(fs.readFileSync(s.paths.sessionFile, 'utf8'));
    expect(session.ended.reason).toBe('the service was restarted for an upgrade');
    for (const f of [s.paths.serviceSocket, s.paths.serviceToken, s.paths.serviceLock]) expect(fs.existsSync(f)).toBe(false);
  });

  it('with windowClose "end", ends every pane when the last window closes (after a grace for a reload)', async () => {
    // The grace as in use: a reconnect on a busy machine takes longer than a short one would give.
    const s = await start({ lastWindowGraceMs: 3_000 });
    s.app.settings.set({ windowClose: 'end' });
    const w = await connectService({ env: state.env, client: 'cli', start: false, cwd: state.dir });
    const hello = await w.request('app.hello', {});
    const pid = s.app.panes.pid(hello.panes[0].id)!;
    // A reload: gone and back within the grace keeps everything.
    w.close();
    const back = await connectService({ env: state.env, client: 'cli', start: false, cwd: state.dir });
    await back.request('app.hello', {});
    await new Promise((r) => setTimeout(r, 3_300));
    expect(stopped).toBe(0);
    back.close();
    await waitFor(() => stopped === 1, 'the service to end its panes and stop');
    running = undefined;
    expect(() => process.kill(pid, 0)).toThrow();
    expect(JSON.parse(fs.readFileSync(s.paths.sessionFile, 'utf8')).ended.reason).toBe('the last window was closed');
  });

  it('starts the first pane at a relay\'s hello that asks for it (firstPane), in its cwd, before any window; once', async () => {
    const svc = await start();
    // A command's connection starts nothing.
    const cli = await connectService({ env: state.env, client: 'cli', start: false, cwd: state.dir });
    expect(svc.app.panes.list()).toHaveLength(0);
    // serve at its start: the shell starts while the window loads.
    const relay = await connectService({ env: state.env, client: 'serve', start: false, cwd: state.dir, firstPane: true });
    expect(svc.app.panes.list().map((p) => p.cwd)).toEqual([state.dir]);
    const paneId = svc.app.panes.list()[0]!.id;
    await waitFor(() => svc.app.panes.screenText(paneId).includes('$'), 'the first pane\'s prompt, with no window attached', 20_000);
    // Another relay's hello, and then the window's app.hello, find it there: no second pane.
    const again = await connectService({ env: state.env, client: 'serve', start: false, cwd: state.dir, firstPane: true });
    const hello = await again.request('app.hello', {});
    expect(hello.panes.map((p) => p.id)).toEqual([paneId]);
    for (const c of [cli, relay, again]) c.close();
  });

  it('draws a first paint for a relay or Electron\'s shell: the pane\'s prompt in the theme asked; bad asks change nothing', async () => {
    const svc = await start();
    const relay = await connectService({ env: state.env, client: 'serve', start: false, cwd: state.dir, firstPane: true });
    const paneId = svc.app.panes.list()[0]!.id;
    await waitFor(() => /\$\s*$/.test(svc.app.panes.screenText(paneId)), 'the first pane\'s prompt', 20_000);
    // The desktop prefers dark; the setting ("system") follows it.
    const dark = await relay.firstPaint({ prefers: 'dark' });
    expect(dark?.theme).toBe('dark');
    expect(dark?.markup).toContain('id="td-first-paint" data-theme="dark"');
    expect(dark?.markup).toContain(`data-first-paint-pane="${paneId}"`);
    expect(dark?.markup).toMatch(/\$/);
    // The window's own theme over what the desktop prefers; the theme alone when asked.
    expect((await relay.firstPaint({ theme: 'light', prefers: 'dark' }))?.markup).toContain('data-theme="light"');
    expect(await relay.firstPaint({ prefers: 'dark', themeOnly: true })).toEqual({ theme: 'dark', markup: null });
    // Nothing says the theme: nothing to draw in.
    expect(await relay.firstPaint({})).toEqual({ theme: null, markup: null });
    // Hostile asks (wrong types, strings that are no theme) are no theme, and the connection goes on.
    const r = await raw(svc.paths.serviceSocket);
    r.send({ t: 'hello', protocol: PROTOCOL, version: 'test', token: token(svc), client: 'serve', pid: process.pid });
    expect((await r.next()).ok).toBe(true);
    r.send({ t: 'first-paint', id: 7, theme: { toString: 'dark' }, prefers: '<script>' });
    expect(await r.next()).toEqual({ t: 'first-paint', id: 7, theme: null, markup: null });
    r.send({ t: 'first-paint', id: 8, prefers: 'light' });
    expect(await r.next()).toMatchObject({ t: 'first-paint', id: 8, theme: 'light' });
    r.socket.destroy();
    relay.close();
  });

  it('runs once per state folder: a second start names the first', async () => {
    await start();
    const again = await startService({ env: state.env, idleMs: 0 });
    expect(again).toEqual({ started: false, holder: expect.objectContaining({ pid: process.pid }) });
  });

  it('stops by itself when nothing runs and no window is attached for its idle time', async () => {
    await start({ idleMs: 600 });
    await waitFor(() => stopped === 1, 'the idle service to stop', 10_000);
    running = undefined;
    await expect(connectService({ env: state.env, client: 'cli', start: false, timeoutMs: 500 })).rejects.toThrow(/no Terminal Delight service runs/);
  });
});
