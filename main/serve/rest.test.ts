/**
 * serve at rest (main/serve/rest.ts): once its door is held, the serve process is /bin/sh,
 * not Node; it starts a service that went away again behind the same URL, stops with a
 * signal (its door closing and nothing of it left behind), and stops with a quit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempState, waitFor } from '../panes/testing.ts';
import { statePaths } from '../paths.ts';
import { connectService, stopService } from '../service/client.ts';
import { canRest, REST_SCRIPT } from './rest.ts';
import WebSocket from 'ws';
import { STOPPED_BY_COMMAND } from '../service/service.ts';
import { get, lockedServicePid, windowOver, type TestWindow } from './testing.ts';

const MAIN = path.join(import.meta.dirname, 'main.ts');

/** A process's command line, or none when it is gone. */
function cmdline(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/** What a process runs as: its argv[0]. */
const runsAs = (pid: number): string => cmdline(pid)[0] ?? '';

interface Running {
  child: ChildProcess;
  url: URL;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

/** serve on a free port; `fresh` (the first in a state folder: a later one's --fresh would be refused while panes run). */
async function startServe(env: NodeJS.ProcessEnv, cwd: string, fresh = true): Promise<Running> {
  const child = spawn(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', MAIN, '--port', '0', '--no-open', ...(fresh ? ['--fresh'] : []), '--cwd', cwd], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const url = new URL(await waitFor(() => {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
    return /^serving (\S+)$/m.exec(out)?.[1];
  }, 'the serving line', 30_000));
  return { child, url, out: () => out, err: () => err, exited };
}

/** The `cat` processes reading serve `pid`'s FIFO. */
function readersOf(pid: number): string[] {
  return fs.readdirSync('/proc').filter((p) => {
    if (!/^\d+$/.test(p)) return false;
    const [cmd, ...args] = cmdline(Number(p));
    return cmd === 'cat' && args.some((a) => a.endsWith(`serve-${pid}.fifo`));
  });
}

/** serve at rest: sh, its traps set and its `cat` reading the FIFO (started after the traps). */
const atRest = (pid: number): boolean => runsAs(pid) === 'sh' && readersOf(pid).length === 1;

const answers = async (url: URL): Promise<boolean> => (await get(Number(url.port), `/?token=${url.searchParams.get('token')}`).catch(() => ({ status: 0 }))).status === 302;

