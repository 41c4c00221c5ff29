import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../main/panes/testing.ts';
import { connectService, stopService } from '../main/service/client.ts';

const start = path.resolve(import.meta.dirname, 'start.mjs');

function launch(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [start, ...args], { env: { TD_SKIP_BUILD: '1', TD_ELECTRON_DIR: path.join(env.XDG_STATE_HOME!, 'no-electron'), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

const SERVING = /^serving (http:\/\/127\.0\.0\.1:(\d+)\/\?token=[0-9a-f]{64})\n/;

/** A temp state folder for one test; the service `npm start` left behind is stopped after it. */
async function withState(fn: (st: ReturnType<typeof tempState>) => Promise<void>): Promise<void> {
  const st = tempState();
  try {
    await fn(st);
  } finally {
    await stopService({ env: st.env });
    st.cleanup();
  }
}

/** `npm start` with these arguments, once it prints its serving line. */
async function serving(args: string[], env: NodeJS.ProcessEnv) {
  const run = launch(args, env);
  const line = await waitFor(() => SERVING.exec(run.out()), 'the serving line', 30_000);
  return { ...run, url: line[1], port: line[2] };
}

describe('npm start', () => {
  it('with --no-open, serves without trying Electron (there is no window to open), and stops on Ctrl-C', () => withState(async (st) => {
    const run = await serving(['--no-open', '--fresh', '--cwd', st.dir], { ...st.env, DISPLAY: ':97' });
    expect(run.err()).not.toContain('Electron');
    const r = await fetch(`http://127.0.0.1:${run.port}/`, { redirect: 'manual' });
    expect(r.status).toBe(403);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }));

  it('with --serve, starts serve without the Electron line', () => withState(async (st) => {
    const run = await serving(['--serve', '--no-open', '--fresh'], st.env);
    expect(run.err()).not.toContain('Electron');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }));

  it('with no display, tries no Electron, keeps serving and says how to reach it over SSH instead of flashing the URL by', () => withState(async (st) => {
    const env: NodeJS.ProcessEnv = { ...st.env, CHROMIUM_PATH: '/usr/bin/chromium' };
    delete env.DISPLAY;
    delete env.WAYLAND_DISPLAY;
    const run = await serving(['--fresh', '--cwd', st.dir], env);
    await waitFor(() => run.err().includes('ssh -N -L'), 'the SSH line');
    expect(run.err()).toContain('there is no display here');
    // Electron could open no window either: it is not fetched.
    expect(run.err()).not.toContain('Electron');
    expect(run.err()).toContain(`ssh -N -L ${run.port}:127.0.0.1:${run.port} `);
    // Still serving: a window can attach and gets its first pane.
    const r = await fetch(run.url, { redirect: 'manual' });
    expect(r.status).toBe(302);
    expect(run.child.exitCode).toBeNull();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }));

  it('keeps serving when Chromium cannot open a window (a display it cannot reach)', () => withState(async (st) => {
    const env: NodeJS.ProcessEnv = { ...st.env, CHROMIUM_PATH: '/usr/bin/chromium', DISPLAY: ':97' };
    delete env.WAYLAND_DISPLAY;
    const run = await serving(['--serve', '--fresh', '--cwd', st.dir], env);
    // At once, or (on a busy machine) after the grace: either way it never showed a window.
    await waitFor(() => /Chromium (exited at once|ended) .*serving until Ctrl-C\./.test(run.err()) && run.err().includes('ssh -N -L'), 'the lines saying Chromium could not open and how to reach serve', 60_000);
    expect(run.child.exitCode).toBeNull();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }));

  it('stops serving when the person closes the window, and the panes keep running in the service', () => withState(async (st) => {
    // Stands in for a window a person closes: a browser that stays open past the grace, then exits 0
    // (keeping the switches it was given).
    const browser = path.join(st.dir, 'browser.sh');
    const argsFile = path.join(st.dir, 'browser-args');
    fs.writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\nsleep 1.5\nexit 0\n`, { mode: 0o755 });
    const env = { ...st.env, CHROMIUM_PATH: browser, DISPLAY: ':0', TD_BROWSER_GRACE_MS: '1000' };
    const run = await serving(['--serve', '--fresh', '--cwd', st.dir], env);
    const conn = await connectService({ env: st.env, client: 'cli', start: false, cwd: st.dir });
    const hello = await conn.request('app.hello', {});
    expect(await run.exited).toBe(0);
    expect(run.err()).toContain('the window was closed; your panes keep running');
    // The app's own window, its own profile, and a keystroke's echo not held for a frame (as in Electron).
    const args = fs.readFileSync(argsFile, 'utf8').trim().split('\n');
    expect(args[0]).toMatch(/^--app=http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}$/);
    expect(args).toContain(`--user-data-dir=${path.join(st.env.XDG_STATE_HOME!, 'terminal-delight', 'chromium-profile')}`);
    expect(args).toContain('--disable-features=DeferRendererTasksAfterInput');
    // As root (these build machines, containers, CI) Chromium runs only with its sandbox off, and start says so once.
    const root = process.geteuid!() === 0;
    expect(args.includes('--no-sandbox')).toBe(root);
    expect(run.err().split('\n').filter((l) => l === 'start: Running as root: Chromium\'s sandbox is off (--no-sandbox), as Chromium requires.')).toHaveLength(root ? 1 : 0);
    expect((await conn.request('service.info', {})).running.map((p) => p.paneId)).toEqual([hello.panes[0].id]);
    conn.close();
  }));

  it('with --fresh while a service runs a pane, touches nothing and says why in one line, exiting nonzero', () => withState(async (st) => {
    const conn = await connectService({ env: st.env, client: 'cli', cwd: st.dir, fresh: true });
    const pane = await conn.request('pane.create', { command: ['/bin/bash', '-l'] });
    const run = launch(['--serve', '--no-open', '--fresh', '--cwd', st.dir], st.env);
    expect(await run.exited).toBe(1);
    expect(run.out()).toBe('');
    const lines = run.err().split('\n').filter(Boolean);
    expect(lines).toEqual([`serve: --fresh was not applied: the service (pid ${conn.hello.pid}) has 1 pane running (bash); end them with \`terminal-delight service stop --end-panes\` (or Quit and end all panes) and start again with --fresh, or start without --fresh to attach to them`]);
    // The same service, its pane still running.
    const info = await conn.request('service.info', {});
    expect(info.pid).toBe(conn.hello.pid);
    expect(info.running.map((p) => p.paneId)).toEqual([pane.id]);
    conn.close();
  }));

  it('with --fresh while a service runs nothing and no window is attached, starts afresh: a new service, an empty session', () => withState(async (st) => {
    const conn = await connectService({ env: st.env, client: 'cli', cwd: st.dir, fresh: true });
    const before = await conn.request('app.hello', {});
    const old = before.panes[0]!.id;
    // Its only pane ends: nothing runs, and the window (this connection) goes.
    await conn.request('pane.input', { paneId: old, data: 'exit\r' });
    await waitFor(async () => (await conn.request('service.info', {})).running.length === 0, 'the pane to end');
    conn.close();
    const run = await serving(['--serve', '--no-open', '--fresh', '--cwd', st.dir], st.env);
    const again = await connectService({ env: st.env, client: 'cli', start: false, cwd: st.dir });
    expect(again.hello.pid).not.toBe(conn.hello.pid);
    const after = await again.request('app.hello', {});
    expect(after.session).not.toBe(before.session);
    expect(after.panes.map((p) => p.id)).not.toContain(old);
    again.close();
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
  }));
});
