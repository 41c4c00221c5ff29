// The window's first render in pieces: the headers held in it come a few panes a task, once.
import { afterEach, describe, expect, it, vi } from 'vitest';

afterEach(() => {
  vi.useRealTimers();
  vi.resetModules();
});

describe('reveal', () => {
  it('shows the held headers HEADERS_A_TURN panes a task, then says they are all shown', async () => {
    const r = await import('./reveal.ts');
    await expect(r.headersShown()).resolves.toBeUndefined();
    const ids = Array.from({ length: r.HEADERS_A_TURN * 2 + 3 }, (_, i) => `p${i}`);
    for (const id of ids) r.holdHeader(id);
    expect(ids.every((id) => r.headerHeld(id))).toBe(true);
    const heard: number[] = [];
    r.subscribeHeaders(() => heard.push(ids.filter((id) => !r.headerHeld(id)).length));
    let all = false;
    void r.headersShown().then(() => { all = true; });
    r.revealHeaders();
    // Not in the task that asked: each turn is a task of its own.
    expect(heard).toEqual([]);
    await vi.waitFor(() => expect(all).toBe(true));
    expect(heard).toEqual([r.HEADERS_A_TURN, r.HEADERS_A_TURN * 2, ids.length]);
    // Once they have started to come, nothing more is held.
    r.holdHeader('late');
    expect(r.headerHeld('late')).toBe(false);
  });

  it("shows them REVEAL_AFTER_MS on when nothing asks (the first pane's terminal never opened)", async () => {
    vi.useFakeTimers();
    const r = await import('./reveal.ts');
    r.holdHeader('a');
    vi.advanceTimersByTime(r.REVEAL_AFTER_MS - 1);
    expect(r.headerHeld('a')).toBe(true);
    vi.advanceTimersByTime(1);
    await vi.runAllTimersAsync();
    expect(r.headerHeld('a')).toBe(false);
  });
});
