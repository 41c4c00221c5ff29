/**
 * End to end in the app: a program in a real pane sends a surface with the pane's own
 * environment (`terminal-delight surface` on its PATH), the bench shows it, a person acts
 * and the program in the pane reads the line back.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { foregroundGroup } from '../panes/proc.ts';
import { LOGIN_BASH, tempState, waitFor } from '../panes/testing.ts';

let state: ReturnType<typeof tempState>;
let app: App;
const CLIENT = { id: 'w1' };

beforeEach(async () => {
  state = tempState();
  app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
});
afterEach(async () => {
  await app.dispose();
  state.cleanup();
});

describe('surfaces in the app', () => {
  it('a surface sent from inside a pane reaches the bench, and the action line comes back to the pane', async () => {
    const pane = app.panes.create({ command: LOGIN_BASH });
    const out = path.join(state.dir, 'reply.txt');
    const doc = JSON.stringify({ td: '0.4', kind: 'decision', id: 'pick', title: 'Pick one', model: { question: 'A or B?', options: [{ name: 'A' }, { name: 'B', recommended: true }] } });
    fs.writeFileSync(path.join(state.dir, 'doc.json'), doc);
    // In the pane: send the surface, then a program (as an agent is) waits for the line
    // the bench types back. (The shell's own `read` would not do: with the shell in the
    // foreground the bench cannot tell it from a prompt, and refuses to type.)
    app.panes.write(pane.id, `terminal-delight surface ${path.join(state.dir, 'doc.json')} && head -n 1 | tr -d '\\r\\n' > ${out}\r`);
    const s = await waitFor(() => app.surfaces.list(pane.id).find((x) => x.id === 'pick'), 'the surface on the bench', 20_000);
    expect(s).toMatchObject({ kind: 'decision', shelf: 'Decide', route: 'file', file: 'pick.json' });
    expect(app.panes.get(pane.id)!.unseen).toBe(1);
    // The surface can arrive before `head` starts (the shell is in the foreground for a
    // moment between the two commands, and the bench would rightly refuse): wait for it.
    const foreground = () => {
      const group = foregroundGroup(app.panes.pid(pane.id)!);
      try {
        return group ? fs.readFileSync(`/proc/${group}/comm`, 'utf8').trim() : '';
      } catch {
        return '';
      }
    };
    await waitFor(() => foreground() === 'head', 'head reading in the pane', 20_000);
    const r = await app.core.request('surface.act', { paneId: pane.id, surfaceId: 'pick', action: 'choose', target: 'B', comment: 'B, because\nit is \u001b[1mbold' }, CLIENT);
    expect(r.ok).toBe(true);
    const line = await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8'), 'the line read in the pane', 20_000);
    expect(line).toBe(`[workbench:${app.panes.get(pane.id)!.tag}] choose on surface pick · B — B, because it is  [1mbold`);
  });
});
