/**
 * What is indexed (issue 36's settings): a pane left out (`search.excludePanes`, by its id or
 * its tag) and the index turned off (`search.enabled: false`) are honoured on every path: the
 * live output, the agents' events and the decisions in the pane folders, Tick calls, the
 * ended panes' saved screens, at a restart and when the index is made anew (a closed pane's
 * folder stays, read again from the start by a new index). Real app, real panes, real files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../preload/contract.ts';
import { createApp, type App } from '../app.ts';
import { statePaths } from '../paths.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { DB_FILE } from './index.ts';
import { TAG_FILE } from './service.ts';

let state: ReturnType<typeof tempState>;
let app: App | undefined;
beforeEach(() => {
  state = tempState();
});
afterEach(async () => {
  await app?.dispose();
  app = undefined;
  state.cleanup();
});

const paths = () => statePaths(state.env);

function writeSettings(search: Partial<Settings['search']>): void {
  fs.mkdirSync(path.dirname(paths().settingsFile), { recursive: true });
  fs.writeFileSync(paths().settingsFile, JSON.stringify({ search: { enabled: true, keepDays: 90, excludePanes: [], mcpAgents: [], leaveOut: [], ...search } }));
}

const promptLine = (word: string) => `${JSON.stringify({ tdac: '0.2', id: `e-${word}`, at: '2026-12-01T09:01:00Z', agent: 'gemini', type: 'prompt', text: `migrate the ${word} table` })}\n`;
const actionLine = (word: string) => `${JSON.stringify({ td: '0.4', type: 'action', surface: 'cache-eviction', action: 'approve', target: 'LRU', comment: `decided ${word}`, at: '2026-12-01T09:00:00Z' })}\n`;

/** A closed pane's folder of an earlier session: an agent's prompt, a decision and its saved screen, each holding `word` with a suffix. */
function olderPane(paneId: string, word: string): string {
  const folder = path.join(paths().surfaces, '20261201-0badf00d', paneId);
  fs.mkdirSync(folder, { recursive: true });
  fs.writeFileSync(path.join(folder, 'inbound.jsonl'), promptLine(`${word}prompt`));
  fs.writeFileSync(path.join(folder, 'actions.jsonl'), actionLine(`${word}decision`));
  fs.writeFileSync(path.join(folder, '.last-screen.ans'), `$ make deploy\r\n${word}screen deployed\r\n$ `);
  return folder;
}

const find = (query: string) => {
  const r = app!.search.query({ query });
  if (!r.ok) throw new Error(r.error);
  return r.hits;
};

/** A file's whole length is behind the index's cursor (read, or passed over). */
const readTo = (file: string) => app!.search.index.cursor(file) === fs.statSync(file).size;