describe.runIf(process.platform === 'linux')('serve at rest', () => {
  it('is /bin/sh once its door is held; starts a service that went away again behind the same URL, and rests again', async () => {
    expect(canRest()).toBe(true);
    const st = tempState();
    const env = { ...st.env, SHELL: '/bin/bash' };
    const paths = statePaths(env);
    const servicePid = (): number | undefined => lockedServicePid(env);
    let s: Running | undefined;
    try {
      s = await startServe(env, st.dir);
      const pid = s.child.pid!;
      await waitFor(() => atRest(pid), 'serve resting as sh', 30_000);
      expect(await answers(s.url)).toBe(true);
      const fifo = path.join(paths.run, `serve-${pid}.fifo`);
      expect(fs.lstatSync(fifo).isFIFO()).toBe(true);
      expect(fs.lstatSync(fifo).mode & 0o777).toBe(0o600);
      // No token in what `ps` shows.
      expect(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(s.url.searchParams.get('token'));

      const first = servicePid()!;
      process.kill(first, 'SIGKILL');
      await waitFor(() => {
        const p = servicePid();
        return p !== undefined && p !== first;
      }, 'a new service', 30_000);
      await waitFor(() => answers(s!.url), 'the door again, same URL', 30_000);
      expect(s.err()).toContain('serve: the service went away; starting it again with this door\n');
      await waitFor(() => atRest(pid), 'serve resting again', 30_000);
      // The service it started before is gone, not left a zombie holding the lock.
      expect(fs.existsSync(`/proc/${first}`)).toBe(false);
      expect(s.out()).toBe(`serving ${s.url.href}\n`);

      // Quit and end all panes: serve stops too.
      const conn = await connectService({ env, client: 'cli', start: false });
      await conn.request('service.quit', { endPanes: true }).catch(() => undefined);
      conn.close();
      expect(await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running after 30 s'), 30_000))])).toBe(0);
      expect(s.err()).toContain('serve: Terminal Delight quit and ended every pane; serve stops too\n');
      expect(fs.existsSync(fifo)).toBe(false);
    } catch (e) {
      throw new Error(`${(e as Error).message}; serve said: ${s?.err()}`);
    } finally {
      s?.child.kill('SIGKILL');
      await stopService({ env }).catch(() => undefined);
      st.cleanup();
    }
  }, 120_000);

  it('stops on SIGINT, SIGTERM or SIGHUP (or SIGKILL) with its door closed and nothing of it left behind; with TD_SERVE_REST=0 it waits in Node', async () => {
    const st = tempState();
    const env = { ...st.env, SHELL: '/bin/bash' };
    const paths = statePaths(env);
    try {
      for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
        const s = await startServe(env, st.dir, signal === 'SIGINT');
        const pid = s.child.pid!;
        await waitFor(() => atRest(pid), 'serve resting as sh', 30_000);
        expect(await answers(s.url)).toBe(true);
        s.child.kill(signal);
        expect(await s.exited).toBe(0);
        expect(s.err()).toContain(`serve: ${signal}, shutting down\n`);
        await waitFor(async () => !(await answers(s.url)), 'the door closed', 10_000);
        expect(fs.existsSync(path.join(paths.run, `serve-${pid}.fifo`))).toBe(false);
        // Its reader went with it.
        expect(readersOf(pid)).toEqual([]);
      }
      // Stopped in its first second, before it rests: Node stops it, as cleanly.
      {
        const s = await startServe(env, st.dir, false);
        s.child.kill('SIGTERM');
        expect(await s.exited).toBe(0);
        expect(s.err()).toContain('serve: SIGTERM, shutting down\n');
        await waitFor(async () => !(await answers(s.url)), 'the door closed', 10_000);
        expect(fs.existsSync(path.join(paths.run, `serve-${s.child.pid}.fifo`))).toBe(false);
      }
      // Killed outright (no trap runs): the service finds it gone, closes its door and its FIFO, whose end lets its `cat` go.
      {
        const s = await startServe(env, st.dir, false);
        const pid = s.child.pid!;
        await waitFor(() => atRest(pid), 'serve resting as sh', 30_000);
        s.child.kill('SIGKILL');
        await s.exited;
        await waitFor(async () => !(await answers(s.url)), 'the door closed', 10_000);
        await waitFor(() => readersOf(pid).length === 0 && !fs.existsSync(path.join(paths.run, `serve-${pid}.fifo`)), 'its reader gone and its FIFO removed', 10_000);
      }
      // The service and its pane ran on through all of them.
      const conn = await connectService({ env, client: 'cli', start: false });
      expect((await conn.request('service.info', {})).running).toHaveLength(1);
      conn.close();

      const s = await startServe({ ...env, TD_SERVE_REST: '0' }, st.dir, false);
      await new Promise((r) => setTimeout(r, 1000));
      expect(runsAs(s.child.pid!)).not.toBe('sh');
      expect(await answers(s.url)).toBe(true);
      // The service's signals to a holder reach serve while it is Node too: it runs on, and Node's inspector stays shut.
      s.child.kill('SIGUSR1');
      s.child.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 500));
      expect(s.child.exitCode).toBeNull();
      expect(s.err()).not.toContain('Debugger listening');
      expect(await answers(s.url)).toBe(true);
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      await waitFor(async () => !(await answers(s.url)), 'the door closed', 10_000);
    } finally {
      await stopService({ env }).catch(() => undefined);
      st.cleanup();
    }
  }, 120_000);

  for (const rests of [true, false]) {
    it(`after \`service stop\` (${rests ? 'at rest as sh' : 'waiting in Node'}), does not start the service again: its window is told why, the door stays, and ${rests ? 'a window\'s service.start' : '`service start`'} starts it`, async () => {
      const st = tempState();
      const env = { ...st.env, SHELL: '/bin/bash', ...(rests ? {} : { TD_SERVE_REST: '0' }) };
      let s: Running | undefined;
      try {
        s = await startServe(env, st.dir);
        const pid = s.child.pid!;
        if (rests) await waitFor(() => atRest(pid), 'serve resting as sh', 30_000);
        const first = lockedServicePid(env)!;
        const w = await windowAt(s.url);
        expect(await w.request('app.hello')).toMatchObject({ t: 'res', ok: true });

        const stop = await runCli(['service', 'stop'], env);
        expect(stop).toMatchObject({ code: 0, stdout: 'stopped\n' });
        // The window heard why before its socket closed.
        await waitFor(() => w.closed, 'the window\'s socket to close');
        expect(w.events).toContainEqual({ name: 'service.stopping', payload: { how: 'stop', message: STOPPED_BY_COMMAND } });
        // serve says so, keeps running, and starts no service: none holds the lock a few seconds on.
        await waitFor(() => s!.err().includes(`serve: ${STOPPED_BY_COMMAND} Not starting it again`), 'serve saying the service was stopped', 30_000);
        await new Promise((r) => setTimeout(r, 3_000));
        expect(lockedServicePid(env), 'a service after the stop').toBeUndefined();
        expect(s.child.exitCode).toBeNull();
        expect(s.err()).not.toContain('starting it again with this door');
        expect(fs.existsSync(`/proc/${first}`), 'the stopped service (not a zombie left)').toBe(false);

        // A window that comes meanwhile (a reload, a reconnect) is told the same; its requests get the sentence.
        const again = await windowAt(s.url);
        await waitFor(() => again.events.length > 0, 'the stopped notice');
        expect(again.events[0]).toEqual({ name: 'service.stopping', payload: { how: 'stop', message: STOPPED_BY_COMMAND } });
        const refused = await again.request('app.hello');
        expect(refused).toEqual({ t: 'res', id: 1, ok: false, error: `${STOPPED_BY_COMMAND} Start it again from this window (Start the service) or with \`terminal-delight service start\`.` });
        expect(lockedServicePid(env)).toBeUndefined();

        // Start the service (from the window; or from a terminal, `terminal-delight service start`):
        // a new one, behind the same URL, and the window's hello answered by it.
        if (rests) expect(await again.request('service.start')).toMatchObject({ ok: true, res: { ok: true } });
        else expect((await runCli(['service', 'start'], env)).code).toBe(0);
        await waitFor(() => again.closed, 'the stopped door to let the window go');
        const second = await waitFor(() => lockedServicePid(env), 'a new service', 30_000);
        expect(second).not.toBe(first);
        const back = await waitFor(async () => {
          const b = await windowAt(s!.url).catch(() => undefined);
          if (!b) return undefined;
          const h = await b.request('app.hello');
          return h.t === 'res' && h.ok ? h : undefined;
        }, 'a window on the new service', 30_000);
        expect(back).toMatchObject({ t: 'res', ok: true });
        expect(s.out()).toBe(`serving ${s.url.href}\n`);
      } catch (e) {
        throw new Error(`${(e as Error).message}; serve said: ${s?.err()}`);
      } finally {
        s?.child.kill('SIGTERM');
        await s?.exited;
        await stopService({ env }).catch(() => undefined);
        st.cleanup();
      }
    }, 120_000);
  }
});

