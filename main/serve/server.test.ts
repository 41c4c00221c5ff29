import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ServerFrame } from '../../preload/contract.ts';
import { decodeOutputFrame } from '../../preload/output-frame.ts';
import { LOGIN_BASH, tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { connectService, serviceStarting, stopService } from '../service/client.ts';
import { takeServiceLock } from '../service/lock.ts';
import { startService } from '../service/service.ts';
import { startServe, type Served } from './server.ts';
import { get, lockedServicePid, windowOver } from './testing.ts';

let state: ReturnType<typeof tempState>;
let served: Served;
let cookie: string;
let renderer: string;

beforeAll(async () => {
  state = tempState();
  renderer = path.join(state.dir, 'renderer');
  fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>td</title><script type="module" src="/assets/app.js"></script>');
  fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log(1)');
  fs.writeFileSync(path.join(renderer, 'assets', 'index-C2c8prz0.js'), 'console.log(2)');
  fs.writeFileSync(path.join(state.dir, 'secret.txt'), 'secret');
  served = await startServe({ port: 0, fresh: true, cwd: state.dir, env: state.env, rendererDir: renderer });
  const artifact = path.join(state.dir, 'page.html');
  fs.writeFileSync(artifact, '<p>untrusted</p>');
  served.app.core.serveFiles('artifact', (rest) => (rest === 'x/page.html' ? { path: artifact, csp: 'sandbox; default-src none' } : undefined));
  cookie = `td_token=${served.token}`;
});

afterAll(async () => {
  await served?.close();
  state?.cleanup();
});

describe('serve over HTTP', () => {
  it('prints a loopback URL with a 64-hex token', () => {
    expect(served.url).toBe(`http://127.0.0.1:${served.port}/?token=${served.token}`);
    expect(served.token).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses every request without the token', async () => {
    for (const p of ['/', '/index.html', '/assets/app.js', '/assets/index-C2c8prz0.js', '/artifact/x/page.html']) {
      const r = await get(served.port, p);
      expect(r.status, p).toBe(403);
      expect(r.body).toMatch(/Forbidden/);
    }
    expect((await get(served.port, '/', { Cookie: 'td_token=' + 'f'.repeat(64) })).status).toBe(403);
    expect((await get(served.port, '/?token=wrong')).status).toBe(403);
  });

  it('trades the token in the URL for an HttpOnly SameSite=Strict cookie and a redirect', async () => {
    const r = await get(served.port, `/?token=${served.token}`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/');
    expect(r.headers['set-cookie']).toEqual([`td_token=${served.token}; HttpOnly; SameSite=Strict; Path=/`]);
    const deep = await get(served.port, `/index.html?a=1&token=${served.token}`);
    expect(deep.headers.location).toBe('/index.html?a=1');
  });

  it('serves the renderer with the cookie, a strict CSP and nosniff', async () => {
    const r = await get(served.port, '/', { Cookie: cookie });
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>td</title>');
    expect(r.headers['content-type']).toMatch(/text\/html/);
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    const csp = String(r.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain(`ws://127.0.0.1:${served.port}`);
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    const js = await get(served.port, '/assets/app.js', { Cookie: cookie });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
  });

  it('lets the browser keep hashed assets for good, never index.html, and revalidate the rest', async () => {
    const hashed = await get(served.port, '/assets/index-C2c8prz0.js', { Cookie: cookie });
    expect(hashed.status).toBe(200);
    expect(hashed.body).toBe('console.log(2)');
    expect(hashed.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(hashed.headers['content-length']).toBe(String('console.log(2)'.length));
    expect(hashed.headers['content-type']).toMatch(/javascript/);
    expect((await get(served.port, '/', { Cookie: cookie })).headers['cache-control']).toBe('no-store');
    expect((await get(served.port, '/index.html', { Cookie: cookie })).headers['cache-control']).toBe('no-store');
    expect((await get(served.port, '/assets/app.js', { Cookie: cookie })).headers['cache-control']).toBe('no-cache');
    // Kept in memory, still behind the token.
    expect((await get(served.port, '/assets/index-C2c8prz0.js')).status).toBe(403);
  });

  it('refuses a foreign Host header (DNS rebinding), even with the cookie', async () => {
    for (const host of [`evil.example:${served.port}`, '127.0.0.1:1', `127.0.0.1.nip.io:${served.port}`]) {
      expect((await get(served.port, '/', { Cookie: cookie, Host: host })).status, host).toBe(403);
    }
    expect((await get(served.port, '/', { Cookie: cookie, Host: `localhost:${served.port}` })).status).toBe(200);
  });

  it('never serves a file outside the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const r = await get(served.port, p, { Cookie: cookie });
      expect(r.status, p).not.toBe(200);
      expect(r.body).not.toContain('secret');
    }
  });

  it('serves files other services register, with their CSP, behind the token', async () => {
    const r = await get(served.port, '/artifact/x/page.html', { Cookie: cookie });
    expect(r.status).toBe(200);
    expect(r.body).toContain('untrusted');
    expect(r.headers['content-security-policy']).toBe('sandbox; default-src none');
    expect((await get(served.port, '/artifact/x/other.html', { Cookie: cookie })).status).toBe(404);
  });

  it('refuses to listen anywhere but loopback, in one sentence', async () => {
    await expect(startServe({ host: '0.0.0.0', app: served.app })).rejects.toThrow(/not a loopback address/);
  });
});

function connect(headers: Record<string, string>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws`, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('serve\'s start', () => {
  it('loads node:http without Node\'s ESM facade, which would load undici (~50 ms of the door\'s start)', () => {
    const out = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings', '--input-type=module', '-e', `await import(${JSON.stringify(path.join(import.meta.dirname, 'server.ts'))}); console.log(JSON.stringify(process.moduleLoadList.filter((m) => /undici/.test(m))))`], { encoding: 'utf8', timeout: 60_000 });
    expect(out.stderr).toBe('');
    expect(JSON.parse(out.stdout)).toEqual([]);
  });
});

describe('serve over WebSocket', () => {
  const origin = () => `http://127.0.0.1:${served.port}`;

  it('refuses a foreign Origin, a missing token and a foreign Host', async () => {
    await expect(connect({ Origin: 'http://evil.example', Cookie: cookie })).rejects.toThrow(/403/);
    await expect(connect({ Origin: `http://localhost:${served.port}`, Cookie: cookie })).rejects.toThrow(/403/);
    await expect(connect({ Origin: origin() })).rejects.toThrow(/403/);
    await expect(connect({ Origin: origin(), Cookie: cookie, Host: `evil.example:${served.port}` })).rejects.toThrow(/403/);
  });

  it('carries requests, responses and events for a same-origin window with the cookie', async () => {
    const ws = await connect({ Origin: origin(), Cookie: cookie });
    try {
      const win = windowOver(ws);
      const hello = await win.request('app.hello', {});
      expect(hello).toMatchObject({ t: 'res', ok: true });
      const h = (hello as { res: { panes: Array<{ id: string; cwd: string }>; layout: unknown; shell: string; settings: { fontSize: number } } }).res;
      expect(h.shell).toBe('serve');
      expect(h.panes).toHaveLength(1);
      expect(h.panes[0].cwd).toBe(state.dir);
      expect(h.layout).toEqual({ type: 'pane', paneId: h.panes[0].id });
      expect(h.settings.fontSize).toBe(13);
      const paneId = h.panes[0].id;

      const created = await win.request('pane.create', { splitOf: paneId, direction: 'right', command: LOGIN_BASH });
      expect(created).toMatchObject({ ok: true });
      const newId = (created as { res: { id: string } }).res.id;
      await waitFor(() => win.events.some((e) => e.name === 'layout.changed' && JSON.stringify(e.payload).includes(newId)), 'layout.changed');

      expect(await win.request('pane.input', { paneId: newId, data: 'echo over-$((20+3))\r' })).toMatchObject({ ok: true });
      await waitFor(
        () => win.events.filter((e) => e.name === 'pane.output' && (e.payload as { paneId: string }).paneId === newId).map((e) => (e.payload as { data: string }).data).join('').includes('over-23'),
        'the echo as pane.output events',
      );
      const snap = await win.request('pane.snapshot', { paneId: newId });
      expect((snap as { res: { data: string } }).res.data).toContain('over-23');

      const unknown = await win.request('pane.explode', {});
      expect(unknown).toEqual({ t: 'res', id: expect.any(Number), ok: false, error: 'unknown request "pane.explode"' });
      const bad = await win.request('pane.close', { paneId: 42 });
      expect(bad).toMatchObject({ ok: false, error: 'request "pane.close": "paneId" must be text, not 42; nothing was changed.' });
      const notJson = await win.raw('{nope');
      expect(notJson).toMatchObject({ t: 'res', id: -1, ok: false, error: expect.stringMatching(/not JSON/) });

      expect(await win.request('pane.close', { paneId: newId })).toMatchObject({ ok: true, res: { closed: true } });
      await waitFor(() => win.events.some((e) => e.name === 'pane.removed'), 'pane.removed');
    } finally {
      ws.close();
    }
  });

  it('tells the core when a window goes away', async () => {
    const gone: string[] = [];
    const off = served.app.core.onClientGone((c) => gone.push(c.id));
    const ws = await connect({ Origin: origin(), Cookie: cookie });
    await windowOver(ws).request('app.hello', {});
    ws.close();
    await waitFor(() => gone.length === 1, 'clientGone');
    off();
  });
});

describe('serve as a program', () => {
  it('prints one line, relays to the service it started, and on SIGTERM exits leaving the service and its panes running', async () => {
    const st = tempState();
    try {
      const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(import.meta.dirname, 'main.ts'), '--port', '0', '--fresh', '--no-open', '--cwd', st.dir], {
        env: st.env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      // Whether the service held its lock the moment the URL was out (checked as the line comes):
      // a command run right after the line must find it starting, not start another.
      let lockedAtLine: boolean | undefined;
      child.stdout.on('data', (d) => {
        out += d;
        if (lockedAtLine === undefined && out.includes('\n')) lockedAtLine = serviceStarting(st.env);
      });
      child.stderr.on('data', (d) => (err += d));
      const line = await waitFor(() => (out.includes('\n') ? out : ''), 'the serving line', 30_000);
      expect(line).toMatch(/^serving http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}\n$/);
      expect(lockedAtLine).toBe(true);
      const port = Number(/:(\d+)\//.exec(line)![1]);
      expect((await get(port, '/')).status).toBe(403);
      // serve started the service: a command reaches the same core and its first pane.
      const conn = await connectService({ env: st.env, client: 'cli', start: false, cwd: st.dir });
      const hello = await conn.request('app.hello', {});
      expect(hello.panes).toHaveLength(1);
      expect(hello.panes[0].cwd).toBe(st.dir);
      // Through the relay, a window that asks for binary output gets the pane's output as binary
      // frames and everything else as JSON; one that does not gets JSON events, as before.
      const token = /token=([0-9a-f]+)/.exec(line)![1];
      const shown = async (binary: boolean): Promise<string> => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}${binary ? '&output=binary' : ''}`, { headers: { Origin: `http://127.0.0.1:${port}` } });
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        let text = '';
        const kinds = new Set<string>();
        ws.on('message', (raw: Buffer, isBinary: boolean) => {
          if (isBinary) {
            kinds.add('binary');
            text += decodeOutputFrame(new Uint8Array(raw))?.data ?? '';
            return;
          }
          const f = JSON.parse(raw.toString()) as ServerFrame;
          kinds.add(f.t === 'evt' ? f.name : f.t);
          if (f.t === 'evt' && f.name === 'pane.output') text += (f.payload as { data: string }).data;
        });
        ws.send(JSON.stringify({ t: 'req', id: 1, name: 'app.hello', req: {} }));
        ws.send(JSON.stringify({ t: 'req', id: 2, name: 'pane.input', req: { paneId: hello.panes[0].id, data: `echo bin-$((6*${binary ? 7 : 8}))\r` } }));
        await waitFor(() => text.includes(binary ? 'bin-42' : 'bin-48'), 'the echo through the relay');
        ws.close();
        expect(kinds.has('res')).toBe(true);
        expect(kinds.has('binary')).toBe(binary);
        expect(kinds.has('pane.output')).toBe(!binary);
        return text;
      };
      await shown(true);
      await shown(false);
      const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(out).toBe(line);
      expect(err).toContain('shutting down');
      // The pane outlives serve.
      expect((await conn.request('service.info', {})).running.map((r) => r.paneId)).toEqual([hello.panes[0].id]);
      conn.close();
      expect(await stopService({ env: st.env })).toBe(true);
      const session = JSON.parse(fs.readFileSync(path.join(st.env.XDG_STATE_HOME!, 'terminal-delight', 'session.json'), 'utf8'));
      expect(session.version).toBe(2);
      expect(session.ended.reason).toBe('the service was stopped');
      expect(session.panes.map((p: { id: string }) => p.id)).toEqual([hello.panes[0].id]);
    } finally {
      await stopService({ env: st.env }).catch(() => undefined);
      st.cleanup();
    }
  });

  it('gives its URL while the service is starting (its lock held, its core loading); a window\'s frames wait for it, and a command finds it', async () => {
    const st = tempState();
    const env = { ...st.env, SHELL: '/bin/bash' };
    // A service that has taken its lock and not loaded its core yet (main/service/main.ts's first step).
    const lock = takeServiceLock(statePaths(env), 'test');
    if (!lock.held) throw new Error('the lock was not free');
    let served: Served | undefined;
    let service: Awaited<ReturnType<typeof startService>> | undefined;
    try {
      served = await startServe({ port: 0, env, cwd: st.dir, service: true });
      expect(fs.existsSync(statePaths(env).serviceSocket)).toBe(false);
      // A window that comes now: its hello is held until the service answers.
      const ws = new WebSocket(`ws://127.0.0.1:${served.port}/ws?token=${served.token}`, { headers: { Origin: `http://127.0.0.1:${served.port}` } });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      const answers: Array<{ id: number; ok: boolean; res?: { panes: Array<{ cwd: string }> } }> = [];
      ws.on('message', (raw: Buffer, isBinary: boolean) => {
        if (!isBinary) answers.push(JSON.parse(raw.toString()) as (typeof answers)[number]);
      });
      ws.send(JSON.stringify({ t: 'req', id: 1, name: 'app.hello', req: {} }));
      // A command run now waits for the starting service instead of saying none runs.
      const command = connectService({ env, client: 'cli', start: false });
      await new Promise((r) => setTimeout(r, 300));
      expect(answers).toEqual([]);
      const started = await startService({ env, lock, idleMs: 0 });
      if (!started.started) throw new Error('not started');
      service = started;
      await served.service;
      await waitFor(() => answers.find((a) => a.id === 1), 'the window\'s hello answered');
      expect(answers.find((a) => a.id === 1)!.res!.panes.map((p) => p.cwd)).toEqual([st.dir]);
      (await command).close();
      ws.close();
    } finally {
      await served?.close();
      if (service?.started) await service.service.stop('test over');
      else lock.release();
      st.cleanup();
    }
  });

  it('through its door: a service killed is started again behind the same URL; one that cannot start ends serve with why', async () => {
    const st = tempState();
    const env = { ...st.env, SHELL: '/bin/bash' };
    const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(import.meta.dirname, 'main.ts'), '--port', '0', '--no-open', '--fresh', '--cwd', st.dir], { stdio: ['ignore', 'pipe', 'pipe'], env });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    const paths = statePaths(env);
    const servicePid = (): number | undefined => lockedServicePid(env);
    try {
      const url = new URL(await waitFor(() => /^serving (\S+)$/m.exec(out)?.[1], 'the serving line', 30_000));
      const port = Number(url.port);
      const token = url.searchParams.get('token')!;
      // The service answers at serve's URL (the door is the service's own).
      await waitFor(async () => (await get(port, `/?token=${token}`)).status === 302, 'the door answering');
      // Its core loaded (the door listens before), serve's connection made.
      (await connectService({ env, client: 'cli', start: false })).close();
      await waitFor(() => /^serving /m.test(out) && servicePid(), 'the service running');
      const first = servicePid()!;
      process.kill(first, 'SIGKILL');
      // serve starts it again with the same door: the same URL and token answer.
      const second = await waitFor(() => {
        const pid = servicePid();
        return pid !== undefined && pid !== first ? pid : undefined;
      }, 'a new service', 30_000);
      await waitFor(async () => (await get(port, `/?token=${token}`).catch(() => ({ status: 0 }))).status === 302, 'the door again, same URL', 30_000);
      // (Killed before or after serve's connection claimed its door: the same.)
      expect(err).toMatch(/^serve: .*; starting (it|the service) again with this door$/m);
      // Where the service keeps its socket is a file now: no service can start, so serve ends, saying why.
      process.kill(second, 'SIGKILL');
      fs.rmSync(paths.run, { recursive: true, force: true });
      fs.writeFileSync(paths.run, 'not a folder');
      expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running after 60 s'), 60_000))])).toBe(1);
      expect(err.trim().split('\n').pop()).toMatch(/^serve: .*(ENOTDIR|EEXIST).*\/terminal-delight\/run/);
    } catch (e) {
      throw new Error(`${(e as Error).message}; serve said: ${err}`);
    } finally {
      child.kill('SIGKILL');
      if (fs.statSync(paths.run, { throwIfNoEntry: false })?.isFile()) fs.rmSync(paths.run);
      await stopService({ env }).catch(() => undefined);
      st.cleanup();
    }
  }, 120_000);

  it('without --port, listens where the last serve did (the browser\'s cache is per origin), or on a free port when that one is taken', async () => {
    const st = tempState();
    const children: ReturnType<typeof spawn>[] = [];
    // serve with the given arguments: its URL's port, and a stop that waits for it to exit.
    const start = async (...extra: string[]): Promise<{ port: number; token: string; stop: () => Promise<void> }> => {
      const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(import.meta.dirname, 'main.ts'), '--no-open', '--cwd', st.dir, ...extra], { stdio: ['ignore', 'pipe', 'pipe'], env: st.env });
      children.push(child);
      let out = '';
      let err = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (err += d));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      const line = await waitFor(() => (out.includes('\n') ? out : ''), `the serving line (serve said: ${err})`, 30_000);
      const m = /^serving http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})\n$/.exec(line)!;
      expect(m).not.toBeNull();
      return { port: Number(m[1]), token: m[2]!, stop: async () => { child.kill('SIGTERM'); await exited; } };
    };
    const works = async (s: { port: number; token: string }): Promise<void> => {
      expect((await get(s.port, `/?token=${s.token}`)).status).toBe(302);
    };
    const holder = http.createServer();
    try {
      const first = await start('--fresh');
      await works(first);
      // Written once serve holds its door (claimed on its service connection).
      const remembered = () => fs.readFileSync(statePaths(st.env).servePort, { encoding: 'utf8', flag: 'r' });
      await waitFor(() => fs.existsSync(statePaths(st.env).servePort) && remembered() === `${first.port}\n`, 'the port remembered', 30_000);
      await first.stop();
      // The service runs on; the next serve opens its door on the same port.
      const second = await start();
      expect(second.port).toBe(first.port);
      await works(second);
      await waitFor(() => remembered() === `${second.port}\n`, 'the port remembered again', 30_000);
      await second.stop();
      // Taken meanwhile by something else: a free port, said in the URL, and remembered.
      await new Promise<void>((resolve) => holder.listen(first.port, '127.0.0.1', () => resolve()));
      const third = await start();
      expect(third.port).not.toBe(first.port);
      await works(third);
      await waitFor(() => remembered() === `${third.port}\n`, 'the new port remembered', 30_000);
      await third.stop();
      // --port 0 asks for a free one, whatever was remembered.
      const fourth = await start('--port', '0');
      expect(fourth.port).not.toBe(third.port);
      await works(fourth);
      await fourth.stop();
    } finally {
      holder.close();
      for (const c of children) c.kill('SIGKILL');
      await stopService({ env: st.env }).catch(() => undefined);
      st.cleanup();
    }
  }, 120_000);

  it('refuses a host that is not loopback, in one sentence', async () => {
    const st = tempState();
    const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', path.join(import.meta.dirname, 'main.ts'), '--host', '0.0.0.0', '--no-open', '--fresh'], { stdio: ['ignore', 'pipe', 'pipe'], env: st.env });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    st.cleanup();
    expect(code).not.toBe(0);
    expect(err.trim()).toBe('serve: host "0.0.0.0" is not a loopback address: serve listens only on 127.0.0.1, ::1 or localhost');
  });
});
