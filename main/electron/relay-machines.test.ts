import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName, MachineInfo } from '../../preload/contract.ts';
import { waitFor } from '../panes/testing.ts';
import { connectService, stopService } from '../service/client.ts';
import { startFarMachine, type FarMachine, stopFarMachine } from '../machines/sshd-testing.ts';
import { ElectronRelay } from './relay.ts';

let m: FarMachine;
let relay: ElectronRelay;

beforeAll(async () => {
  m = await startFarMachine();
  relay = new ElectronRelay({ env: m.near.env, cwd: m.near.dir, fresh: true });
  await relay.start();
}, 30_000);
afterAll(async () => {
  relay?.close();
  await stopService({ env: m.near.env, endPanes: true });
  await stopFarMachine(m);
});

describe('the Electron main carries a window\'s far panes (a real sshd and ssh, no Electron)', () => {
  it('a far pane: made, greeted, typed into, its output and snapshot qualified, acknowledged, kept alive past the far service\'s silence limit, refused while its machine is down, and back after', async () => {
    const machineEvents: MachineInfo[] = [];
    relay.onEvent((name, payload) => {
      if (name === 'machine.changed') machineEvents.push(payload as MachineInfo);
    });
    await relay.ask('machine.connect', { target: m.alias });
    const out = new Map<string, string>();
    const names: Array<[string, EventName, string | undefined]> = [];
    relay.onWindowEvent((id, name, payload) => {
      const p = payload as { paneId?: string; data?: string };
      names.push([id, name, p?.paneId]);
      if (name === 'pane.output' && p.paneId) out.set(p.paneId, (out.get(p.paneId) ?? '') + p.data);
    });
    await relay.request('w1', 'app.hello', {});

    // + Pane on the machine: the home service makes it there and answers with its qualified id.
    const far = await relay.request('w1', 'pane.create', { machine: m.alias, command: ['/bin/sh', '-c', 'exec cat'] });
    expect(far.id).toMatch(new RegExp(`^${m.alias}/[A-Za-z0-9_-]+$`));
    const local = far.id.split('/')[1]!;
    // The window greets the machine (its far hello, as renderer/machines/far-panes.ts sends it): panes qualified.
    const hello = await relay.request('w1', 'app.hello', { machine: m.alias, far: true } as never);
    expect(hello.panes.map((p) => p.id)).toContain(far.id);
    expect(hello.panes.every((p) => p.id.startsWith(`${m.alias}/`))).toBe(true);
    // Typed into by its qualified id: the far pane's output comes to this window under the same id.
    await relay.request('w1', 'pane.input', { paneId: far.id, data: 'typed-in-electron\r' });
    await waitFor(() => out.get(far.id)?.includes('typed-in-electron'), 'the far echo, qualified');
    expect(out.has(local)).toBe(false);
    expect(await relay.request('w1', 'pane.ack', { paneId: far.id, chars: out.get(far.id)!.length })).toBeNull();
    expect((await relay.request('w1', 'pane.snapshot', { paneId: far.id })).data).toContain('typed-in-electron');
    // A request naming panes of two machines is refused in one sentence, sent nowhere.
    await expect(relay.request('w1', 'pane.input', { paneId: far.id, splitOf: 'p0', data: 'x' } as never)).rejects.toThrow('a request names panes of two machines: a pane is split or moved within its own machine only');

    // Longer than the far service lets a silent window go (8 s): its pings were answered through
    // the home service, so output typed at the far desk still reaches this window.
    await new Promise((r) => setTimeout(r, 10_000));
    const farDesk = await connectService({ env: m.farEnv, client: 'cli', start: false });
    await farDesk.request('pane.input', { paneId: local, data: 'from-the-far-desk\r' });
    farDesk.close();
    await waitFor(() => out.get(far.id)?.includes('from-the-far-desk'), 'output typed there, still reaching this window');

    // ssh killed while sshd is down: a key is refused at once in one sentence; nothing is queued.
    const sshPid = (await relay.ask('machine.list', {})).find((i) => i.name === m.alias)!.sshPid!;
    await m.sshdDown();
    process.kill(sshPid, 'SIGKILL');
    await waitFor(() => machineEvents.find((i) => i.name === m.alias && i.state === 'reconnecting'), 'the machine reconnecting');
    await expect(relay.request('w1', 'pane.input', { paneId: far.id, data: 'never-typed\r' })).rejects.toThrow(`${m.alias} is unreachable (reconnecting): nothing was sent`);
    await m.sshdUp();
    await relay.ask('machine.retry', { name: m.alias }).catch(() => undefined);
    await waitFor(() => machineEvents.find((i) => i.name === m.alias && i.state === 'connected'), 'the machine back', 60_000);
    const again = await relay.request('w1', 'app.hello', { machine: m.alias, far: true } as never);
    expect(again.panes.map((p) => p.id)).toContain(far.id);
    const snap = (await relay.request('w1', 'pane.snapshot', { paneId: far.id })).data;
    expect(snap).toContain('from-the-far-desk');
    expect(snap).not.toContain('never-typed');
  }, 120_000);
});
