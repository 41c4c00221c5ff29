import { describe, expect, it } from 'vitest';
import { Core } from '../core.ts';
import { ClientHub, type Link } from './hub.ts';
import { waitFor } from '../panes/testing.ts';

/** A window's transport kept in memory: what the hub sends it, as text. */
function link(): Link & { sent: string[] } {
  const sent: string[] = [];
  return { sent, send: (t) => void sent.push(t), backlog: () => 0, close() {} };
}

const req = (id: number, name: string, r: unknown): string => JSON.stringify({ t: 'req', id, name, req: r });

describe('a connection to the core', () => {
  it("hands a key to its pane before it takes a heavy ask that came after it in the same task (the pane's write to the PTY is a microtask)", async () => {
    const core = new Core();
    const order: string[] = [];
    // As a pane takes input (main/panes/pane.ts Pane.write): the pieces of one task go to its PTY in one write, a microtask later.
    core.handle('pane.input', (r) => {
      order.push(`key ${r.data}`);
      queueMicrotask(() => order.push(`written ${r.data}`));
      return undefined as never;
    });
    core.handle('pane.snapshot', (r) => {
      order.push(`snapshot ${r.paneId}`);
      return { data: '', cols: 80, rows: 24, complete: true } as never;
    });
    const hub = new ClientHub(core, { pingMs: 0 });
    const l = link();
    const c = hub.connect(l, { idPrefix: 'ws', shell: 'serve' });
    // One read of the socket: two keys, then another pane's snapshot.
    c.receive(req(1, 'pane.input', { paneId: 'pa', data: 'k' }));
    c.receive(req(2, 'pane.input', { paneId: 'pa', data: 'l' }));
    c.receive(req(3, 'pane.snapshot', { paneId: 'pb' }));
    await waitFor(() => order.includes('snapshot pb'), 'the snapshot');
    expect(order).toEqual(['key k', 'key l', 'written k', 'written l', 'snapshot pb']);

    // Waiting behind heavy asks (one a turn): the key, held by its own pane's ask, goes once that is answered,
    // and the next heavy ask only after it has been written.
    order.length = 0;
    c.receive(req(10, 'pane.snapshot', { paneId: 'pc' }));
    c.receive(req(11, 'pane.snapshot', { paneId: 'pa' }));
    c.receive(req(12, 'pane.snapshot', { paneId: 'pd' }));
    c.receive(req(13, 'pane.input', { paneId: 'pa', data: 'm' }));
    c.receive(req(14, 'pane.input', { paneId: 'pa', data: 'n' }));
    await waitFor(() => order.includes('snapshot pd'), 'the last snapshot');
    expect(order).toEqual(['snapshot pc', 'snapshot pa', 'key m', 'key n', 'written m', 'written n', 'snapshot pd']);
    hub.dispose();
  });

  it('says a window is on its way when its own transport opens and when its first paint is asked for, before its hello', () => {
    const core = new Core();
    const hub = new ClientHub(core, { pingMs: 0 });
    const said: string[] = [];
    hub.onComing(() => said.push('coming'));
    hub.onWindows((n) => said.push(`windows ${n}`));
    // A command's connection is no window.
    hub.connect(link(), { idPrefix: 'sock', shell: 'cli' });
    expect(said).toEqual([]);
    hub.connect(link(), { idPrefix: 'ws', shell: 'serve' }, { helloWithinMs: 10_000 });
    expect(said).toEqual(['coming']);
    const relay = hub.connect(link(), { idPrefix: 'sock', shell: 'serve' }, { control: true, onFirstPaint: () => ({ theme: null, markup: null }) });
    relay.receive(JSON.stringify({ t: 'first-paint', id: 1 }));
    expect(said).toEqual(['coming', 'coming']);
    hub.dispose();
  });
});
