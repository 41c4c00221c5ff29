// A pane's history comes back exact after the service is killed (issue 38): a real service,
// a real pane whose program writes a coloured random stream of thousands of lines (colours,
// wide characters, long lines that wrap: main/panes/screen-testing.ts), the service killed
// with SIGKILL once it has kept the pane's screen, a new service started (and killed and
// started again before it saved anything new); each time the ended pane's
// whole history, replayed into a fresh terminal as a window does, is a reference xterm's fed
// the same bytes, cell by cell (characters, widths, colours, attributes, wrapping, and the
// background of each row's empty end).
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempState, waitFor } from '../panes/testing.ts';
import { processAlive } from '../panes/proc.ts';
import { reference, rng, stream, visibleCells } from '../panes/screen-testing.ts';
import { statePaths } from '../paths.ts';
import { connectService, stopService, type ServiceConnection } from './client.ts';

let state: ReturnType<typeof tempState>;
let conn: ServiceConnection | undefined;

beforeEach(() => {
  state = tempState();
  // The kept screens are written every 200 ms (not every 30 s) for panes whose output changed.
  state.env.TD_SCREEN_SAVE_MS = '200';
});
afterEach(async () => {
  conn?.close();
  conn = undefined;
  await stopService({ env: state.env });
  state.cleanup();
});

const END = 'END-OF-STREAM';

describe.runIf(process.platform === 'linux')('a pane\'s history after the service is killed', () => {
  it('comes back cell by cell as the pane had it: thousands of coloured lines, wide characters and wrapped rows', async () => {
    conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir, fresh: true });
    const servicePid = conn.hello.pid;
    const file = path.join(state.dir, 'stream.txt');
    // Not a shell (a shell would be resumed at start, running it again): tail, which keeps running.
    fs.writeFileSync(file, '');
    const pane = await conn.request('pane.create', { command: ['tail', '-n', '+1', '-f', file] });
    const { cols, rows } = pane;
    const data = stream(rng(3_838), cols, 3_000, false) + `\x1b[0m\r\n${END}`;
    fs.appendFileSync(file, data);
    const ref = reference(cols, rows, 10_000);
    try {
      // The same bytes as the pane's terminal passes them on (its tty makes LF a CR LF).
      ref.write(data.replaceAll('\n', '\r\n'));
      // Thousands of rows of history, fewer than the scrollback holds.
      expect(ref.term.buffer.active.baseY).toBeGreaterThan(3_000);
      expect(ref.term.buffer.active.baseY).toBeLessThan(9_000);
      const kept = statePaths(state.env).surfaces;
      await waitFor(async () => (await conn!.request('pane.peek', { paneId: pane.id })).text.includes(END), 'the stream written', 60_000, 100);
      // Kept once its output has been quiet for a second: the file that holds the stream's end holds all of it.
      const keptFile = () => findFile(kept, '.last-screen.ans');
      await waitFor(() => keptFile() && fs.readFileSync(keptFile()!, 'utf8').includes(END), 'the pane\'s screen kept', 60_000, 100);
      // Killed, started again, twice: the second start (nothing new saved since the first) brings the same history back.
      let pid = servicePid;
      for (const round of [1, 2]) {
        conn!.close();
        conn = undefined;
        process.kill(pid, 'SIGKILL');
        await waitFor(() => !processAlive(pid), 'the service to be gone');
        conn = await connectService({ env: state.env, client: 'cli', cwd: state.dir });
        expect(conn.hello.pid).not.toBe(pid);
        pid = conn.hello.pid;
        const info = (await conn.request('app.hello', {})).panes.find((p) => p.id === pane.id);
        expect(info?.ended?.reason).toBe('the service stopped unexpectedly (killed or crashed)');
        const snap = await conn.request('pane.snapshot', { paneId: pane.id, scrollback: 'all' });
        expect(snap.complete).toBe(true);
        expect({ cols: snap.cols, rows: snap.rows }).toEqual({ cols, rows });
        const win = reference(cols, rows, 10_000);
        try {
          win.write(snap.data);
          // Every row down to the cursor's (the stream's end): what comes below is the ended pane's own.
          const b = ref.term.buffer.active;
          const last = b.baseY + b.cursorY;
          const want = visibleCells(ref.term, true, true).slice(0, last + 1);
          const got = visibleCells(win.term, true, true).slice(0, last + 1);
          const diff = got.findIndex((row, i) => row !== want[i]);
          expect({ round, diff, got: got[diff], want: want[diff] }).toEqual({ round, diff: -1, got: undefined, want: undefined });
        } finally {
          win.term.dispose();
        }
      }
    } finally {
      ref.term.dispose();
    }
  }, 180_000);
});

/** The first file named `name` under `dir`. */
function findFile(dir: string, name: string): string | undefined {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name === name) return path.join(e.parentPath, e.name);
  }
  return undefined;
}
