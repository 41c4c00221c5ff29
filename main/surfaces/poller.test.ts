/** The file route at idle: 32 panes of 64 surfaces each, read again and again, nothing read twice. Its CPU: npm run bench -- surfaces. */
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

  it('reads 32 idle panes of 64 surfaces once, and nothing again while nothing changes', async () => {
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
    for (let k = 0; k < 30; k++) poller.scanAll();
    expect(arrivals).toBe(32 * 64); // nothing read twice
    // A change is still seen among them.
    fs.writeFileSync(path.join(folder('p7'), 's3.json'), JSON.stringify({ td: '0.4', kind: 'response', id: 's3', model: { layman: 'changed' } }));
    poller.scanAll();
    expect(arrivals).toBe(32 * 64 + 1);
    await poller.close();
  });
});
