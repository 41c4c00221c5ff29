import { afterEach, describe, expect, it, vi } from 'vitest';
import { ECHO_HOLD_MAX_MS, ECHO_HOLD_MS, SnapshotQueue } from './snapshots.ts';

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

  describe('keys typed into a pane hold the other panes\' snapshots until its echo is drawn', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    /** A queue whose frames are begun by the test (`frame()`), on fake timers. */
    function held() {
      vi.useFakeTimers();
      const frames: Array<() => void> = [];
      const q = new SnapshotQueue(8, { afterFrame: (f) => frames.push(f), now: () => Date.now() });
      const order: string[] = [];
      const job = (id: string) => q.run(() => 1, async () => { order.push(id); }, id);
      const frame = () => {
        for (const f of frames.splice(0)) f();
      };
      return { q, order, job, frame };
    }

    it('asks for the typed pane\'s own at once, the others once its output\'s frame has begun', async () => {
      const { q, order, job, frame } = held();
      q.typed('quiet');
      const jobs = [job('flood-1'), job('quiet'), job('flood-2')];
      await vi.advanceTimersByTimeAsync(0);
      expect(order).toEqual(['quiet']);
      // Output of another pane ends nothing.
      q.answered('flood-1');
      frame();
      await vi.advanceTimersByTimeAsync(0);
      expect(order).toEqual(['quiet']);
      q.answered('quiet');
      await vi.advanceTimersByTimeAsync(0);
      expect(order).toEqual(['quiet']);
      frame();
      await Promise.all(jobs);
      expect(order).toEqual(['quiet', 'flood-1', 'flood-2']);
    });

    it('holds them ECHO_HOLD_MS at most when no output comes, and ECHO_HOLD_MAX_MS at most while keys keep coming', async () => {
      const { q, order, job } = held();
      q.typed('quiet');
      const one = job('flood-1');
      await vi.advanceTimersByTimeAsync(ECHO_HOLD_MS - 1);
      expect(order).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      await one;
      expect(order).toEqual(['flood-1']);
      // A key every 50 ms, none answered: the held snapshot still goes ECHO_HOLD_MAX_MS after it was asked for.
      q.typed('quiet');
      const two = job('flood-2');
      for (let t = 0; t < ECHO_HOLD_MAX_MS - 50; t += 50) {
        await vi.advanceTimersByTimeAsync(50);
        q.typed('quiet');
      }
      expect(order).toEqual(['flood-1']);
      await vi.advanceTimersByTimeAsync(51);
      await two;
      expect(order).toEqual(['flood-1', 'flood-2']);
    });

    it('a snapshot that came meanwhile is drawn once the echo is (drawable), the typed pane\'s at once', async () => {
      const { q, frame } = held();
      const drawn: string[] = [];
      q.typed('quiet');
      void q.drawable('quiet').then(() => drawn.push('quiet'));
      void q.drawable('flood-1').then(() => drawn.push('flood-1'));
      await vi.advanceTimersByTimeAsync(0);
      expect(drawn).toEqual(['quiet']);
      // A later key's hold is not ended by the frame of an earlier one's echo.
      q.answered('quiet');
      q.typed('quiet');
      frame();
      await vi.advanceTimersByTimeAsync(0);
      expect(drawn).toEqual(['quiet']);
      q.answered('quiet');
      frame();
      await vi.advanceTimersByTimeAsync(0);
      expect(drawn).toEqual(['quiet', 'flood-1']);
      // Nothing typed: at once.
      let now = false;
      void q.drawable('flood-2').then(() => (now = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(now).toBe(true);
    });
  });
});