/**
 * REST_SCRIPT on its own: a "service" (sh) that holds the FIFO open, maybe leaves
 * run/service.stopped (`how` 'stop' or 'quit'), and ends without a signal to serve (the signal
 * went to serve while it was still Node); `gone` removes the FIFO before the script's cat can
 * open it (the service let the door go first). The command sh runs again prints TD_SERVE_STOPPED.
 */
async function restScriptAfter(opts: { how?: 'stop' | 'quit'; gone: boolean }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const st = tempState();
  try {
    const fifo = path.join(st.dir, 'serve-1.fifo');
    const marker = path.join(st.dir, 'service.stopped');
    const left = opts.how ? JSON.stringify({ how: opts.how, message: 'The service was stopped.', at: new Date().toISOString() }) : '';
    expect(await runCmd('mkfifo', ['-m', '600', fifo])).toBe(0);
    const svc = spawn('/bin/sh', ['-c', 'exec 3<>"$1"; if [ -n "$2" ]; then printf %s "$2" > "$3"; fi; if [ "$4" = 1 ]; then rm -f "$1"; fi; sleep 1', 'svc', fifo, left, marker, opts.gone ? '1' : '0'], { stdio: 'ignore' });
    const svcGone = new Promise((r) => svc.on('close', r));
    // The service has the FIFO open (and has left its file, or removed the FIFO) before serve rests.
    await waitFor(() => (opts.gone ? !fs.existsSync(fifo) : fs.existsSync(`/proc/${svc.pid}/fd/3`)) && (!opts.how || fs.existsSync(marker)), 'the service ready');
    const sh = spawn('/bin/sh', ['-c', REST_SCRIPT, 'serve', fifo, String(svc.pid), marker, '/bin/sh', '-c', 'printf "%s\\n" "${TD_SERVE_STOPPED:-unset}"'], { stdio: ['ignore', 'pipe', 'pipe'], env: st.env });
    let stdout = '';
    let stderr = '';
    sh.stdout!.on('data', (d) => (stdout += d));
    sh.stderr!.on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((r) => sh.on('close', r));
    await svcGone;
    return { code, stdout, stderr };
  } finally {
    st.cleanup();
  }
}