describe('a pane left out (excludePanes)', () => {
  it('by id or by tag: nothing of it is indexed, live, at a restart, nor when the index is made anew', async () => {
    const kept = olderPane('poldkept', 'zqxkept');
    const outById = olderPane('poldexcl', 'zqxbyid');
    writeSettings({ excludePanes: ['poldexcl'] });

    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    // A new index: the older folders' files and saved screens are read, the left-out one's never.
    await waitFor(() => ['zqxkeptprompt', 'zqxkeptdecision', 'zqxkeptscreen'].every((w) => find(w).length === 1), 'the kept pane\'s entries');
    await waitFor(() => readTo(path.join(outById, 'inbound.jsonl')) && readTo(path.join(outById, 'actions.jsonl')), 'the left-out pane\'s files passed over');
    for (const w of ['zqxbyidprompt', 'zqxbyiddecision', 'zqxbyidscreen']) expect(find(w)).toEqual([]);

    // Live panes: A left out by its tag, B kept.
    const a = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const b = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    app.settings.set({ search: { excludePanes: ['poldexcl', a.tag] } });
    const folderA = app.panes.folder(a.id);
    const folderB = app.panes.folder(b.id);
    app.panes.write(a.id, 'zqxaoutput\r');
    await waitFor(() => app!.panes.screenText(a.id).includes('zqxaoutput'), 'A\'s output');
    fs.writeFileSync(path.join(folderA, 'inbound.jsonl'), promptLine('zqxaprompt'));
    fs.writeFileSync(path.join(folderA, 'actions.jsonl'), actionLine('zqxadecision'));
    await app.ticks.call('zqxnoinstance', 'zqxatick', {}, { askingPaneId: a.id });
    app.panes.write(b.id, 'zqxboutput\r');
    fs.writeFileSync(path.join(folderB, 'inbound.jsonl'), promptLine('zqxbprompt'));
    fs.writeFileSync(path.join(folderB, 'actions.jsonl'), actionLine('zqxbdecision'));
    await app.ticks.call('zqxnoinstance', 'zqxbtick', {}, { askingPaneId: b.id });
    await waitFor(() => ['zqxboutput', 'zqxbprompt', 'zqxbdecision', 'zqxbtick'].every((w) => find(w).length > 0), 'B\'s entries');
    expect(find('zqxbtick')[0]).toMatchObject({ kind: 'tick', paneId: b.id });
    await waitFor(() => readTo(path.join(folderA, 'inbound.jsonl')) && readTo(path.join(folderA, 'actions.jsonl')), 'A\'s files passed over');
    const outOfA = ['zqxaoutput', 'zqxaprompt', 'zqxadecision', 'zqxatick'];
    for (const w of outOfA) expect(find(w)).toEqual([]);
    // Its tag is kept in its folder, for when it is closed.
    expect(fs.readFileSync(path.join(folderA, TAG_FILE), 'utf8').trim()).toBe(a.tag);
    // (A stays open as the app stops: its screen is saved in its folder, holding A's output.)
    await app.dispose();
    expect(fs.readFileSync(path.join(folderA, '.last-screen.ans'), 'utf8')).toContain('zqxaoutput');

    // A restart (A's pane gone, its folder there, its tag known only from the folder).
    fs.appendFileSync(path.join(kept, 'inbound.jsonl'), promptLine('zqxkeptlater'));
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    await waitFor(() => find('zqxkeptlater').length > 0, 'the kept pane\'s later prompt');
    for (const w of [...outOfA, 'zqxbyidprompt', 'zqxbyiddecision', 'zqxbyidscreen']) expect(find(w)).toEqual([]);
    await app.dispose();

    // The index made anew (found corrupt): every folder read from the start, each saved screen.
    fs.writeFileSync(path.join(paths().state, DB_FILE), 'SQLite format 3\u0000'.padEnd(8192, 'x'));
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    expect(app.search.index.movedAside).toBeDefined();
    await waitFor(() => ['zqxkeptprompt', 'zqxkeptlater', 'zqxkeptscreen', 'zqxbprompt', 'zqxbdecision'].every((w) => find(w).length > 0), 'the rebuilt entries');
    await waitFor(() => readTo(path.join(folderA, 'inbound.jsonl')) && readTo(path.join(outById, 'inbound.jsonl')), 'the left-out panes\' files passed over');
    for (const w of [...outOfA, 'zqxbyidprompt', 'zqxbyiddecision', 'zqxbyidscreen']) expect(find(w)).toEqual([]);
  }, 120_000);
});

describe('a pane left out once indexed', () => {
  it('loses what the index held of it (by id, and a closed pane by the tag its folder keeps); the others keep theirs', async () => {
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const a = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const b = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const c = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    for (const [p, w] of [[a, 'zqxforgeta'], [b, 'zqxforgetb'], [c, 'zqxforgetc']] as const) app.panes.write(p.id, `${w}\r`);
    fs.appendFileSync(path.join(paths().surfaces, app.panes.session, a.id, 'inbound.jsonl'), promptLine('zqxforgetaprompt'));
    await waitFor(() => ['zqxforgeta', 'zqxforgetb', 'zqxforgetc', 'zqxforgetaprompt'].every((w) => find(w).length > 0), 'the three panes indexed');
    // C closed, then left out by its tag (its folder keeps the tag); A by its id.
    const tagC = c.tag;
    app.panes.close(c.id);
    await waitFor(() => !app!.panes.get(c.id), 'C closed');
    app.settings.set({ search: { excludePanes: [a.id, tagC] } });
    expect(find('zqxforgeta')).toEqual([]);
    expect(find('zqxforgetaprompt')).toEqual([]);
    expect(find('zqxforgetc')).toEqual([]);
    expect(find('zqxforgetb').length).toBeGreaterThan(0);
    // Left out while the index is off: forgotten once it is on again.
    app.settings.set({ search: { enabled: false } });
    app.settings.set({ search: { excludePanes: [a.id, tagC, b.id] } });
    app.settings.set({ search: { enabled: true } });
    expect(find('zqxforgetb')).toEqual([]);
    // Left out in settings.json while the service was stopped: forgotten at its start.
    const d = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    app.panes.write(d.id, 'zqxforgetd\r');
    await waitFor(() => find('zqxforgetd').length > 0, 'D indexed');
    await app.dispose();
    writeSettings({ excludePanes: [d.id] });
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir });
    await waitFor(() => find('zqxforgetd').length === 0, 'D forgotten at the start');
  });
});

