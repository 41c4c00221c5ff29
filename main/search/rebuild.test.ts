/**
 * A search index found corrupt at start is moved aside and rebuilt from what is on disk: the
 * pane folders' actions.jsonl and inbound.jsonl, and each ended pane's saved screen.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { statePaths } from '../paths.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { DB_FILE } from './index.ts';

let state: ReturnType<typeof tempState>;
let app: App | undefined;
beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  await app?.dispose();
  state.cleanup();
});

describe('a corrupt search index', () => {
  it('is moved aside, and the new one holds what the pane folders hold', async () => {
    const paths = statePaths(state.env);
    const folder = path.join(paths.surfaces, '20261201-0badf00d', 'poldpane1');
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(path.join(folder, 'actions.jsonl'), `${JSON.stringify({ td: '0.4', type: 'action', surface: 'cache-eviction', action: 'approve', target: 'LRU', comment: 'rebuilt from disk zqxrebuilt', at: '2026-12-01T09:00:00Z' })}\n`);
    fs.writeFileSync(path.join(folder, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', id: 'e1', at: '2026-12-01T09:01:00Z', agent: 'gemini', type: 'prompt', text: 'migrate the zqxusers table' })}\n`);
    fs.writeFileSync(path.join(folder, '.last-screen.ans'), '\x1b[32m$ \x1b[0mmake deploy\r\nzqxscreenword deployed\r\n$ ');
    fs.mkdirSync(paths.state, { recursive: true });
    fs.writeFileSync(path.join(paths.state, DB_FILE), 'SQLite format 3\u0000'.padEnd(8192, 'x'));

    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    expect(fs.readdirSync(paths.state).filter((f) => f.startsWith(`${DB_FILE}.corrupt-`))).toHaveLength(1);
    const find = (query: string) => {
      const r = app!.search.query({ query });
      return r.ok ? r.hits : [];
    };
    await waitFor(() => find('zqxrebuilt').length > 0 && find('zqxusers').length > 0 && find('zqxscreenword').length > 0, 'the rebuilt entries');
    expect(find('zqxrebuilt')[0]).toMatchObject({ kind: 'decision', paneId: 'poldpane1', session: '20261201-0badf00d', ref: 'cache-eviction' });
    expect(find('zqxusers')[0]).toMatchObject({ kind: 'prompt', agent: 'gemini', paneId: 'poldpane1' });
    expect(find('zqxscreenword')[0]).toMatchObject({ kind: 'output', paneId: 'poldpane1', line: 1, text: 'zqxscreenword deployed' });
  }, 60_000);
});