/** A command's exit code. */
function runCmd(cmd: string, args: string[]): Promise<number | null> {
  return new Promise((resolve) => spawn(cmd, args, { stdio: 'ignore' }).on('close', resolve));
}

describe.runIf(process.platform === 'linux')('the resting sh, when the service\'s signal did not reach it', () => {
  it('holds the door (TD_SERVE_STOPPED=1) when the service left run/service.stopped, the FIFO ending or gone before cat opened it', async () => {
    for (const gone of [false, true]) {
      const r = await restScriptAfter({ how: 'stop', gone });
      expect(r.stdout, r.stderr).toBe('1\n');
      expect(r.stderr).not.toContain('starting it again');
    }
  }, 30_000);

  it('stops too, starting nothing, when that file says the service quit', async () => {
    const r = await restScriptAfter({ how: 'quit', gone: false });
    expect(r).toEqual({ code: 0, stdout: '', stderr: 'serve: Terminal Delight quit and ended every pane; serve stops too\n' });
  }, 30_000);

  it('starts the service again when it went away without leaving that file (a crash)', async () => {
    const r = await restScriptAfter({ gone: false });
    expect(r.stdout).toBe('unset\n');
    expect(r.stderr).toBe('serve: the service went away; starting it again with this door\n');
  }, 30_000);
});

/** A window's socket at serve's URL (main/serve/testing.ts's windowOver). */
async function windowAt(url: URL): Promise<TestWindow> {
  const ws = new WebSocket(`ws://127.0.0.1:${url.port}/ws?token=${url.searchParams.get('token')}`, { headers: { Origin: `http://127.0.0.1:${url.port}` } });
  ws.on('error', () => undefined);
  // Listening before it opens: the stopped door's notice may come in the same read as the upgrade.
  const w = windowOver(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return w;
}