describe('what is indexed, by source (leaveOut)', () => {
  it('leaves out a pane\'s output, or its agents\' events, and indexes the rest; on again, new ones are indexed', async () => {
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    app.settings.set({ search: { leaveOut: ['agents'] } });
    const p = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const folder = path.join(paths().surfaces, app.panes.session, p.id);
    fs.mkdirSync(folder, { recursive: true });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), promptLine('zqxleftprompt'));
    app.panes.write(p.id, 'zqxkeptoutput\r');
    await waitFor(() => find('zqxkeptoutput').length > 0 && readTo(path.join(folder, 'inbound.jsonl')), 'the output indexed, the events read');
    expect(find('zqxleftprompt')).toEqual([]);
    app.settings.set({ search: { leaveOut: ['output'] } });
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), promptLine('zqxlaterprompt'));
    app.panes.write(p.id, 'zqxleftoutput\r');
    await waitFor(() => find('zqxlaterprompt').length > 0, 'the later prompt indexed');
    await waitFor(() => app!.panes.screenText(p.id).includes('zqxleftoutput'), 'the output shown');
    app.search.query({ query: 'zqxanything' });
    expect(find('zqxleftoutput')).toEqual([]);
    expect(find('zqxkeptoutput').length).toBeGreaterThan(0);
  });
});

describe('the index turned off (enabled: false)', () => {
  it('indexes nothing while off, on any path, nor afterwards what came while it was off; turned on, it indexes again, Tick calls too', async () => {
    const older = olderPane('poldoff1', 'zqxoff');
    writeSettings({ enabled: false });
    app = await createApp({ shell: 'serve', env: state.env, cwd: state.dir, fresh: true });
    const p = app.panes.create({ command: ['/bin/cat'], cwd: state.dir });
    const folder = app.panes.folder(p.id);
    app.panes.write(p.id, 'zqxoffoutput\r');
    await waitFor(() => app!.panes.screenText(p.id).includes('zqxoffoutput'), 'the output');
    fs.writeFileSync(path.join(folder, 'inbound.jsonl'), promptLine('zqxofflive'));
    await app.ticks.call('zqxnoinstance', 'zqxofftick', {}, { askingPaneId: p.id });
    await app.ticks.call('zqxnoinstance', 'zqxaloneoff', {});
    await waitFor(() => [path.join(older, 'inbound.jsonl'), path.join(older, 'actions.jsonl'), path.join(folder, 'inbound.jsonl')].every(readTo), 'the files passed over');
    expect(app.search.index.count()).toBe(0);

    app.settings.set({ search: { enabled: true } });
    app.panes.write(p.id, 'zqxonoutput\r');
    fs.appendFileSync(path.join(folder, 'inbound.jsonl'), promptLine('zqxonlive'));
    await app.ticks.call('zqxnoinstance', 'zqxontick', { note: 'zqxonargs' }, { askingPaneId: p.id });
    await app.ticks.call('zqxnoinstance', 'zqxaloneon', {});
    await waitFor(() => ['zqxonoutput', 'zqxonlive', 'zqxontick', 'zqxaloneon', 'zqxonargs'].every((w) => find(w).length > 0), 'what came once it was on');
    expect(find('zqxontick')[0]).toMatchObject({ kind: 'tick', paneId: p.id, ref: 'zqxnoinstance' });
    expect(find('zqxonargs')[0].text).toContain('zqxontick');
    for (const w of ['zqxoffoutput', 'zqxofflive', 'zqxofftick', 'zqxaloneoff', 'zqxoffprompt', 'zqxoffdecision', 'zqxoffscreen']) expect(find(w)).toEqual([]);
  }, 60_000);
});
