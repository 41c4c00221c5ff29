import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import type { Client } from '../core.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { endedReason, loadSession, type SavedSession } from './session.ts';

let state: ReturnType<typeof tempState>;
const apps: App[] = [];
const client: Client = { id: 'test-window' };

beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  for (const a of apps.splice(0)) await a.dispose();
  state.cleanup();
});

async function start(fresh = false): Promise<App> {
  const app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh });
  apps.push(app);
  return app;
}

describe('the saved session', () => {
  it('comes back with the same session, pane ids, tags, layout and live cwd', async () => {
    const one = await start();
    const hello = await one.core.request('app.hello', {}, client);
    expect(hello.panes).toHaveLength(1);
    const first = hello.panes[0];
    const second = await one.core.request('pane.create', { splitOf: first.id, direction: 'down' }, client);
    const moved = fs.mkdtempSync(path.join(state.dir, 'moved '));
    one.panes.write(second.id, `cd '${moved}' && echo "in=$PWD"\r`);
    await waitFor(() => one.panes.screenText(second.id).includes(`in=${moved}`), 'the cd');
    // The live cwd is what the shell reports at its next prompt (OSC 7), which may come a
    // moment after the echo: saved before it, the session would keep the folder before.
    await waitFor(() => one.panes.liveCwd(second.id) === moved, 'the shell to report its new folder');
    await one.core.request('layout.set', { layout: { type: 'split', direction: 'column', sizes: [0.7, 0.3], children: [{ type: 'pane', paneId: first.id }, { type: 'pane', paneId: second.id }] } }, client);
    const sessionFile = path.join(state.env.XDG_STATE_HOME!, 'terminal-delight', 'session.json');
    await waitFor(() => fs.existsSync(sessionFile), 'the debounced save');
    await one.dispose();
    apps.length = 0;

    const saved = loadSession(sessionFile)!;
    expect(saved.session).toBe(hello.session);
    expect(saved.panes.map((p) => p.id)).toEqual([first.id, second.id]);
    expect(saved.panes[1].cwd).toBe(moved);

    const two = await start();
    const again = await two.core.request('app.hello', {}, client);
    expect(again.session).toBe(hello.session);
    expect(again.panes.map((p) => [p.id, p.tag])).toEqual([[first.id, first.tag], [second.id, second.tag]]);
    expect(again.panes[1].cwd).toBe(moved);
    expect(again.layout).toEqual({ type: 'split', direction: 'column', sizes: [0.7, 0.3], children: [{ type: 'pane', paneId: first.id }, { type: 'pane', paneId: second.id }] });
    two.panes.write(second.id, 'echo "back=$PWD id=$TD_PANE_ID"\r');
    await waitFor(() => two.panes.screenText(second.id).includes(`back=${moved} id=${second.id}`), 'the restored shell in its cwd');
  });

  it('keeps a changed pane\'s screen once its output is quiet, and says so after each round of saves', async () => {
    const one = await start();
    const hello = await one.core.request('app.hello', {}, client);
    const id = hello.panes[0].id;
    let rounds = 0;
    const stop = one.panes.keepScreens(50, () => rounds++);
    one.panes.write(id, 'echo "kept-$((40+2))"\r');
    await waitFor(() => one.panes.screenText(id).includes('kept-42'), 'the echo');
    const file = path.join(one.panes.folder(id), '.last-screen.ans');
    await waitFor(() => rounds > 0 && fs.existsSync(file) && fs.readFileSync(file, 'utf8').includes('kept-42'), 'the screen kept');
    stop();
  });

  it('brings panes back ended with why, showing their last screen; resume starts them as they were', async () => {
    const one = await start();
    const hello = await one.core.request('app.hello', {}, client);
    const id = hello.panes[0].id;
    one.settings.set({ resumeAtStart: 'none' });
    one.panes.write(id, 'echo "last-$((40+2))"\r');
    await waitFor(() => one.panes.screenText(id).includes('last-42'), 'the echo');
    await one.dispose('the service was stopped for a test');
    apps.length = 0;

    const two = await start();
    const back = two.panes.get(id)!;
    expect(back.status).toBe('exited');
    expect(back.ended).toMatchObject({ reason: 'the service was stopped for a test', resumeArgv: ['/bin/bash', '-l'] });
    await two.panes.settled(id);
    expect(two.panes.screenText(id)).toContain('last-42');
    // Still kept: a service killed before the pane's screen is saved again brings it back again.
    expect(fs.readFileSync(path.join(two.panes.folder(id), '.last-screen.ans'), 'utf8')).toContain('last-42');
    const resumed = await two.core.request('pane.resume', { paneId: id }, client);
    expect(resumed.status).toBe('running');
    expect(resumed.ended).toBeUndefined();
    two.panes.write(id, 'echo "again=$TD_PANE_ID"\r');
    await waitFor(() => two.panes.screenText(id).includes(`again=${id}`), 'the resumed shell');
    await expect(two.core.request('pane.resume', { paneId: id }, client)).rejects.toThrow(/is running: only a pane that ended with the service can be resumed/);
  });

  it('is ignored with fresh, and a damaged file starts an empty window', async () => {
    const one = await start();
    const hello = await one.core.request('app.hello', {}, client);
    await one.dispose();
    apps.length = 0;
    const fresh = await start(true);
    const h2 = await fresh.core.request('app.hello', {}, client);
    expect(h2.session).not.toBe(hello.session);
    expect(h2.panes.map((p) => p.id)).not.toContain(hello.panes[0].id);
    await fresh.dispose();
    apps.length = 0;
    fs.writeFileSync(path.join(state.env.XDG_STATE_HOME!, 'terminal-delight', 'session.json'), '{"session": 42');
    const broken = await start();
    expect(broken.panes.list()).toEqual([]);
    expect((await broken.core.request('app.hello', {}, client)).panes).toHaveLength(1);
  });

  it('says why the panes ended: a clean stop, a reboot, a crash, or the version before the service', () => {
    const base: SavedSession = { version: 2, session: 's', savedAt: '2026-11-30T10:00:00.000Z', layout: null, focused: null, panes: [], service: { pid: 1, startedAt: '2026-11-30T09:00:00.000Z' } };
    expect(endedReason({ ...base, ended: { reason: 'you quit and ended all panes', at: 'x' } })).toEqual({ reason: 'you quit and ended all panes', at: 'x' });
    expect(endedReason(base, Date.parse('2026-11-30T11:00:00.000Z')).reason).toBe('the machine restarted');
    expect(endedReason(base, Date.parse('2026-11-29T08:00:00.000Z'))).toEqual({ reason: 'the service stopped unexpectedly (killed or crashed)', at: base.savedAt });
    const file = path.join(state.dir, 'v1.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, session: 'abc-1', savedAt: 't', panes: [{ id: 'p1', tag: 'abcd1234', kind: 'shell', command: ['bash'], cwd: '/tmp' }] }));
    expect(loadSession(file)!.ended!.reason).toMatch(/^the app was closed/);
    expect(loadSession(file)!.panes[0].running).toBe(true);
  });

  it('drops malformed panes and layout leaves of a saved file', () => {
    const file = path.join(state.dir, 's.json');
    fs.writeFileSync(file, JSON.stringify({
      session: 'abc-1',
      panes: [
        { id: 'p1', tag: 'abcd1234', kind: 'shell', command: ['bash'], cwd: '/tmp' },
        { id: 'p1', tag: 'abcd1234', kind: 'shell', command: [], cwd: '/' },
        { id: '../evil', tag: 'abcd1234' },
        { id: 'p2', tag: 'BAD' },
        { id: 'p3', tag: 'zzzz9999', kind: 'tick', command: ['x'], cwd: '/' },
      ],
      layout: { type: 'split', direction: 'row', sizes: [1, 1], children: [{ type: 'pane', paneId: 'p1' }, { type: 'pane', paneId: 'p2' }] },
      focused: 'p2',
    }));
    const s = loadSession(file)!;
    expect(s.panes.map((p) => p.id)).toEqual(['p1']);
    expect(s.layout).toEqual({ type: 'pane', paneId: 'p1' });
    expect(s.focused).toBeNull();
  });
});

describe('app requests', () => {
  it('settings.set persists and emits settings.changed', async () => {
    const app = await start(true);
    const events: unknown[] = [];
    app.core.onEvent((name, payload) => name === 'settings.changed' && events.push(payload));
    const s = await app.core.request('settings.set', { fontSize: 16 }, client);
    expect(s.fontSize).toBe(16);
    expect(events).toEqual([s]);
    // The contract's schema refuses the type; the settings' own rules, the range.
    await expect(app.core.request('settings.set', { fontSize: 'big' as never }, client)).rejects.toThrow('request "settings.set": "fontSize" must be a number, not "big"; nothing was changed.');
    await expect(app.core.request('settings.set', { fontSize: 500 }, client)).rejects.toThrow(/out of range/);
  });

  it('app.hello starts a login shell when only detached panes exist', async () => {
    const app = await start(true);
    const hidden = app.panes.create({ command: ['/bin/sh', '-c', 'sleep 30'], kind: 'tick', detached: true });
    const hello = await app.core.request('app.hello', {}, client);
    expect(hello.panes.map((p) => p.id)).toContain(hidden.id);
    expect(hello.panes).toHaveLength(2);
    const shell = hello.panes.find((p) => p.id !== hidden.id)!;
    expect(shell.command).toEqual(['/bin/bash', '-l']);
    expect(hello.layout).toEqual({ type: 'pane', paneId: shell.id });
    expect((await app.core.request('app.hello', {}, client)).panes).toHaveLength(2);
  });

  it('pane.close on a tick pane only detaches its view', async () => {
    const app = await start(true);
    await app.core.request('app.hello', {}, client);
    const tick = app.panes.create({ command: ['/bin/sh', '-c', 'sleep 30'], kind: 'tick' });
    expect(app.panes.layout?.type).toBe('split');
    expect(await app.core.request('pane.close', { paneId: tick.id }, client)).toEqual({ closed: true });
    expect(app.panes.get(tick.id)?.status).toBe('running');
    expect(app.panes.layout?.type).toBe('pane');
    expect(await app.core.request('pane.close', { paneId: 'nope' }, client)).toEqual({ closed: false });
  });

  it('refuses a bad layout and a bad pane kind in one sentence', async () => {
    const app = await start(true);
    await app.core.request('app.hello', {}, client);
    await expect(app.core.request('layout.set', { layout: { type: 'pane', paneId: 'ghost' } }, client)).rejects.toThrow(/does not exist/);
    await expect(app.core.request('pane.create', { kind: 'tick' }, client)).rejects.toThrow(/cannot be created here/);
    await expect(app.core.request('pane.create', { direction: 'up' as never }, client)).rejects.toThrow('request "pane.create": "direction" must be "right" or "down", not "up"; nothing was changed.');
  });
});
