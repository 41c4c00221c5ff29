import { afterEach, describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { Pane } from './pane.ts';
import { tempState, waitFor } from './testing.ts';

let state: ReturnType<typeof tempState> | undefined;
let pane: Pane | undefined;

afterEach(() => {
  pane?.dispose();
  state?.cleanup();
  pane = undefined;
  state = undefined;
});

/** A real PTY running a program that writes `total` characters, read by one window ('w'). */
function flood(total: number) {
  state = tempState();
  let received = 0;
  let exited = false;
  const p = new Pane(
    { id: 'p1', tag: 'tag00001', kind: 'shell', command: [process.execPath, '-e', `process.stdout.write('z'.repeat(${total}))`], cwd: state.dir, env: state.env as Record<string, string>, cols: 120, rows: 30, scrollback: 1000 },
    {
      output: (_p, data) => (received += data.length),
      updated: () => undefined,
      exited: () => (exited = true),
    },
  );
  p.attachReader('w');
  pane = p;
  return { pane: p, received: () => received, exited: () => exited };
}

describe('a pane held by flow control and by the output governor', () => {
  it('reads again only once neither holds it, whichever lets go first, and nothing is lost', async () => {
    const total = 2_000_000;
    const f = flood(total);
    // The window acknowledges nothing: flow control holds the PTY.
    await waitFor(() => f.pane.isPaused, 'flow control to hold the pane');
    expect(f.pane.behind('w')).toBeGreaterThan(FLOW.latencyStartChars);
    // The governor holds it too; the window catches up: the governor still holds it.
    f.pane.pace(true);
    f.pane.ack('w', f.pane.behind('w'));
    expect(f.pane.isPaused).toBe(true);
    // The governor lets go: it reads, until the window is behind again.
    f.pane.pace(false);
    expect(f.pane.isPaused).toBe(false);
    await waitFor(() => f.pane.isPaused, 'flow control to hold the pane again');
    // Now the governor holds it first and lets go while flow control still holds it: still held.
    f.pane.pace(true);
    f.pane.pace(false);
    expect(f.pane.isPaused).toBe(true);
    // The window reads everything from now on: the program finishes, every character arrives.
    const pump = setInterval(() => f.pane.ack('w', f.pane.behind('w')), 5);
    try {
      await waitFor(() => f.exited(), 'the program to finish', 60_000);
    } finally {
      clearInterval(pump);
    }
    expect(f.received()).toBe(total);
    expect(f.pane.isPaced).toBe(false);
  });
});
