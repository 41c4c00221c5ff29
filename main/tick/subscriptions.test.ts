import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TickHost } from './host.ts';
import { waitFor } from '../panes/testing.ts';

const SCRIPTED = path.join(import.meta.dirname, 'testdata', 'scripted.mjs');
let host: TickHost;

afterEach(async () => {
  await host?.dispose();
});

async function open(): Promise<string> {
  host ??= new TickHost({ env: process.env });
  const r = await host.open({ command: [process.execPath, SCRIPTED, 'good'], cwd: os.tmpdir() });
  if (!r.ok) throw new Error(r.error);
  return r.instance.id;
}

describe('subscriptions (Ticks run directly, no pane)', () => {
  it('a flood of 10,000 updates is delivered as the latest state with the right merged count', async () => {
    host = new TickHost({ env: process.env });
    const id = await open();
    const sub = host.subscriptions.subscribe(id, 50);
    const call = await host.call(id, 'flood', { count: 10_000 });
    expect(call).toMatchObject({ ok: true, result: { seq: 10_000 } });
    const [d] = await host.subscriptions.next([sub.id], 10_000);
    expect(d).toMatchObject({ subscription: sub.id, instance: id, seq: 10_000, merged: 10_000, data: { n: 10_000 }, recover_with: 'history', trimmed: false });
    // Nothing new: the next wait times out empty.
    expect(await host.subscriptions.next([sub.id], 100)).toEqual([]);
    // The host stayed responsive.
    expect(await host.read(id)).toMatchObject({ ok: true, state: { seq: 10_000 } });
  });

  it('delivers no more often than the interval, merging what arrives meanwhile', async () => {
    host = new TickHost({ env: process.env });
    const id = await open();
    // An interval longer than a busy machine's stall between the first delivery and the check below.
    const sub = host.subscriptions.subscribe(id, 6000);
    await host.call(id, 'flood', { count: 1 });
    const [first] = await host.subscriptions.next([sub.id], 10_000);
    expect(first.merged).toBe(1);
    await host.call(id, 'flood', { count: 3 });
    await waitFor(async () => {
      const r = await host.read(id);
      return r.ok && r.state.seq === 4;
    }, 'the three updates to arrive');
    // Updates are waiting, but the next delivery is due only an interval after the first.
    expect(await host.subscriptions.next([sub.id], 100)).toEqual([]);
    const [second] = await host.subscriptions.next([sub.id], 20_000);
    expect(second).toMatchObject({ merged: 3, seq: 4 });
  });

  it('several subscriptions due at once each fit 4 KiB; an ended Tick is delivered as ended', async () => {
    host = new TickHost({ env: process.env });
    const a = await open();
    const b = await open();
    const sa = host.subscriptions.subscribe(a, 50);
    const sb = host.subscriptions.subscribe(b, 50);
    await Promise.all([host.call(a, 'flood', { count: 2 }), host.call(b, 'flood', { count: 5 })]);
    await new Promise((r) => setTimeout(r, 60));
    const both = await host.subscriptions.next([sa.id, sb.id], 5000);
    expect(both.map((d) => [d.instance, d.merged])).toEqual([[a, 2], [b, 5]]);
    for (const d of both) expect(Buffer.byteLength(JSON.stringify(d))).toBeLessThanOrEqual(4 * 1024);
    host.session(b)!.close('test ended it');
    const [ended] = await host.subscriptions.next([sb.id], 5000);
    expect(ended).toMatchObject({ instance: b, ended: 'test ended it' });
    await host.close(a);
    await expect(host.subscriptions.next([sa.id], 10)).rejects.toThrow(/no subscription/);
  });
});
