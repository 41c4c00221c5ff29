/**
 * Changes by turn inside the real app (createApp: real panes with PTYs, the real
 * surfaces service), against real repositories: an agent-like program in a pane runs the
 * real hook (scripts/hooks/tdac-hook.sh, Claude Code's payloads) at each prompt and each
 * turn's end, and edits files; the Changes card shows This turn, Since I last reviewed and
 * All, with the timeline; Reviewed survives a restart and is lost when the hunk changes;
 * a hunk is reverted (or refused), a turn restored, and each is typed back in one line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Req, RequestName, Res, Surface } from '../../preload/contract.ts';
import { createApp, type App } from '../app.ts';
import type { Client } from '../core.ts';
import { waitFor } from '../panes/testing.ts';
import { CHANGES_ID } from '../worktrees/changes.ts';
import { gitSync, makeRepo } from '../worktrees/testing.ts';
import { repoLooks, TURN_AGENT_SOURCE, turnsTestEnv } from './testing.ts';

const HOOK = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'hooks', 'tdac-hook.sh');

let t: ReturnType<typeof turnsTestEnv>;
let app: App;
let repo: string;
let agentLog: string;
let agent: string[];
const client: Client = { id: 'test-window' };

beforeEach(async () => {
  t = turnsTestEnv();
  agentLog = path.join(t.dir, 'agent.log');
  Object.assign(t.env, { AGENT_LOG: agentLog, TURN_HOOK: HOOK, TD_NODE: process.execPath });
  const script = path.join(t.dir, 'agent.mjs');
  fs.writeFileSync(script, TURN_AGENT_SOURCE);
  agent = [process.execPath, script];
  repo = makeRepo(path.join(t.dir, 'repo'), t.env);
  app = await createApp({ shell: 'serve', env: t.env, cwd: repo, fresh: true });
});
afterEach(async () => {
  await app.dispose();
  t.cleanup();
});

const req = <K extends RequestName>(name: K, payload: Req<K>): Promise<Res<K>> => app.core.request(name, payload, client);

async function card(paneId: string): Promise<Surface | undefined> {
  return (await app.core.request('surface.list', { paneId }, client)).find((s) => s.id === CHANGES_ID);
}

type Hunk = { key: string; reviewed?: boolean; gone?: boolean };
type CardFile = { path: string; diff: string; hunks: Hunk[] };
const files = (s: Surface | undefined) => (s?.model.files as CardFile[] | undefined) ?? [];
const turnsOf = (s: Surface | undefined) => s?.model.turns as { view: string; turn: number; ended: boolean; timeline: Array<{ n: number; prompt: string; files: string[]; added: number; removed: number; running?: boolean; restoreOf?: number }> } | undefined;

/** Type a line into the agent and wait for its answer. */
async function say(paneId: string, line: string, answer: string): Promise<void> {
  const before = app.panes.screenText(paneId).split(answer).length;
  app.panes.write(paneId, `${line}\r`);
  await waitFor(() => app.panes.screenText(paneId).split(answer).length > before, `the agent to answer ${answer} to: ${line}`);
}

/** One turn: the prompt (hook), the edit, the turn's end (hook). */
async function turn(paneId: string, prompt: string, edit: string): Promise<void> {
  await say(paneId, `prompt ${prompt}`, 'prompted');
  await say(paneId, `do ${edit}`, 'did it');
  await say(paneId, 'stop', 'stopped');
}

async function startAgent(cwd = repo): Promise<string> {
  const pane = app.panes.create({ command: agent, cwd });
  await waitFor(() => app.panes.screenText(pane.id).includes('agent ready'), 'the agent to start');
  return pane.id;
}

/** The card once `ok` holds for it. */
function cardWhen(paneId: string, ok: (s: Surface) => boolean, what: string): Promise<Surface> {
  return waitFor(async () => { const s = await card(paneId); return s && ok(s) ? s : undefined; }, what);
}

const looks = () => repoLooks(repo, t.env);

const sed = (from: string, to: string) => `sed -i "s/^${from}$/${to}/" a.txt`;
const agentLines = () => (fs.existsSync(agentLog) ? fs.readFileSync(agentLog, 'utf8') : '');

