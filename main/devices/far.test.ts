/**
 * The device door's inbox across machines, for real: a home service with its door on, and
 * another machine reached through the real `ssh` to a real sshd (sshd-testing.ts). A card
 * on a far pane reaches the phone with its machine's name and colour, newest first among
 * the home cards; answered from the phone, the far service writes its actions.jsonl record
 * and types the line into the far pane; answered at the far machine's own desk, it leaves
 * the phone; while the machine is unreachable its cards are not in the inbox.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineInfo, PaneInfo, Surface } from '../../preload/contract.ts';
import { FarCards, farScreen, farSurface, peekProblem, type MachinesLike } from './far.ts';
import type { AgentRow } from './inbox.ts';
import { Core } from '../core.ts';
import { waitFor } from '../panes/testing.ts';
import { connectService } from '../service/client.ts';
import { type RunningService } from '../service/service.ts';
import { farPaneFolder, startHomeAndFar, stopHomeAndFar, type FarMachine } from '../machines/sshd-testing.ts';
import { lastInbox, openDoor } from './testing.ts';

describe('the device inbox across machines', () => {
  let m: FarMachine;
  let home: RunningService;
  const WINDOW = { id: 'w1' };

  beforeAll(async () => {
    ({ m, home } = await startHomeAndFar('build-box'));
  }, 30_000);
  afterAll(() => stopHomeAndFar({ m, home }));

  it('shows a far pane\'s cards with the machine\'s name, answers them there from the phone, and loses them when answered at the far desk or the machine drops', async () => {
    const door = await openDoor(home);
    const cookie = await door.pair();
    const dev = await door.socket(cookie);
    const app = home.app;

    const connected = await app.core.request('machine.connect', { target: m.alias }, WINDOW);
    expect(connected.state).toBe('connected');
    // A far agent reading the lines typed back (into a file on that machine).
    const out = path.join(m.far.dir, 'typed-far.txt');
    const far = await app.core.request('pane.create', { machine: m.alias, kind: 'agent', command: ['/usr/bin/env', 'bash', '-c', `exec cat > ${out}`] }, WINDOW);
    expect(far.id).toMatch(new RegExp(`^${m.alias}/[A-Za-z0-9_-]+$`));
    const local = far.id.split('/')[1]!;
    const farDir = await farPaneFolder(m, local);

    // A home card first, then a far one: the far one is newest.
    const homePane = app.panes.create({ command: ['/bin/bash', '-l'], cwd: m.near.dir });
    app.surfaces.ingest(homePane.id, { td: '0.4', kind: 'question', id: 'near-q', title: 'Near?', model: { question: 'Here?', options: [{ name: 'yes' }] } }, 'file');
    await waitFor(() => lastInbox(dev.got)?.length === 1, 'the home card on the phone');
    fs.writeFileSync(path.join(farDir, 'deploy.json'), JSON.stringify({ td: '0.4', kind: 'decision', id: 'deploy', title: 'Deploy?', model: { question: 'Ship it to staging?', options: [{ name: 'Ship' }, { name: 'Wait' }] } }));
    const both = await waitFor(() => (lastInbox(dev.got)?.length === 2 ? lastInbox(dev.got) : undefined), 'the far card on the phone', 20_000);
    expect(both.map((c) => c.surfaceId)).toEqual(['deploy', 'near-q']);
    expect(both[0]).toMatchObject({ paneId: far.id, machine: m.alias, machineColour: connected.colour, kind: 'decision', text: 'Ship it to staging?', agent: 'bash', buttons: [{ label: 'Ship', action: 'choose', target: 'Ship' }, { label: 'Wait', action: 'choose', target: 'Wait' }, { label: 'Reject', action: 'reject' }] });
    expect(both[1]!.machine).toBeUndefined();
    expect((await door.call('GET', '/api/inbox', { cookie })).body).toEqual(both);

    // Answered from the phone: the far service's own click (its actions.jsonl, the line in its pane).
    expect((await door.call('POST', '/api/act', { cookie, body: { paneId: far.id, surfaceId: 'deploy', action: 'choose', target: 'Nope' } })).body).toMatchObject({ ok: false, error: expect.stringContaining('is not one of this card\'s answers') });
    const res = await door.call('POST', '/api/act', { cookie, body: { paneId: far.id, surfaceId: 'deploy', action: 'choose', target: 'Ship', comment: 'from the phone\u001b[2J', revision: both[0]!.revision } });
    expect(res.body).toEqual({ ok: true });
    const records = fs.readFileSync(path.join(farDir, 'actions.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records).toEqual([{ td: '0.4', type: 'action', surface: 'deploy', action: 'choose', target: 'Ship', comment: 'from the phone\u001b[2J', at: expect.any(String) }]);
    await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').includes(`] choose on surface deploy · Ship — from the phone [2J`), 'the line typed into the far pane', 20_000);
    await waitFor(() => lastInbox(dev.got)?.length === 1, 'the answered far card gone from the phone');
    expect(lastInbox(dev.got)!.map((c) => c.surfaceId)).toEqual(['near-q']);

    // A far card answered at that machine's own desk leaves the phone; the phone's late answer is refused.
    fs.writeFileSync(path.join(farDir, 'port.json'), JSON.stringify({ td: '0.4', kind: 'question', id: 'port', title: 'Port?', model: { question: 'Which port?', options: [{ name: '8080' }, { name: '9090' }] } }));
    await waitFor(() => lastInbox(dev.got)?.some((c) => c.surfaceId === 'port'), 'the second far card on the phone', 20_000);
    const desk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    expect((await desk.request('surface.act', { paneId: local, surfaceId: 'port', action: 'choose', target: '9090' })).ok).toBe(true);
    desk.close();
    await waitFor(() => lastInbox(dev.got)?.length === 1, 'the card answered at the far desk gone from the phone');
    expect((await door.call('POST', '/api/act', { cookie, body: { paneId: far.id, surfaceId: 'port', action: 'choose', target: '8080' } })).body).toMatchObject({ ok: false, error: expect.stringContaining('no longer waiting') });

    // The machine drops (its ssh killed while its sshd is down): its cards leave the inbox, and come back with it.
    fs.writeFileSync(path.join(farDir, 'later.json'), JSON.stringify({ td: '0.4', kind: 'question', id: 'later', title: 'Later?', model: { question: 'Now or later?', options: [{ name: 'now' }] } }));
    await waitFor(() => lastInbox(dev.got)?.length === 2, 'the third far card on the phone', 20_000);
    const sshPid = (await app.core.request('machine.list', {}, WINDOW))[0]!.sshPid!;
    await m.sshdDown();
    process.kill(sshPid, 'SIGKILL');
    await waitFor(() => lastInbox(dev.got)?.length === 1, 'the unreachable machine\'s cards gone from the phone', 20_000);
    await m.sshdUp();
    await app.core.request('machine.retry', { name: m.alias }, WINDOW).catch(() => undefined);
    await waitFor(() => lastInbox(dev.got)?.some((c) => c.surfaceId === 'later' && c.machine === m.alias), 'the far card back once the machine is', 60_000);
    expect(fs.readFileSync(out, 'utf8')).not.toContain('8080');
    dev.ws.close();
  }, 120_000);

  it('lists far agents with their machine, shows a far terminal by peeking (a flood keeps flowing through many peeks), and types into it only when allowed', async () => {
    const app = home.app;
    // (Connected already by the test above; connected now when run alone.)
    await waitFor(() => app.machines.list().every((x) => x.state === 'connected'), 'the machine back', 60_000);
    expect((await app.core.request('machine.connect', { target: m.alias }, WINDOW)).state).toBe('connected');
    const door = await openDoor(home);
    const cookie = await door.pair('Far Phone');
    const dev = await door.socket(cookie);
    const done = path.join(m.far.dir, 'flood-done');
    const typed = path.join(m.far.dir, 'typed-far-agent.txt');
    // A far agent that floods its terminal (a million lines), says so at the end, then reads what is typed.
    const far = await app.core.request('pane.create', { machine: m.alias, kind: 'agent', command: ['/usr/bin/env', 'bash', '-c', `seq 1 1000000; echo FLOOD-END; echo yes > ${done}; exec cat > ${typed}`] }, WINDOW);
    const local = far.id.split('/')[1]!;
    const colour = app.machines.list().find((x) => x.name === m.alias)!.colour;

    // Peeked again and again while it floods: the home service never becomes a reader, so the flood is never held.
    let duringFlood = 0;
    for (let i = 0; i < 40 && !fs.existsSync(done); i++) {
      const shot = (await app.machines.ask(m.alias, 'pane.peek', { paneId: local })) as { text: string; data: string; cols: number; rows: number };
      expect(shot.cols).toBeGreaterThan(0);
      expect(typeof shot.text).toBe('string');
      if (!fs.existsSync(done)) duringFlood++;
    }
    expect(duringFlood).toBeGreaterThan(5);
    await waitFor(() => fs.existsSync(done), 'the far flood to its end after the peeks', 90_000);
    await expect(app.machines.ask(m.alias, 'pane.peek', { paneId: local, scrollback: -1 })).rejects.toThrow(/scrollback -1 is not usable/);

    // The phone's Agents tab: the far agent, qualified, with its machine's name and colour, and its last lines.
    const lastAgents = () => dev.got.filter((x) => x.t === 'agents').at(-1)?.agents as AgentRow[] | undefined;
    const row = await waitFor(() => lastAgents()?.find((a) => a.paneId === far.id && a.lastLines.includes('FLOOD-END')), 'the far agent with its last lines on the phone', 30_000);
    expect(row).toMatchObject({ paneId: far.id, machine: m.alias, machineColour: colour, agent: 'bash', status: 'idle' });
    expect((await door.call('GET', '/api/agents', { cookie })).body).toEqual(expect.arrayContaining([expect.objectContaining({ paneId: far.id, machine: m.alias })]));

    // Its terminal: a snapshot peeked on that machine, with history.
    dev.ws.send(JSON.stringify({ t: 'watch', paneId: far.id }));
    const screen = await waitFor(() => dev.got.find((x) => x.t === 'screen' && x.paneId === far.id), 'the far terminal on the phone', 30_000);
    expect(screen.error).toBeUndefined();
    expect(screen.text).toContain('FLOOD-END');
    expect(String(screen.data)).toContain('1000000');
    expect(screen).toMatchObject({ cols: expect.any(Number), rows: expect.any(Number) });

    // Read-only until the desktop allows typing; then the same checks as a home agent's, and the keys reach the far pane.
    const type = (body: Record<string, unknown>) => door.call('POST', '/api/type', { cookie, body: { paneId: far.id, ...body } }).then((r) => r.body);
    expect(await type({ text: 'ls' })).toMatchObject({ ok: false, error: expect.stringContaining('may not type') });
    expect(await app.core.request('devices.allowTyping', { name: 'Far Phone', allow: true }, WINDOW)).toEqual({ ok: true });
    expect(await type({ text: 'two\nlines' })).toMatchObject({ ok: false, error: expect.stringContaining('control character') });
    expect(await type({ text: 'x', paneId: `${m.alias}/nope` })).toMatchObject({ ok: false, error: expect.stringContaining('not a running agent') });
    expect(await type({ text: 'from the phone, far away' })).toEqual({ ok: true });
    expect(await type({ key: 'Enter' })).toEqual({ ok: true });
    await waitFor(() => fs.existsSync(typed) && fs.readFileSync(typed, 'utf8') === 'from the phone, far away\n', 'the typed line in the far agent', 20_000);
    // The terminal follows: the echo comes to the watching phone (peeked again, not as output).
    await waitFor(() => dev.got.some((x) => x.t === 'screen' && x.paneId === far.id && String(x.text).includes('from the phone, far away')), 'the echo on the phone', 20_000);
    dev.ws.close();
  }, 180_000);
});

describe('FarCards: a machine\'s cards as its service tells them', () => {
  const pane = (id: string): PaneInfo => ({ id, title: 'claude', cwd: '/srv/app', tag: 'T1', command: ['claude'], kind: 'agent' } as unknown as PaneInfo);
  const surface = (id: string, extra: Partial<Surface> = {}): Surface => ({ id, kind: 'question', title: `Q ${id}`, shelf: 'now', model: { question: `${id}?`, options: [{ name: 'yes' }] }, route: 'file', order: 1, arrivedAt: `2026-12-04T10:00:0${id.length}Z`, updatedAt: '2026-12-04T10:00:00Z', seen: false, acted: [], ...extra } as Surface);
  const info = (state: MachineInfo['state']): MachineInfo => ({ name: 'box', target: 'box', colour: '#2f81f7', state, panes: [], attempts: 0 });

  function rig(listed: { panes: unknown[]; surfaces: Record<string, unknown[]> }) {
    let emit: (machine: string, name: string, payload: unknown) => void = () => undefined;
    const asked: string[] = [];
    let changes = 0;
    const machines: MachinesLike = {
      list: () => [],
      ask: async (_m, request, req) => {
        asked.push(request);
        if (request === 'pane.list') return listed.panes;
        return listed.surfaces[(req as { paneId: string }).paneId] ?? [];
      },
      onControlEvent: (l) => {
        emit = l;
        return () => undefined;
      },
    };
    const far = new FarCards(machines, () => changes++);
    return { far, asked, emit: (name: string, payload: unknown) => emit('box', name, payload), changes: () => changes };
  }

  it('reads a machine when it connects, keeps only well-formed panes and cards, and follows its events', async () => {
    const listed = { panes: [pane('p1'), { id: '../x', title: 't' }, null] as unknown[], surfaces: { p1: [surface('a'), { id: 'bad' }, surface('done', { acted: [{ action: 'choose', at: 'x' }] })] } as Record<string, unknown[]> };
    const r = rig(listed);
    r.far.machineChanged(info('connected'));
    await waitFor(() => r.changes() > 0, 'the first read');
    expect(r.asked.filter((x) => x !== 'pane.peek')).toEqual(['pane.list', 'surface.list']);
    expect(r.far.cards().map((c) => [c.paneId, c.surfaceId, c.machine, c.machineColour])).toEqual([['box/p1', 'a', 'box', '#2f81f7']]);
    // Connected again with another colour: its cards say it, and the phone is told.
    const before = r.changes();
    r.far.machineChanged({ ...info('connected'), colour: '#d29922' });
    expect(r.changes()).toBe(before + 1);
    expect(r.far.cards().map((c) => c.machineColour)).toEqual(['#d29922']);
    r.far.machineChanged({ ...info('connected'), colour: '#d29922' });
    expect(r.changes()).toBe(before + 1);
    r.far.machineChanged(info('connected'));

    r.emit('surface.changed', { paneId: 'p1', surface: surface('bb') });
    expect(r.far.cards().map((c) => c.surfaceId).sort()).toEqual(['a', 'bb']);
    r.emit('surface.changed', { paneId: 'p1', removedId: 'a' });
    r.emit('surface.changed', { paneId: 'p1', surface: { id: 'broken' } });
    r.emit('surface.changed', { paneId: '../../etc', surface: surface('x') });
    expect(r.far.cards().map((c) => c.surfaceId)).toEqual(['bb']);
    // A pane it did not know: read again (the service lists it now, with its card).
    listed.panes.push(pane('p2'));
    listed.surfaces.p2 = [surface('c')];
    r.emit('pane.updated', pane('p2'));
    await waitFor(() => r.far.cards().some((c) => c.paneId === 'box/p2'), 'the new pane\'s card');
    // Gone there: its cards go (p1's surfaces re-read meanwhile are the service's, hence `a` again).
    listed.panes = listed.panes.filter((p) => (p as PaneInfo | null)?.id !== 'p1');
    r.emit('pane.removed', { paneId: 'p1' });
    await waitFor(() => (r.far.cards().every((c) => c.paneId !== 'box/p1') ? true : undefined), 'p1\'s cards gone');
    expect(r.far.cards().map((c) => c.surfaceId)).toEqual(['c']);
    // Down: none of its cards.
    r.far.machineChanged(info('reconnecting'));
    expect(r.far.cards()).toEqual([]);
  });

  it('tells the phone in one sentence when a far service is too old to be peeked, and lists far agents with their machine', async () => {
    // The words an older build's core answers a request it does not know with (this build's own, asked a name it lacks).
    const home = new Core();
    const refusal = await home.request('pane.peek-not-in-this-build' as never, {} as never, { id: 'x' }).catch((e: Error) => e.message);
    const old = new Error(String(refusal).replace('pane.peek-not-in-this-build', 'pane.peek'));
    const agent = { ...pane('p1'), kind: 'agent', agent: { status: 'working', since: '2026-12-04T10:00:00Z' } } as unknown as PaneInfo;
    let emit: (machine: string, name: string, payload: unknown) => void = () => undefined;
    const machines: MachinesLike = {
      list: () => [],
      ask: async (_m, request) => {
        if (request === 'pane.list') return [agent, { ...pane('p2'), kind: 'shell' }];
        if (request === 'pane.peek') throw old;
        return [];
      },
      onControlEvent: (l) => {
        emit = l;
        return () => undefined;
      },
    };
    let agentsChanged = 0;
    const far = new FarCards(machines, (agents) => void (agents && agentsChanged++));
    far.machineChanged(info('connected'));
    await waitFor(() => agentsChanged > 0, 'the first read');
    emit('box', 'pane.updated', agent);
    expect(far.agents()).toEqual([{ paneId: 'box/p1', agent: 'claude', title: 'claude', folder: '/srv/app', status: 'working', since: '2026-12-04T10:00:00Z', lastLines: [], machine: 'box', machineColour: '#2f81f7' }]);
    const shot = await far.screen('box', 'p1');
    expect(shot).toEqual({ error: 'the machine box runs an older Terminal Delight that cannot show its terminals on a phone: update it there, then restart its service (terminal-delight machine restart box).' });
    expect(peekProblem('box', new Error('box is unreachable (reconnecting): nothing was sent'))).toBe('the machine box could not show this terminal: box is unreachable (reconnecting): nothing was sent');
    // Not an agent's pane, or not there: nothing is asked.
    expect(await far.screen('box', 'p2')).toEqual({ error: 'this pane is not an agent\'s, or has closed' });
    expect(await far.screen('other', 'p1')).toEqual({ error: 'this pane is not an agent\'s, or has closed' });
    expect(farScreen({ text: 'a', data: 'b', cols: 0, rows: 30 })).toBeUndefined();
    expect(farScreen({ text: 'a', data: 'b', cols: 120, rows: 30 })).toEqual({ text: 'a', data: 'b', cols: 120, rows: 30 });
    far.dispose();
  });

  it('takes a surface only with the fields a card needs', () => {
    expect(farSurface(surface('ok'))).toBeDefined();
    expect(farSurface({ ...surface('ok'), model: 'x' })).toBeUndefined();
    expect(farSurface({ ...surface('ok'), title: 5 })).toBeUndefined();
    expect(farSurface({ ...surface('ok'), acted: {} })).toBeUndefined();
    expect(farSurface([])).toBeUndefined();
  });
});
