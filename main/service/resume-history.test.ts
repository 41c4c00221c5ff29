// A pane's history comes back exact after the service is killed (issue 38): a real service,
// a real pane whose program writes a coloured random stream of thousands of lines (colours,
// wide characters, long lines that wrap: main/panes/screen-testing.ts), the service killed
// with SIGKILL once it has kept the pane's screen, a new service started (and killed and
// started again before it saved anything new); each time the ended pane's
// whole history, replayed into a fresh terminal as a window does, is a reference xterm's fed
// the same bytes, cell by cell (characters, widths, colours, attributes, wrapping, and the
// background of each row's empty end); a second pane's stream of cursor moves and clears
// comes back as a window fetched it from the live pane before the kill.
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
    // A second pane's stream moves the cursor over what it wrote and clears: what xterm's
    // serialize addon cannot write back as it was (docs/spec/service.md) is compared with what
    // a window fetched from the live pane before the kill, every cell.
    const file2 = path.join(state.dir, 'moves.txt');
    fs.writeFileSync(file2, '');
    const pane2 = await conn.request('pane.create', { command: ['tail', '-n', '+1', '-f', file2] });
    fs.appendFileSync(file2, stream(rng(3_839), pane2.cols, 3_000, true) + `\x1b[0m\x1b[999;1H\r\n${END}`);
    const ref = reference(cols, rows, 10_000);
    const before = reference(pane2.cols, pane2.rows, 10_000);
    try {
      // The same bytes as the pane's terminal passes them on (its tty makes LF a CR LF).
      ref.write(data.replaceAll('\n', '\r\n'));
      // Thousands of rows of history, fewer than the scrollback holds.
      expect(ref.term.buffer.active.baseY).toBeGreaterThan(3_000);
      expect(ref.term.buffer.active.baseY).toBeLessThan(9_000);
      const kept = statePaths(state.env).surfaces;
      // Kept once its output has been quiet for a second: the file that holds the stream's end holds all of it.
      for (const id of [pane.id, pane2.id]) {
        await waitFor(async () => (await conn!.request('pane.peek', { paneId: id })).text.includes(END), 'the stream written', 60_000, 100);
        const keptFile = () => findFile(kept, id);
        await waitFor(() => keptFile() && fs.readFileSync(keptFile()!, 'utf8').includes(END), 'the pane\'s screen kept', 60_000, 100);
      }
      before.write((await conn.request('pane.snapshot', { paneId: pane2.id, scrollback: 'all' })).data);
      const b2 = before.term.buffer.active;
      expect(b2.baseY).toBeGreaterThan(1_000);
      const wantMoves = visibleCells(before.term, true, true).slice(0, b2.baseY + b2.cursorY + 1);
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
        const snap2 = await conn.request('pane.snapshot', { paneId: pane2.id, scrollback: 'all' });
        const win2 = reference(pane2.cols, pane2.rows, 10_000);
        try {
          win2.write(snap2.data);
          const got = visibleCells(win2.term, true, true).slice(0, wantMoves.length);
          const diff = got.findIndex((row, i) => row !== wantMoves[i]);
          expect({ round, moves: true, diff, got: got[diff], want: wantMoves[diff] }).toEqual({ round, moves: true, diff: -1, got: undefined, want: undefined });
        } finally {
          win2.term.dispose();
        }
      }
    } finally {
      ref.term.dispose();
      before.term.dispose();
    }
  }, 180_000);
});

/** The kept screen of pane `id` under `dir` (surfaces/<session>/<pane>/). */
function findFile(dir: string, id: string): string | undefined {
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && e.name === '.last-screen.ans' && path.basename(e.parentPath) === id) return path.join(e.parentPath, e.name);
  }
  return undefined;
}
