import { describe, expect, it } from 'vitest';
import { SnapshotQueue } from './snapshots.ts';

describe('SnapshotQueue', () => {
  it('runs a few at a time, the lowest priority first, reading priorities when a slot frees', async () => {
    const q = new SnapshotQueue(1);
    const order: string[] = [];
    let release!: () => void;
    const first = q.run(() => 1, () => new Promise<void>((r) => { order.push('a'); release = r; }));
    let focused = 'c';
    const jobs = ['b', 'c', 'd'].map((id) => q.run(() => (id === focused ? 0 : 1), async () => { order.push(id); }));
    expect(q.pending).toBe(3);
    focused = 'd';
    release();
    await Promise.all([first, ...jobs]);
    expect(order).toEqual(['a', 'd', 'b', 'c']);
  });

  it('passes results and errors through, and keeps going after a failure', async () => {
    const q = new SnapshotQueue(2);
    await expect(q.run(() => 0, async () => { throw new Error('gone'); })).rejects.toThrow('gone');
    expect(await q.run(() => 0, async () => 42)).toBe(42);
  });
});