describe('changes by turn', () => {
  it('three turns editing one file: This turn shows only the third, All all three, the timeline each; the person\'s repository untouched', async () => {
    gitSync(['stash', 'list'], repo, t.env);
    const before = looks();
    const paneId = await startAgent();
    await turn(paneId, 'shout line two', sed('line 2', 'LINE TWO'));
    await turn(paneId, 'shout line ten', sed('line 10', 'LINE TEN'));
    await turn(paneId, 'shout line twenty', sed('line 20', 'LINE TWENTY'));
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.timeline.length === 3 && turnsOf(s)!.ended, 'the card with three ended turns');
    expect(turnsOf(c)).toMatchObject({ view: 'turn', turn: 3, ended: true });
    expect(files(c)).toHaveLength(1);
    expect(files(c)[0]!.hunks).toHaveLength(1);
    expect(files(c)[0]!.diff).toContain('+LINE TWENTY');
    expect(files(c)[0]!.diff).not.toContain('LINE TEN');
    expect(String(c.model.summary)).toBe('Turn 3 (“shout line twenty”), ended: 1 file, +1 −1.');
    expect(turnsOf(c)!.timeline.map((e) => [e.n, e.prompt, e.files, e.added, e.removed])).toEqual([
      [1, 'shout line two', ['a.txt'], 1, 1], [2, 'shout line ten', ['a.txt'], 1, 1], [3, 'shout line twenty', ['a.txt'], 1, 1],
    ]);
    expect(c.model.worktree).toBeUndefined();
    // Show turn 2 from the timeline: its hunk alone; the last turn again follows new turns.
    expect(await req('turns.view', { paneId, view: 'turn', turn: 2 })).toEqual({ ok: true });
    const second = await cardWhen(paneId, (s) => turnsOf(s)?.turn === 2, 'turn 2 shown');
    expect(files(second)[0]!.diff).toContain('+LINE TEN');
    expect(files(second)[0]!.hunks).toHaveLength(1);
    expect(String(second.model.summary)).toBe('Turn 2 (“shout line ten”), ended: 1 file, +1 −1.');
    expect(await req('turns.view', { paneId, view: 'turn', turn: 7 })).toEqual({ ok: false, error: 'this pane has no turn 7: pick one from the timeline' });
    expect(await req('turns.view', { paneId, view: 'all' })).toEqual({ ok: true });
    const all = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'all', 'the All view');
    expect(files(all)[0]!.hunks).toHaveLength(3);
    // The person's index, stash, HEAD and branches are as they were; git status shows the agent's edit only.
    expect(looks()).toEqual(before);
    expect(gitSync(['status', '--porcelain'], repo, t.env)).toBe(' M a.txt\n');
    expect(gitSync(['for-each-ref', '--format=%(refname)', 'refs/terminal-delight'], repo, t.env).split('\n').filter(Boolean)).toHaveLength(6);
  });

  it('Reviewed marks survive a service restart, leave Since I last reviewed, and are lost when the hunk changes', async () => {
    const paneId = await startAgent();
    await turn(paneId, 'two edits', `${sed('line 2', 'LINE TWO')} && ${sed('line 20', 'LINE TWENTY')}`);
    await req('turns.view', { paneId, view: 'all' });
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'all' && files(s)[0]?.hunks.length === 2, 'two hunks in All');
    const [h1, h2] = files(c)[0]!.hunks;
    expect(await req('turns.review', { paneId, key: h1!.key, reviewed: true })).toEqual({ ok: true });
    await cardWhen(paneId, (s) => files(s)[0]?.hunks[0]?.reviewed === true, 'hunk 1 marked');

    await app.dispose();
    app = await createApp({ shell: 'serve', env: t.env, cwd: repo, fresh: false });
    await waitFor(() => app.panes.get(paneId), 'the pane restored');
    const again = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'all' && files(s)[0]?.hunks.length === 2, 'the card after the restart');
    // Each hunk keeps when it first showed (so actions taken on it still count).
    expect(files(again)[0]!.hunks.map((h) => (h as { since?: string }).since)).toEqual(files(c)[0]!.hunks.map((h) => (h as { since?: string }).since));
    expect(files(again)[0]!.hunks.map((h) => [h.key, h.reviewed ?? false])).toEqual([[h1!.key, true], [h2!.key, false]]);

    expect(await req('turns.view', { paneId, view: 'reviewed' })).toEqual({ ok: true });
    const open = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'reviewed', 'Since I last reviewed');
    expect(files(open)[0]!.hunks.map((h) => h.key)).toEqual([h2!.key]);
    expect(files(open)[0]!.diff).not.toContain('LINE TWO');

    // The reviewed hunk changes: it is another hunk now, and shows again, unmarked.
    fs.writeFileSync(path.join(repo, 'a.txt'), fs.readFileSync(path.join(repo, 'a.txt'), 'utf8').replace('LINE TWO', 'LINE 2 AGAIN'));
    const changed = await cardWhen(paneId, (s) => files(s)[0]?.hunks.length === 2, 'the changed hunk back in Since I last reviewed');
    expect(files(changed)[0]!.hunks.every((h) => !h.reviewed)).toBe(true);
    expect(files(changed)[0]!.diff).toContain('+LINE 2 AGAIN');
  });

  it('reverts one hunk of This turn, leaving the others, and tells the agent in one line', async () => {
    const paneId = await startAgent();
    await turn(paneId, 'first', sed('line 5', 'LINE FIVE'));
    await turn(paneId, 'second', `${sed('line 2', 'LINE TWO')} && ${sed('line 20', 'LINE TWENTY')}`);
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.turn === 2 && turnsOf(s)!.ended && files(s)[0]?.hunks.length === 2, 'turn 2 with two hunks');
    const [, h2] = files(c)[0]!.hunks;
    expect(await req('turns.revert', { paneId, file: 'a.txt', key: h2!.key })).toEqual({ ok: true, told: true });
    const text = fs.readFileSync(path.join(repo, 'a.txt'), 'utf8');
    expect(text).toContain('\nline 20\n');
    expect(text).toContain('\nLINE TWO\n');
    expect(text).toContain('\nLINE FIVE\n');
    await waitFor(() => agentLines().includes('revert_part'), 'the line typed to the agent');
    expect(agentLines()).toMatch(/^\[workbench:[^\]]+\] revert_part on surface worktree-changes · a\.txt#hunk-2 — the person reverted this hunk from turn 2 in the working tree; the file no longer has it\n$/);
    // This turn still shows it (it is what the turn did), marked gone from the files; it cannot be reverted twice.
    const after = await cardWhen(paneId, (s) => files(s)[0]?.hunks[1]?.gone === true, 'the reverted hunk marked gone');
    expect(files(after)[0]!.hunks.map((h) => h.gone ?? false)).toEqual([false, true]);
    expect(await req('turns.revert', { paneId, file: 'a.txt', key: h2!.key })).toEqual({ ok: false, error: 'hunk 2 of "a.txt" is no longer in the files, so there is nothing to revert' });
    expect(agentLines().split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('refuses to revert a hunk of an ended turn once the file changed after it, and changes nothing', async () => {
    const paneId = await startAgent();
    await turn(paneId, 'shout', sed('line 2', 'LINE TWO'));
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.ended === true && files(s).length === 1, 'the ended turn');
    fs.appendFileSync(path.join(repo, 'a.txt'), 'a later line\n');
    const later = fs.readFileSync(path.join(repo, 'a.txt'), 'utf8');
    const res = await req('turns.revert', { paneId, file: 'a.txt', key: files(c)[0]!.hunks[0]!.key });
    expect(res).toEqual({ ok: false, error: '"a.txt" has changed since turn 1 ended, so nothing was reverted: revert the hunk in All, which shows the file as it is now' });
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(later);
    expect(agentLines()).toBe('');
    // In All the file is as it is now, and the hunk goes back.
    await req('turns.view', { paneId, view: 'all' });
    const all = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'all' && files(s)[0]?.hunks.length === 2, 'All with the later line');
    const shout = files(all)[0]!.hunks.find((h, i) => files(all)[0]!.diff.split(/^@@/m)[i + 1]?.includes('LINE TWO'))!;
    expect(await req('turns.revert', { paneId, file: 'a.txt', key: shout.key })).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(later.replace('LINE TWO', 'line 2'));
  });

  it('restores a turn: the files it touched as they were at its start, a new file gone; the restore is a turn that can be restored', async () => {
    const paneId = await startAgent();
    await turn(paneId, 'first', sed('line 5', 'LINE FIVE'));
    await turn(paneId, 'second', `${sed('line 9', 'LINE NINE')} && echo fresh > new.txt`);
    const afterSecond = fs.readFileSync(path.join(repo, 'a.txt'), 'utf8');
    await cardWhen(paneId, (s) => turnsOf(s)?.turn === 2 && turnsOf(s)!.ended, 'turn 2 ended');
    expect(await req('turns.restore', { paneId, n: 2 })).toEqual({ ok: true, files: ['a.txt', 'new.txt'], told: true });
    expect(fs.existsSync(path.join(repo, 'new.txt'))).toBe(false);
    const restored = fs.readFileSync(path.join(repo, 'a.txt'), 'utf8');
    expect(restored).toContain('\nLINE FIVE\n');
    expect(restored).toContain('\nline 9\n');
    await waitFor(() => agentLines().includes('restore_turn'), 'the line typed to the agent');
    expect(agentLines()).toContain('restore_turn on surface worktree-changes · turn 2 — the person restored these 2 files to how they were before turn 2: a.txt, new.txt');
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.turn === 3, 'the restore as turn 3');
    expect(turnsOf(c)!.timeline[2]).toMatchObject({ n: 3, restoreOf: 2, files: ['a.txt', 'new.txt'] });
    expect(gitSync(['status', '--porcelain', '--untracked-files=all'], repo, t.env)).toBe(' M a.txt\n');
    // The restore itself is undone by restoring it.
    expect(await req('turns.restore', { paneId, n: 3 })).toMatchObject({ ok: true, files: ['a.txt', 'new.txt'] });
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toBe(afterSecond);
    expect(fs.readFileSync(path.join(repo, 'new.txt'), 'utf8')).toBe('fresh\n');
    expect(await req('turns.restore', { paneId, n: 9 })).toEqual({ ok: false, error: 'this pane has no turn 9: pick one from the timeline' });
  });

  it('in a folder that is no repository, through a shadow repository', async () => {
    const dir = path.join(t.dir, 'notes');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'todo.md'), 'one\ntwo\n');
    const paneId = await startAgent(dir);
    await turn(paneId, 'add three', 'echo three >> todo.md');
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.ended === true && files(s).length === 1, 'the card of the shadowed folder');
    expect(files(c)[0]!.diff).toContain('+three');
    expect(fs.existsSync(path.join(dir, '.git'))).toBe(false);
    expect(await req('turns.revert', { paneId, file: 'todo.md', key: files(c)[0]!.hunks[0]!.key })).toMatchObject({ ok: true });
    expect(fs.readFileSync(path.join(dir, 'todo.md'), 'utf8')).toBe('one\ntwo\n');
  });

  it('in a worktree: the worktree\'s card shows This turn, and All against the base keeps its summary and Put back', async () => {
    const made = await req('worktree.new', { repo, name: 'by-turn', command: agent });
    if (!made.ok) throw new Error(made.error);
    const paneId = made.pane.id;
    await waitFor(() => app.panes.screenText(paneId).includes('agent ready'), 'the agent to start');
    await turn(paneId, 'first', sed('line 2', 'LINE TWO'));
    await turn(paneId, 'second', sed('line 20', 'LINE TWENTY'));
    const c = await cardWhen(paneId, (s) => turnsOf(s)?.turn === 2 && turnsOf(s)!.ended, 'turn 2 on the worktree\'s card');
    expect(c.model.worktree).toMatchObject({ branch: 'by-turn', base: 'main' });
    expect(files(c)[0]!.hunks).toHaveLength(1);
    expect(files(c)[0]!.diff).toContain('+LINE TWENTY');
    await req('turns.view', { paneId, view: 'all' });
    const all = await cardWhen(paneId, (s) => turnsOf(s)?.view === 'all', 'All on the worktree\'s card');
    expect(files(all)[0]!.hunks).toHaveLength(2);
    expect(String(all.model.summary)).toBe('1 file changed on `by-turn` against `main`: +2 −2, committed and not.');
    // The main checkout is untouched by the worktree's checkpoints.
    expect(gitSync(['status', '--porcelain'], repo, t.env)).toBe('');
  });
});
