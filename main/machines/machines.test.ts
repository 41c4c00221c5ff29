import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../preload/contract.ts';
import { appRoot } from '../panes/env.ts';
import { waitFor } from '../panes/testing.ts';
import { connectService } from '../service/client.ts';
import { startService, type RunningService } from '../service/service.ts';
import { PROTOCOL } from '../version.ts';
import { paneIds } from '../panes/layout.ts';
import { captureSession, loadSession } from '../state/session.ts';
import { nearCli, startHomeAndFar, stopHomeAndFar, type FarMachine } from './sshd-testing.ts';
import { gitTestEnv, makeRepo } from '../worktrees/testing.ts';
import { statePaths } from '../paths.ts';
import { HTML_CSP } from '../surfaces/artifacts.ts';
import { qualifyResult } from '../../common/qualify.ts';

let m: FarMachine;
let home: RunningService;

beforeAll(async () => {
  ({ m, home } = await startHomeAndFar());
}, 30_000);
afterAll(() => stopHomeAndFar({ m, home }));

/** `terminal-delight …` as a person runs it, with the near machine's environment. */
function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return nearCli(m, args);
}

/** A window on the home service's socket, as serve's relay is: JSON lines, pings answered (its own and the far service's, through via). */
async function homeWindow(): Promise<{ send(f: unknown): void; via(f: unknown): void; frames: Array<Record<string, unknown>>; wait(pred: (f: Record<string, unknown>) => boolean, what: string, ms?: number): Promise<Record<string, unknown>>; close(): void }> {
  const socket = net.createConnection(home.paths.serviceSocket);
  await new Promise((r) => socket.once('connect', r));
  const token = fs.readFileSync(home.paths.serviceToken, 'utf8').trim();
  socket.write(JSON.stringify({ t: 'hello', protocol: PROTOCOL, version: '0.1.0', token, client: 'serve' }) + '\n');
  const frames: Array<Record<string, unknown>> = [];
  let buf = '';
  socket.setEncoding('utf8');
  const send = (f: unknown): void => void socket.write(JSON.stringify(f) + '\n');
  socket.on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const f = JSON.parse(buf.slice(0, nl)) as Record<string, unknown>;
      buf = buf.slice(nl + 1);
      if (f.t === 'ping') send({ t: 'pong' });
      const inner = f.f as Record<string, unknown> | undefined;
      if (f.t === 'via' && inner?.t === 'ping') send({ t: 'via', m: f.m, f: { t: 'pong' } });
      frames.push(f);
    }
  });
  return {
    send,
    via: (f) => send({ t: 'via', m: m.alias, f }),
    frames,
    wait: (pred, what, ms = 20_000) => waitFor(() => frames.find(pred), what, ms),
    close: () => socket.destroy(),
  };
}

/** A command-line client of the home service, once the machine is connected. */
async function connectedCli(): Promise<Awaited<ReturnType<typeof connectService>>> {
  const conn = await connectService({ env: m.near.env, client: 'cli' });
  await waitFor(async () => (await conn.request('machine.list', {})).find((i) => i.name === m.alias && i.state === 'connected'), 'the machine connected', 60_000);
  return conn;
}

const viaRes = (id: number) => (f: Record<string, unknown>): boolean => f.t === 'via' && (f.f as { t?: string; id?: number }).t === 'res' && (f.f as { id?: number }).id === id;

