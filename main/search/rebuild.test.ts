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
import { STATE_FILE } from '../surfaces/store.ts';
import { DB_FILE, SearchIndex } from './index.ts';

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

describe('the cards on the benches', () => {
  const count = (query: string) => {
    const r = app!.search.query({ query });
    return r.ok ? r.hits.length : -1;
  };

  it('are indexed from the pane folders when the index is made anew or is behind (a kill before their flush), each revision once', async () => {
    const paths = statePaths(state.env);
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const pane = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const folder = app.panes.folder(pane.id);
    fs.writeFileSync(path.join(folder, 'cache.json'), JSON.stringify({ td: '0.4', kind: 'response', id: 'cache-eviction', title: 'Cache eviction policy', model: { layman: 'evict zqxcardone first' } }));
    await waitFor(() => count('zqxcardone') === 1, 'the card, as it arrived');
    await app.dispose();
    app = undefined;

    // A card on the bench the index does not hold (the service killed before its flush): put on the saved bench as the store keeps it.
    const benchFile = path.join(folder, STATE_FILE);
    const bench = JSON.parse(fs.readFileSync(benchFile, 'utf8')) as { surfaces: Array<Record<string, unknown>> };
    expect(bench.surfaces.map((s) => s.id)).toEqual(['cache-eviction']);
    bench.surfaces.push({ ...bench.surfaces[0], id: 'retry-policy', title: 'Retry policy', model: { layman: 'retry zqxcardtwo twice' }, order: 2 });
    fs.writeFileSync(benchFile, JSON.stringify(bench));

    // A restart, the index kept: the card it lacks is read from the bench, the other not again.
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    await waitFor(() => count('zqxcardtwo') === 1, 'the card the index lacked');
    expect(count('zqxcardone')).toBe(1);
    const card = app.search.query({ query: 'zqxcardtwo' });
    expect(card.ok && card.hits[0]).toMatchObject({ kind: 'surface', paneId: pane.id, ref: 'retry-policy' });
    await app.dispose();
    app = undefined;

    // The index made anew (found corrupt): both cards, once each.
    fs.writeFileSync(path.join(paths.state, DB_FILE), 'SQLite format 3\u0000'.padEnd(8192, 'x'));
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    expect(app.search.index.movedAside).toBeDefined();
    await waitFor(() => count('zqxcardone') === 1 && count('zqxcardtwo') === 1, 'the cards in the new index');
    // (The bench read again at the next start, changed or not, adds nothing.)
    fs.utimesSync(benchFile, new Date(), new Date(Date.now() + 5000));
    await app.dispose();
    const other = path.join(paths.surfaces, '20261201-0badf00d', 'psync0001');
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', id: 'e9', at: '2026-12-01T09:01:00Z', agent: 'gemini', type: 'prompt', text: 'zqxsyncword' })}\n`);
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    await waitFor(() => count('zqxsyncword') === 1, 'a later file read (the start\'s reading done)');
    expect(count('zqxcardone')).toBe(1);
    expect(count('zqxcardtwo')).toBe(1);
  }, 60_000);
});

describe('the copies of a corrupt index', () => {
  it('are kept one at a time: the newest, the older ones deleted (the rows\' file with its companions, and the words\' file on its own)', () => {
    const dir = path.join(state.dir, 'ix');
    fs.mkdirSync(dir);
    const old = ['search.db.corrupt-20261101T000000Z', 'search.db.corrupt-20261101T000000Z-wal', 'search.db.corrupt-20261101T000000Z-fts', 'search.db.corrupt-20261102T000000Z', 'search.db-fts.corrupt-20261101T000000Z', 'search.db-fts.corrupt-20261101T000000Z-wal'];
    for (const name of old) fs.writeFileSync(path.join(dir, name), 'an old copy');
    fs.writeFileSync(path.join(dir, 'search.db.keep-me'), 'not a copy');
    fs.writeFileSync(path.join(dir, DB_FILE), 'SQLite format 3\u0000'.padEnd(8192, 'x'));
    const ix = new SearchIndex(dir);
    const rows = path.basename(ix.movedAside!.to);
    // The rows' copies: the new one only; the words' file's own copies are another file's, left until it is moved aside itself.
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('search.db.corrupt-')).every((f) => f.startsWith(rows))).toBe(true);
    expect(fs.existsSync(path.join(dir, rows))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'search.db-fts.corrupt-20261101T000000Z'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'search.db.keep-me'))).toBe(true);
    const words = path.basename(ix.renewWords('a test').to);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('search.db-fts.corrupt-')).every((f) => f.startsWith(words))).toBe(true);
    expect(fs.existsSync(path.join(dir, words))).toBe(true);
    ix.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes('.corrupt-')).every((f) => f.startsWith(rows) || f.startsWith(words))).toBe(true);
  });
});
