import { afterEach, describe, expect, it } from 'vitest';
import { FLOW } from '../../preload/contract.ts';
import { Pane, SNAPSHOT_MIN_SCROLLBACK, SNAPSHOT_SCROLLBACK, snapshotScrollback } from './pane.ts';
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

/** A real PTY running `script` (node -e), every output event kept. */
function run(script: string) {
  state = tempState();
  const events: string[] = [];
  let exited = false;
  const p = new Pane(
    { id: 'p2', tag: 'tag00002', kind: 'shell', command: [process.execPath, '-e', script], cwd: state.dir, env: state.env as Record<string, string>, cols: 80, rows: 24, scrollback: 1000 },
    {
      output: (_p, data) => events.push(data),
      updated: () => undefined,
      exited: () => (exited = true),
    },
  );
  p.attachReader('w');
  pane = p;
  return { pane: p, text: () => events.join(''), events, exited: () => exited };
}

describe("a pane's output as bytes", () => {
  it('reads the PTY as bytes and decodes a batch at a time: a character cut between reads, and between batches, arrives whole', async () => {
    // Each part is written after a pause longer than a batch, so each comes in a read and a batch of its own.
    const r = run(`
      const parts = [Buffer.from([0xf0, 0x9f]), Buffer.from([0x98, 0x80, 0x20, 0xc3]), Buffer.from([0xa9, 0xe2, 0x82]), Buffer.from([0xac, 0x0a])];
      let i = 0;
      const next = () => { process.stdout.write(parts[i++]); if (i < parts.length) setTimeout(next, 250); else setTimeout(() => process.exit(0), 60); };
      next();`);
    // node-pty's stream no longer decodes each read (where it did, every read came as a string of its own).
    const socket = (r.pane as unknown as { proc: { _socket: { _readableState: { decoder: unknown } } } }).proc._socket;
    expect(socket._readableState.decoder).toBeNull();
    await waitFor(() => r.exited(), 'the program to finish');
    expect(r.text()).toBe('\u{1F600} é€\r\n');
    // No event held half a character (U+FFFD), and the parts came as more than one event.
    expect(r.events.join('')).not.toContain('\uFFFD');
    expect(r.events.length).toBeGreaterThan(1);
    expect(r.pane.screenText().split('\n')[0]).toBe('\u{1F600} é€');
  });

  it('ends a character the process was cut off in with U+FFFD, as a UTF-8 decoder does', async () => {
    const r = run(`process.stdout.write(Buffer.from([0x61, 0xe2, 0x82]), () => process.exit(0));`);
    await waitFor(() => r.exited(), 'the program to finish');
    expect(r.text()).toBe('a\uFFFD');
  });

  it('keeps the terminal in UTF-8 mode (IUTF8), so the line discipline erases a whole character', async () => {
    const r = run(`require('child_process').spawnSync('stty', ['-a'], { stdio: 'inherit' });`);
    await waitFor(() => r.exited(), 'stty to finish');
    expect(r.text()).toMatch(/(^|\s)iutf8(\s|$)/m);
  });
});

describe("a pane's input", () => {
  it('hands the pieces given in one task to the PTY as one write: a burst of keys reaches the program in one read', async () => {
    // The program reads the terminal raw and says how many bytes each read brought.
    const r = run(`
      process.stdin.setRawMode(true);
      process.stdin.on('data', (d) => { process.stdout.write('<' + d.length + '>'); if (d.includes('.')) process.exit(0); });
      process.stdout.write('ready');`);
    await waitFor(() => r.text().includes('ready'), 'the program to read its terminal raw');
    // Nine keys in one task (as a window's socket brings a burst typed while the service was
    // busy), then this thread held a while, as a busy service's is: node-pty wrote each piece
    // on its own and the next only once this thread took the one before's callback, so the
    // program read the first key alone while the thread was held (<1>, then the rest).
    for (const key of 'mk1q5380.') r.pane.write(key);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
    await waitFor(() => r.exited(), 'the program to read the keys');
    expect(r.text().replace(/^.*ready/s, '')).toBe('<9>');
  });
});

describe('the history a snapshot carries by default', () => {
  it('is four screens of the pane, at least SNAPSHOT_MIN_SCROLLBACK lines and at most SNAPSHOT_SCROLLBACK', () => {
    expect(snapshotScrollback(8)).toBe(SNAPSHOT_MIN_SCROLLBACK);
    expect(snapshotScrollback(24)).toBe(96);
    expect(snapshotScrollback(30)).toBe(120);
    expect(snapshotScrollback(80)).toBe(SNAPSHOT_SCROLLBACK);
  });
});
