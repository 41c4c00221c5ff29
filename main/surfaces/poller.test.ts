/** The file route at idle: 32 panes of 64 surfaces each, read once a second, under 1% of a core. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState } from '../panes/testing.ts';
import { FolderPoller, isCandidate } from './poller.ts';
import { SurfaceStore } from './store.ts';

let state: ReturnType<typeof tempState>;
beforeEach(() => { state = tempState(); });
afterEach(() => state.cleanup());

describe('FolderPoller', () => {
  it('reads only top-level surface names', () => {
    expect(['a.json', 'x-y.json'].every(isCandidate)).toBe(true);
    expect(['.a.json', '.a.json.tmp', 'a.json.tmp', 'bench.json', '.bench-state.json', 'actions.jsonl', 'inbound.jsonl', 'answers', 'a.JSON'].some(isCandidate)).toBe(false);
  });

  it('costs under 10 ms of CPU per second for 32 idle panes of 64 surfaces (1% of a core)', async () => {
    const root = path.join(state.dir, 'panes');
    const folder = (p: string) => {
      const d = path.join(root, p);
      fs.mkdirSync(d, { recursive: true });
      return d;
    };
    let arrivals = 0;
    const store = new SurfaceStore({ folder, changed: () => { arrivals++; }, unseen: () => undefined });
    const poller = new FolderPoller({ store, folder }, { events: false });
    for (let p = 0; p < 32; p++) {
      for (let i = 0; i < 64; i++) {
        fs.writeFileSync(path.join(folder(`p${p}`), `s${i}.json`), JSON.stringify({ td: '0.4', kind: 'response', id: `s${i}`, model: { layman: 'x'.repeat(400) } }));
      }
      poller.add(`p${p}`);
    }
    expect(arrivals).toBe(32 * 64);
    store.flush();
    // The poller reads every pane once per second: the CPU of one full read is its cost per second.
    let best = Infinity;
    for (let batch = 0; batch < 3; batch++) {
      const c0 = process.cpuUsage();
      for (let k = 0; k < 10; k++) poller.scanAll();
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / 1000 / 10);
    }
    expect(arrivals).toBe(32 * 64); // nothing read twice
    expect(best).toBeLessThan(10);
    await poller.close();
  });
});
