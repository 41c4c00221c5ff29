import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventName } from '../../preload/contract.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { stopService } from '../service/client.ts';
import { readLock } from '../service/lock.ts';
import { ElectronRelay } from './relay.ts';
import { STOPPED_BY_COMMAND } from '../service/service.ts';
import { withAppFirstPaint } from './routes.ts';

let state: ReturnType<typeof tempState>;
let relay: ElectronRelay;

beforeEach(() => {
  state = tempState();
  relay = new ElectronRelay({ env: state.env, cwd: state.dir, fresh: true });
});
afterEach(async () => {
  relay.close();
  await stopService({ env: state.env });
  state.cleanup();
});

const lockPid = (): number => {
  const l = readLock(path.join(state.env.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'));
  return l && l !== 'empty' ? l.pid : 0;
};

describe('the Electron main as a relay (a real service, no Electron)', () => {
  it('gives each window a connection of its own, and its own events', async () => {
    await relay.start();
    const events: Array<[string, EventName]> = [];
    let out = '';
    relay.onWindowEvent((id, name, payload) => {
      events.push([id, name]);
      if (id === 'w1' && name === 'pane.output') out += (payload as { data: string }).data;
    });
    const hello = await relay.request('w1', 'app.hello', {});
    expect(hello.panes).toHaveLength(1);
    expect(hello.panes[0].cwd).toBe(state.dir);
    await relay.request('w2', 'app.hello', {});
    expect((await relay.ask('service.info', {})).clients).toBe(2);
    const paneId = hello.panes[0].id;
    await relay.request('w1', 'pane.input', { paneId, data: 'echo "relayed-$((6*7))"\r' });
    await waitFor(() => out.includes('relayed-42'), 'the echo through the relay');
    // Both windows see the output (each on its own connection, so w2's may come a moment later); a window that goes away stops counting.
    await waitFor(() => events.some(([id, n]) => id === 'w2' && n === 'pane.output'), 'the output on the second window');
    relay.closeWindow('w2');
    await waitFor(async () => (await relay.ask('service.info', {})).clients === 1, 'the closed window to be gone');
    // Files the core serves are resolved through the service; unknown ones are not there.
    expect(await relay.resolveFile('artifact', 'nope/none.html')).toBeUndefined();
  });

  it('gives the window\'s index.html its first paint from the service, in the desktop\'s theme; other files, and a service that does not answer in time, as they are', async () => {
    // Before the main's connection is up (the service starting): none, at once, so the page loads meanwhile.
    expect(await relay.firstPaint('dark')).toBeUndefined();
    await relay.start();
    const hello = await relay.request('w1', 'app.hello', {});
    const paneId = hello.panes[0].id;
    let out = '';
    relay.onWindowEvent((id, name, payload) => {
      if (name === 'pane.output') out += (payload as { data: string }).data;
    });
    await relay.request('w1', 'pane.input', { paneId, data: 'echo "painted-$((6*7))"\r' });
    await waitFor(() => out.includes('painted-42'), 'the echo');
    const dir = path.join(state.dir, 'renderer');
    const index = path.join(dir, 'index.html');
    const html = Buffer.from('<!doctype html><html lang="en"><head></head><body><div id="root"></div></body></html>');
    const page = (await withAppFirstPaint(index, html, dir, () => relay.firstPaint('dark'))).toString('utf8');
    expect(page).toContain('<html lang="en" data-theme="dark">');
    expect(page).toMatch(/<div id="root"><\/div><div id="td-first-paint" data-theme="dark"/);
    expect(page).toContain('painted-42');
    expect((await withAppFirstPaint(index, html, dir, () => relay.firstPaint('light'))).toString('utf8')).toContain('data-theme="light"');
    // An asset, and a service that says nothing for longer than the page waits, leave the file as it was.
    expect(await withAppFirstPaint(path.join(dir, 'assets', 'a.js'), html, dir, () => relay.firstPaint('dark'))).toBe(html);
    expect(await withAppFirstPaint(index, html, dir, () => new Promise(() => {}))).toBe(html);
    expect(await withAppFirstPaint(index, html, dir, () => Promise.reject(new Error('gone')))).toBe(html);
  });

  it('after the service dies, says so, and the next request starts a new one', async () => {
    await relay.start();
    const hello = await relay.request('w1', 'app.hello', {});
    const first = lockPid();
    let gone = 0;
    const lost: string[] = [];
    relay.onServiceGone(() => gone++);
    relay.onWindowLost((id) => lost.push(id));
    process.kill(first, 'SIGKILL');
    await waitFor(() => gone === 1 && lost.includes('w1'), 'the relay to notice');
    const again = await relay.request('w1', 'app.hello', {});
    expect(lockPid()).not.toBe(first);
    // The same pane, its shell started again (resumeAtStart: shells).
    expect(again.panes.map((p) => [p.id, p.status])).toEqual([[hello.panes[0].id, 'running']]);
  });

  it('restarts the service for an upgrade: the panes come back ended by it, shells resumed', async () => {
    await relay.start();
    const hello = await relay.request('w1', 'app.hello', {});
    const before = lockPid();
    await relay.restartService();
    const again = await relay.request('w1', 'app.hello', {});
    expect(lockPid()).not.toBe(before);
    const pane = again.panes.find((p) => p.id === hello.panes[0].id)!;
    // A plain shell resumes by itself (resumeAtStart: shells).
    expect(pane.status).toBe('running');
    const session = JSON.parse(fs.readFileSync(path.join(state.env.XDG_STATE_HOME!, 'terminal-delight', 'session.json'), 'utf8'));
    expect(session.panes.map((p: { id: string }) => p.id)).toContain(pane.id);
  });

  it('after `service stop`, starts no service by itself: the window hears why, its requests get the sentence, and its service.start starts one', async () => {
    await relay.start();
    const first = lockPid();
    const heard: Array<{ name: EventName; payload: unknown }> = [];
    relay.onWindowEvent((id, name, payload) => {
      if (id === 'w1' && name === 'service.stopping') heard.push({ name, payload });
    });
    let gone = 0;
    relay.onServiceGone(() => gone++);
    await relay.request('w1', 'app.hello', {});
    expect(await stopService({ env: state.env, reason: 'asked' })).toBe(true);
    await waitFor(() => heard.length > 0, 'the window to hear why');
    expect(heard).toEqual([{ name: 'service.stopping', payload: { how: 'stop', message: STOPPED_BY_COMMAND } }]);
    // Nothing starts it: not the main's link, not a window's request.
    await expect(relay.request('w1', 'app.hello', {})).rejects.toThrow(STOPPED_BY_COMMAND);
    await expect(relay.ask('service.info', {})).rejects.toThrow(STOPPED_BY_COMMAND);
    expect(lockPid()).toBe(0);
    expect(gone).toBe(0);
    // The window's Start the service.
    expect(await relay.request('w1', 'service.start', {})).toEqual({ ok: true });
    const second = lockPid();
    expect(second).not.toBe(0);
    expect(second).not.toBe(first);
    expect((await relay.request('w1', 'app.hello', {})).panes.length).toBeGreaterThan(0);
  });
});
