import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { returnMemoryWhenQuiet } from './memory.ts';

/** Panes as the returner sees them: output and removals, fed by the test. */
function panes() {
  const bus = new EventEmitter();
  return {
    onOutput: (fn: (id: string, data: string) => void) => {
      bus.on('output', fn);
      return () => bus.off('output', fn);
    },
    onRemoved: (fn: (id: string) => void) => {
      bus.on('removed', fn);
      return () => bus.off('removed', fn);
    },
    output: (chars: number) => bus.emit('output', 'p1', 'x'.repeat(chars)),
    removed: () => bus.emit('removed', 'p1'),
  };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('giving memory back', () => {
  it('collects once output goes quiet after a flood, not during it, and not after a trickle', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, 60);
    p.output(1000);
    await sleep(120);
    expect(collected).toBe(0);
    for (let i = 0; i < 10; i++) {
      p.output(1024 * 1024);
      await sleep(20);
    }
    expect(collected).toBe(0);
    await sleep(150);
    expect(collected).toBe(1);
    r.dispose();
  });

  it('collects after a pane closed', async () => {
    const p = panes();
    let collected = 0;
    const r = returnMemoryWhenQuiet(p, () => collected++, 30);
    p.removed();
    await sleep(100);
    expect(collected).toBe(1);
    r.dispose();
    p.removed();
    await sleep(100);
    expect(collected).toBe(1);
  });
});