describe('machines: the home service holds a link to another machine', () => {
  it('connect, its panes, a pane opened there and read through the home service, a dropped link that comes back and replays, a click refused meanwhile', async () => {
    // `terminal-delight connect` starts nothing on a new port and leaves the link with the home service.
    const c = await cli(['connect', m.alias]);
    expect(c.stderr).toBe('');
    expect(c.stdout).toMatch(new RegExp(`^connected ${m.alias} \\(${m.alias}\\): terminal-delight \\S+ on \\S+, 0 panes running\\n$`));
    expect(c.code).toBe(0);
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const [listed] = await conn.request('machine.list', {});
    expect(listed).toMatchObject({ name: m.alias, target: m.alias, state: 'connected', panes: [], attempts: 0 });
    expect(listed!.colour).toMatch(/^#[0-9a-f]{6}$/);
    // Saved in the home settings, for the next start and for + Machine…'s list.
    expect(home.app.settings.get().machines).toEqual([{ name: m.alias, target: m.alias, colour: listed!.colour }]);

    // A window: attaches to the far machine through via frames; its app.hello starts the far machine's first pane.
    const win = await homeWindow();
    win.via({ t: 'req', id: 1, name: 'app.hello', req: {} });
    const hello = (await win.wait(viaRes(1), 'the far app.hello')).f as { ok: boolean; res: { panes: Array<{ id: string }>; service: { pid: number } } };
    expect(hello.ok).toBe(true);
    const farPid = (JSON.parse(fs.readFileSync(path.join(m.farEnv.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'), 'utf8')) as { pid: number }).pid;
    expect(hello.res.service.pid).toBe(farPid);
    const paneId = hello.res.panes[0]!.id;
    win.via({ t: 'req', id: 2, name: 'pane.input', req: { paneId, data: 'echo far-$((6*7))\r' } });
    await win.wait(viaRes(2), 'the input answered');
    await win.wait((f) => f.t === 'via' && (f.f as { name?: string }).name === 'pane.output' && /far-42/.test(JSON.stringify(f.f)), 'far-42 from the far pane, through the home service');
    // The home service lists it, qualified by its machine.
    await waitFor(async () => (await conn.request('machine.list', {}))[0]!.panes.includes(`${m.alias}/${paneId}`), 'the far pane in machine.list');

    // The link drops (ssh killed) while the machine's sshd is down: reconnecting, with backoff.
    const changes: MachineInfo[] = [];
    conn.onEvent('machine.changed', (info) => changes.push(info));
    const sshPid = (await conn.request('machine.list', {}))[0]!.sshPid!;
    await m.sshdDown();
    process.kill(sshPid, 'SIGKILL');
    await waitFor(() => changes.find((i) => i.state === 'reconnecting'), 'the machine reconnecting');
    // A click while it is unreachable: refused at once, in one sentence; nothing is queued.
    win.via({ t: 'req', id: 3, name: 'pane.input', req: { paneId, data: 'echo never-$((1+1))\r' } });
    expect((await win.wait(viaRes(3), 'the refusal')).f).toEqual({ t: 'res', id: 3, ok: false, error: `${m.alias} is unreachable (reconnecting): nothing was sent` });
    // Output printed there meanwhile (typed at the far machine's own desk).
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    await farDesk.request('pane.input', { paneId, data: 'echo meanwhile-$((2*3))\r' });
    farDesk.close();
    // Tries again with backoff, each failure saying why.
    const failing = await waitFor(() => changes.find((i) => i.state === 'reconnecting' && i.attempts >= 2), 'two failed attempts', 30_000);
    expect(failing.reason).toMatch(new RegExp(`^${m.alias} is unreachable \\(ssh: connect to host 127\\.0\\.0\\.1 port ${m.port}: Connection refused\\): check that it is up and its address and port are right, then \`terminal-delight connect ${m.alias}\`$`));
    // Retry now: tried at once (while sshd is still down: one more failure, saying why).
    const retried = await waitFor(() => conn.request('machine.retry', { name: m.alias }).catch(() => undefined), 'a retry that is not racing a backoff try');
    expect(retried).toMatchObject({ state: 'reconnecting', reason: failing.reason });
    expect(retried.attempts).toBeGreaterThan(failing.attempts);
    await m.sshdUp();
    await waitFor(() => changes.find((i) => i.state === 'connected'), 'the machine back', 60_000);
    expect((await conn.request('machine.retry', { name: m.alias })).state).toBe('connected');
    await expect(conn.request('machine.retry', { name: 'elsewhere' })).rejects.toThrow('no machine is named "elsewhere": connect it with `terminal-delight connect HOST`');

    // The window attaches again (a new channel) and its snapshot replays what was printed meanwhile.
    win.via({ t: 'req', id: 4, name: 'app.hello', req: {} });
    await win.wait(viaRes(4), 'app.hello again');
    win.via({ t: 'req', id: 5, name: 'pane.snapshot', req: { paneId } });
    const snap = (await win.wait(viaRes(5), 'the snapshot')).f as { ok: boolean; res: { data: string } };
    expect(snap).toMatchObject({ ok: true });
    expect(snap.res.data).toContain('meanwhile-6');
    expect(snap.res.data).not.toContain('never-2');
    win.close();
    conn.close();
  }, 120_000);

  it('refuses a machine it cannot log in to, in one sentence, and keeps nothing of it', async () => {
    const c = await cli(['connect', 'nobody@127.0.0.1:1', '--name', 'nowhere']);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/^connect: nowhere is unreachable \(ssh: connect to host 127\.0\.0\.1 port 1: Connection refused\): check that it is up and its address and port are right, then `terminal-delight connect nobody@127\.0\.0\.1:1 --name nowhere`\n$/);
    expect(home.app.settings.get().machines.map((r) => r.name)).toEqual([m.alias]);
  }, 60_000);

  it('makes a pane on a machine and holds it in the home layout beside the focused pane, saved with the session, and takes it out when it is closed there', async () => {
    const conn = await connectedCli();
    await expect(conn.request('pane.create', { machine: 'elsewhere' })).rejects.toThrow('no machine is named "elsewhere": connect it with + Machine… or `terminal-delight connect HOST`');
    const localBefore = home.app.panes.list().length;
    const far = await conn.request('pane.create', { machine: m.alias, direction: 'right' });
    expect(far.id).toMatch(new RegExp(`^${m.alias}/[A-Za-z0-9_-]+$`));
    expect(paneIds(home.app.panes.layout)).toContain(far.id);
    expect(home.app.panes.focused).toBe(far.id);
    // Splitting a far pane makes the new one on the same machine, beside it.
    const second = await conn.request('pane.create', { splitOf: far.id, direction: 'down' });
    expect(second.id.startsWith(`${m.alias}/`)).toBe(true);
    expect(paneIds(home.app.panes.layout)).toEqual(expect.arrayContaining([far.id, second.id]));
    // An agent on the machine, likewise (its command run there).
    const agent = await conn.request('agent.new', { machine: m.alias, command: ['/bin/sh', '-c', 'echo agent-on-$(hostname); exec cat'] });
    expect(agent.id.startsWith(`${m.alias}/`)).toBe(true);
    expect(agent.kind).toBe('agent');
    expect(paneIds(home.app.panes.layout)).toContain(agent.id);
    // Nothing was made here: they all run on the far machine.
    expect(home.app.panes.list().length).toBe(localBefore);
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    const running = (await farDesk.request('service.info', {})).running.map((p) => `${m.alias}/${p.paneId}`);
    expect(running).toEqual(expect.arrayContaining([far.id, second.id, agent.id]));
    await farDesk.request('pane.close', { paneId: agent.id.split('/')[1]! });
    // The saved session remembers which pane lives where: the far ids stay in its layout through a load.
    const file = path.join(m.near.env.HOME!, 'session-copy.json');
    fs.writeFileSync(file, JSON.stringify(captureSession(home.app.panes)));
    expect(paneIds(loadSession(file)!.layout)).toEqual(expect.arrayContaining([far.id, second.id]));
    // Closed on the far machine: out of the home layout.
    await farDesk.request('pane.close', { paneId: second.id.split('/')[1]! });
    await waitFor(() => !paneIds(home.app.panes.layout).includes(second.id) || undefined, 'the closed far pane out of the home layout');
    expect(paneIds(home.app.panes.layout)).toContain(far.id);
    // Closed from here: there and in the home layout; a far id no machine has any more just leaves the layout.
    const third = await conn.request('pane.create', { machine: m.alias });
    expect(await conn.request('pane.close', { paneId: third.id })).toEqual({ closed: true });
    expect(paneIds(home.app.panes.layout)).not.toContain(third.id);
    expect((await farDesk.request('service.info', {})).running.map((p) => p.paneId)).not.toContain(third.id.split('/')[1]);
    home.app.panes.attach('gone-box/p1');
    expect(await conn.request('pane.close', { paneId: 'gone-box/p1' })).toEqual({ closed: true });
    expect(paneIds(home.app.panes.layout)).not.toContain('gone-box/p1');
    farDesk.close();
    conn.close();

    // The home service restarts: the far pane is back in its place in the layout, and its machine connects again.
    await home.stop('test restart');
    const again = await startService({ env: m.near.env, idleMs: 0 });
    if (!again.started) throw new Error('no home service the second time');
    home = again.service;
    expect(paneIds(home.app.panes.layout)).toContain(far.id);
    const conn2 = await connectService({ env: m.near.env, client: 'cli' });
    await waitFor(async () => (await conn2.request('machine.list', {})).find((i) => i.name === m.alias && i.state === 'connected' && i.panes.includes(far.id)), 'the machine connected again, its pane running', 30_000);
    // A window says hello to that machine and reads the pane it had.
    const win = await homeWindow();
    win.via({ t: 'req', id: 1, name: 'app.hello', req: { far: true } });
    const hello = (await win.wait(viaRes(1), 'the far hello')).f as { ok: boolean; res: { panes: Array<{ id: string }> } };
    expect(hello.res.panes.map((p) => `${m.alias}/${p.id}`)).toContain(far.id);
    win.close();
    conn2.close();
  }, 90_000);

  it('cuts off a far host that sends a frame no link carries, an oversized one, or a line no service sends, in one sentence each, touching nothing here', async () => {
    // What runs there answers with a good hello, then one bad frame (bytes as printf writes them).
    const hello = JSON.stringify({ bridge: 1, version: '0.1.0', protocol: PROTOCOL, hostname: 'evil', service: { pid: 1, startedAt: 'x', version: '0.1.0', protocol: PROTOCOL } });
    const hostile = (name: string, bytes: string): string => {
      // (After a second: the home side has asked for its control channel by then.)
      fs.writeFileSync(path.join(m.farEnv.HOME!, name), `#!/bin/sh\nprintf 'TD-BRIDGE %s\\n' '${hello}'\nsleep 1\nprintf '${bytes}'\nsleep 10\n`, { mode: 0o755 });
      return `~/${name}`;
    };
    const cases: Array<[string, string, RegExp]> = [
      ['kind', '\\000\\000\\000\\006\\011\\000\\000\\000\\001x', /^hostile-kind sent what a link does not carry \(it sent a frame of kind 9, which no link knows\): the link was cut off$/],
      ['big', '\\177\\377\\377\\377\\002\\000\\000\\000\\001', /^hostile-big sent what a link does not carry \(it sent a frame of 2147483647 bytes, outside 5 to 16777221\): the link was cut off$/],
      // Its control channel opened, then a line no service sends.
      ['line', '\\000\\000\\000\\007\\001\\000\\000\\000\\001{}\\000\\000\\000\\021\\002\\000\\000\\000\\001{"t":"nope"}', /^hostile-line sent a frame of type "nope" on its control channel: the link was cut off$/],
    ];
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const before = home.app.panes.list().length;
    const layoutBefore = JSON.stringify(home.app.panes.layout);
    for (const [name, bytes, said] of cases) {
      await expect(conn.request('machine.connect', { target: m.alias, name: `hostile-${name}`, command: hostile(`hostile-${name}`, bytes) })).rejects.toThrow(said);
    }
    expect((await conn.request('machine.list', {})).map((i) => i.name)).toEqual([m.alias]);
    expect(home.app.settings.get().machines.map((r) => r.name)).toEqual([m.alias]);
    expect(home.app.panes.list().length).toBe(before);
    expect(JSON.stringify(home.app.panes.layout)).toBe(layoutBefore);
    conn.close();
  }, 60_000);

  it('shows a far service of another version, and restarts it on request: the link comes back to the new one', async () => {
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const before = (await conn.request('machine.list', {})).find((i) => i.name === m.alias)!;
    expect(before.state).toBe('connected');
    const lock = path.join(m.farEnv.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock');
    const oldPid = (JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid;
    // The far machine's terminal-delight was updated: its next service is another version (same protocol).
    fs.writeFileSync(m.farEnv.TD_TEST_VERSION_FILE!, '9.9.9\n');
    const changes: MachineInfo[] = [];
    conn.onEvent('machine.changed', (info) => changes.push(info));
    expect(await conn.request('machine.restart', { name: m.alias })).toEqual({ ok: true });
    const back = await waitFor(() => changes.find((i) => i.state === 'connected'), 'the machine back after its restart', 60_000);
    expect(changes.some((i) => i.state === 'reconnecting')).toBe(true);
    expect(back.version).toBe('9.9.9');
    expect(before.version).not.toBe('9.9.9');
    expect((JSON.parse(fs.readFileSync(lock, 'utf8')) as { pid: number }).pid).not.toBe(oldPid);
    await expect(conn.request('machine.restart', { name: 'elsewhere' })).rejects.toThrow('no machine is named "elsewhere"');
    conn.close();
  }, 90_000);

  it('a machine connected for the first time brings its running panes into the home layout', async () => {
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    // The same far service under a second name: its running panes are new to this layout.
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    const running = (await farDesk.request('service.info', {})).running.map((p) => p.paneId);
    farDesk.close();
    expect(running.length).toBeGreaterThan(0);
    const twin = await conn.request('machine.connect', { target: m.alias, name: 'twin' });
    expect(twin.state).toBe('connected');
    expect(paneIds(home.app.panes.layout)).toEqual(expect.arrayContaining(running.map((p) => `twin/${p}`)));
    conn.close();
  }, 60_000);

  it('answers a window\'s request still in flight when the link drops, in one sentence, so nothing waits for ever', async () => {
    const conn = await connectService({ env: m.near.env, client: 'cli' });
    const info = await waitFor(async () => (await conn.request('machine.list', {})).find((i) => i.name === m.alias && i.state === 'connected'), 'the machine connected');
    const win = await homeWindow();
    win.via({ t: 'req', id: 1, name: 'app.hello', req: { far: true } });
    await win.wait(viaRes(1), 'the far hello');
    // The far service stops answering (stopped, not gone); a request goes out and waits.
    const farPid = (JSON.parse(fs.readFileSync(path.join(m.farEnv.XDG_STATE_HOME!, 'terminal-delight', 'run', 'service.lock'), 'utf8')) as { pid: number }).pid;
    process.kill(farPid, 'SIGSTOP');
    try {
      win.via({ t: 'req', id: 2, name: 'service.info', req: {} });
      process.kill(info.sshPid!, 'SIGKILL');
      const res = (await win.wait(viaRes(2), 'the answer for the request in flight')).f as { ok: boolean; error: string };
      expect(res.ok).toBe(false);
      expect(res.error).toMatch(new RegExp(`^the link to ${m.alias} dropped before it answered \\(.+\\): it may not have been done$`));
    } finally {
      process.kill(farPid, 'SIGCONT');
    }
    await waitFor(async () => (await conn.request('machine.list', {})).find((i) => i.name === m.alias && i.state === 'connected'), 'the machine back', 60_000);
    win.close();
    conn.close();
  }, 90_000);

  it('makes a worktree agent and opens a Tick on a machine: made there, their panes placed in the home layout; refused in one sentence for a machine not connected', async () => {
    const conn = await connectedCli();
    // A repository on the far machine only.
    const repo = makeRepo(path.join(m.far.dir, 'src', 'far-app'), gitTestEnv(m.farEnv, m.far.dir));
    const wt = await conn.request('worktree.new', { machine: m.alias, repo, name: 'far-fix', command: ['/bin/sh', '-c', 'echo agent-in-$(basename $PWD); exec cat'] });
    if (!wt.ok) throw new Error(wt.error);
    expect(wt.pane.id).toMatch(new RegExp(`^${m.alias}/[A-Za-z0-9_-]+$`));
    expect(paneIds(home.app.panes.layout)).toContain(wt.pane.id);
    expect(fs.existsSync(wt.worktree.path)).toBe(true);
    expect(wt.worktree.path.startsWith(m.far.dir)).toBe(true);
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    expect((await farDesk.request('worktree.list', {})).map((w) => w.path)).toContain(wt.worktree.path);
    // Its refusal there comes back as it is (a folder that is no repository there).
    expect(await conn.request('worktree.new', { machine: m.alias, repo: m.far.dir })).toMatchObject({ ok: false });
    // A Tick opened there (its program run there), its pane placed here.
    const counter = path.join(appRoot, 'assets', 'ticks', 'counter', 'counter.mjs');
    const tick = await conn.request('tick.open', { machine: m.alias, command: [process.execPath, counter], cwd: m.far.dir });
    if (!tick.ok) throw new Error(tick.error);
    expect(tick.paneId).toMatch(new RegExp(`^${m.alias}/[A-Za-z0-9_-]+$`));
    expect(paneIds(home.app.panes.layout)).toContain(tick.paneId);
    expect((await farDesk.request('tick.list', {})).map((i) => i.id)).toContain(tick.instance.id);
    // Nothing of either was made here.
    expect(home.app.panes.list().map((p) => p.id)).not.toContain(tick.paneId.split('/')[1]);
    await expect(conn.request('tick.open', { machine: 'elsewhere', command: [process.execPath, counter] })).rejects.toThrow('no machine is named "elsewhere"');
    farDesk.close();
    conn.close();
  }, 90_000);

  it('serves a far artifact\'s file at /m/<machine>/… through the control channel, with this machine\'s own sandbox; nothing for what that machine does not serve', async () => {
    const conn = await connectedCli();
    const far = await conn.request('pane.create', { machine: m.alias, command: ['/bin/sh', '-c', 'exec cat'] });
    const local = far.id.split('/')[1]!;
    // An artifact card on the far pane naming a page on the far machine.
    const page = path.join(m.far.dir, 'report.html');
    fs.writeFileSync(page, '<h1>far report</h1><script>parent.postMessage("x","*")</script>');
    const farState = statePaths(m.farEnv);
    await waitFor(() => fs.existsSync(farState.sessionFile) || undefined, 'the far session saved');
    const session = (JSON.parse(fs.readFileSync(farState.sessionFile, 'utf8')) as { session: string }).session;
    const folder = path.join(farState.surfaces, session, local);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'rep.json'), JSON.stringify({ td: '0.4', id: 'rep', kind: 'artifact', title: 'Report', model: { location: page } }));
    // A window opens it through via: its URL is the home service's /m/<machine>/… (common/qualify.ts).
    const win = await homeWindow();
    win.via({ t: 'req', id: 1, name: 'app.hello', req: { far: true } });
    await win.wait(viaRes(1), 'the far hello');
    let view: { kind?: string; url?: string } = {};
    await waitFor(async () => {
      win.via({ t: 'req', id: 2, name: 'artifact.open', req: { paneId: local, surfaceId: 'rep' } });
      const f = (await win.wait(viaRes(2), 'artifact.open')).f as { ok: boolean; res: typeof view };
      win.frames.splice(0);
      view = f.ok ? f.res : {};
      return view.kind === 'html' || undefined;
    }, 'the far card read');
    const url = qualifyResult(m.alias, 'artifact.open', view) as { url: string };
    expect(url.url).toBe(`/m/${m.alias}/artifact/${local}/rep/report.html`);
    const file = await home.app.core.resolveFile('m', decodeURIComponent(url.url.slice('/m/'.length)));
    expect(file).toBeDefined();
    expect(fs.readFileSync(file!.path, 'utf8')).toBe(fs.readFileSync(page, 'utf8'));
    expect(file!.type).toBe('text/html; charset=utf-8');
    expect(file!.csp).toBe(HTML_CSP);
    expect(file!.path.startsWith(statePaths(m.near.env).run)).toBe(true);
    expect(fs.statSync(file!.path).mode & 0o077).toBe(0);
    // What that machine does not serve (no such card, a route it has not, a machine no one connected): nothing.
    expect(await home.app.core.resolveFile('m', `${m.alias}/artifact/${local}/nope/report.html`)).toBeUndefined();
    expect(await home.app.core.resolveFile('m', `${m.alias}/nothing/x`)).toBeUndefined();
    expect(await home.app.core.resolveFile('m', `elsewhere/artifact/${local}/rep/report.html`)).toBeUndefined();
    win.close();
    conn.close();
  }, 90_000);
});
