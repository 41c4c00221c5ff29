import { describe, expect, it } from 'vitest';
import { afterTyping, ECHO_WAIT_MS, HOLD_MAX_MS, TYPING_GAP_MS } from './live.ts';

/** A page's clock, timers and frames, run by hand. */
function clock() {
  let t = 1000;
  const timers: Array<{ at: number; f: () => void }> = [];
  const frames: Array<() => void> = [];
  return {
    now: () => t,
    later: (f: () => void, ms: number) => void timers.push({ at: t + ms, f }),
    frame: (f: () => void) => void frames.push(f),
    /** Move the clock on by `ms`, running each timer due on the way, in order. */
    advance(ms: number) {
      const end = t + ms;
      for (;;) {
        timers.sort((a, b) => a.at - b.at);
        const next = timers[0];
        if (!next || next.at > end) break;
        timers.shift();
        t = Math.max(t, next.at);
        next.f();
      }
      t = end;
    },
    /** Draw a frame: its callbacks run. */
    paint() {
      for (const f of frames.splice(0)) f();
    },
  };
}

describe('afterTyping (the window\'s build waits for the echo of keys typed on the first paint)', () => {
  it('goes at once, in the same task, when no key was typed', () => {
    const c = clock();
    const gate = afterTyping({ pending: () => false, lastKeyAt: () => -Infinity }, c);
    let went = 0;
    gate(() => went++);
    expect(went).toBe(1);
  });

  it('waits while a key\'s echo is not drawn and for TYPING_GAP_MS after the last key, then for a frame (the echo painted first)', () => {
    const c = clock();
    let pending = true;
    let lastKey = c.now();
    const gate = afterTyping({ pending: () => pending, lastKeyAt: () => lastKey }, c);
    let went = 0;
    gate(() => went++);
    c.advance(20);
    expect(went).toBe(0);
    pending = false;
    lastKey = c.now();
    c.advance(TYPING_GAP_MS - 4);
    expect(went).toBe(0);
    c.advance(8);
    expect(went).toBe(0);
    // The frame that paints the echo, then the task after it.
    c.paint();
    c.advance(0);
    expect(went).toBe(1);
    c.advance(100);
    expect(went).toBe(1);
  });

  it('waits for an echo no longer than ECHO_WAIT_MS after the last key', () => {
    const c = clock();
    const lastKey = c.now();
    const gate = afterTyping({ pending: () => true, lastKeyAt: () => lastKey }, c);
    let went = 0;
    gate(() => went++);
    c.advance(ECHO_WAIT_MS - 4);
    expect(went).toBe(0);
    c.advance(8);
    c.paint();
    c.advance(0);
    expect(went).toBe(1);
  });

  it('goes on after 50 ms when the page draws no frame (hidden)', () => {
    const c = clock();
    let pending = true;
    const lastKey = c.now();
    const gate = afterTyping({ pending: () => pending, lastKeyAt: () => lastKey }, c);
    let went = 0;
    gate(() => went++);
    c.advance(8);
    pending = false;
    // Released from the wait TYPING_GAP_MS after the key, then no frame comes.
    c.advance(TYPING_GAP_MS - 8 + 45);
    expect(went).toBe(0);
    c.advance(10);
    expect(went).toBe(1);
  });

  it('holds at most HOLD_MAX_MS in all, however many steps wait and however long the keys go on', () => {
    const c = clock();
    // A key every few ms, each echo still due.
    const gate = afterTyping({ pending: () => true, lastKeyAt: () => c.now() - 2 }, { ...c, frame: undefined });
    const went: number[] = [];
    const start = c.now();
    gate(() => went.push(c.now() - start));
    c.advance(HOLD_MAX_MS - 10);
    expect(went).toEqual([]);
    gate(() => went.push(c.now() - start));
    c.advance(200);
    expect(went.length).toBe(2);
    expect(Math.max(...went)).toBeLessThanOrEqual(HOLD_MAX_MS + 60);
    // The budget spent: a later step goes at once.
    gate(() => went.push(-1));
    expect(went.at(-1)).toBe(-1);
  });
});
