/**
 * A quiet pane's keys beside floods (issue 38, item 2), in a real browser: one window with a
 * quiet pane running `cat` and four shells running `yes` (floods in the background, redrawn from
 * snapshots about once a second). Keys typed without a pause into the quiet pane for about 3 s
 * all echo, in order, none lost; the floods are still redrawn while the keys come; and Ctrl-C
 * typed into each flood in turn brings back every prompt. (Written for a hold of the floods'
 * redraws while an echo is awaited, tried and not kept: docs/spec/performance.md, "A quiet pane
 * beside 16 floods: the echo before other panes' redraws".)
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectService, type ServiceConnection } from '../main/service/client.ts';
import { windowForFile } from './fixture.ts';
import { stats } from './history.ts';
import type { Serve, TdPage } from './harness.ts';

let serve: Serve;
let win: TdPage;
let conn: ServiceConnection;
const FLOODS = 4;

interface Stats { redraws: number; written: number }

windowForFile((w) => ({ serve, win } = w), { theme: 'dark', viewport: { width: 1400, height: 900 } });

beforeAll(async () => {
  conn = await connectService({ env: { ...process.env, XDG_STATE_HOME: serve.stateDir, TD_SOCKET: path.join(serve.stateDir, 'app.sock') }, client: 'cli', start: false });
}, 120_000);

afterAll(() => {
  conn?.close();
});

describe('a quiet pane\'s keys beside floods', () => {
  it('all echo in order while the floods are still redrawn, and Ctrl-C to each flood in turn brings back its prompt', async () => {
    const [quiet] = (await win.paneIds()) as [string];
    await win.waitForPrompt(quiet);
    const floods: string[] = [];
    for (let i = 0; i < FLOODS; i++) floods.push((await conn.request('pane.create', { splitOf: quiet, direction: i % 2 ? 'down' : 'right' })).id);
    await win.waitFor(async () => (await win.paneIds()).length === FLOODS + 1, 'the floods\' panes in the window');
    for (const id of floods) await win.waitForPrompt(id, 30_000);
    await win.typeLine(quiet, 'cat');
    for (const id of floods) await win.typeLine(id, 'yes');
    // In the background: each flood redrawn from a snapshot (pane.stale) at least once.
    const before = new Map<string, number>();
    await win.waitFor(async () => {
      for (const id of floods) before.set(id, (await stats<Stats>(win, id)).redraws);
      return [...before.values()].every((n) => n > 0);
    }, 'every flood redrawn in the background', 60_000);

    // A key every 30 ms for ~3 s.
    const typed = Array.from({ length: 100 }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
    await win.focusKeyboard(quiet);
    await win.page.keyboard.type(typed, { delay: 30 });
    // The line as typed (the terminal's echo), then as cat gives it back; wrapped rows joined.
    await win.page.keyboard.press('Enter');
    await win.waitFor(async () => (await win.text(quiet)).replace(/\n/g, '').split(typed).length === 3, 'the typed line echoed, then given back by cat', 30_000);
    const after = new Map<string, number>();
    for (const id of floods) after.set(id, (await stats<Stats>(win, id)).redraws);
    for (const id of floods) expect(after.get(id)!, `redraws of flood ${id} while the keys were typed`).toBeGreaterThan(before.get(id)!);

    for (const id of floods) {
      await win.focusKeyboard(id);
      await win.page.keyboard.press('Control+C');
    }
    for (const id of floods) await win.waitForPrompt(id, 30_000);
  }, 240_000);
});
