/**
 * Agents in worktrees inside the real app (createApp: real panes with PTYs, the real
 * surfaces service), against real repositories made in temp folders with the real git:
 * a new worktree from a base with `.worktreeinclude` files copied, an agent-like
 * program editing files, the Changes card following, a per-hunk reject typed back,
 * a hunk put back, commit + merge landing on the base, push to a bare remote, remove
 * cleaning up, conflicts and each bad input leaving nothing behind, and a restarted
 * app finding its worktree again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Req, RequestName, Res, Surface } from '../../preload/contract.ts';
import { createApp, type App } from '../app.ts';
import type { Client } from '../core.ts';
import { tempState, waitFor } from '../panes/testing.ts';
import { CHANGES_ID } from './changes.ts';
import { GH_MISSING } from './finish.ts';
import { GIT_MISSING } from './git.ts';
import { REGISTRY_FILE } from './registry.ts';
import { AGENT_SOURCE, gitSync, gitTestEnv, makeRepo } from './testing.ts';

let state: ReturnType<typeof tempState>;
let app: App;
let env: NodeJS.ProcessEnv;
let repo: string;
let agentLog: string;
let agent: string[];
const client: Client = { id: 'test-window' };

beforeEach(async () => {
  state = tempState('td-worktrees-');
  env = gitTestEnv(state.env, state.dir);
  agentLog = path.join(state.dir, 'agent.log');
  env.AGENT_LOG = agentLog;
  const script = path.join(state.dir, 'agent.mjs');
  fs.writeFileSync(script, AGENT_SOURCE);
  agent = [process.execPath, script];
  repo = makeRepo(path.join(state.dir, 'src', 'app'), env, { '.env': 'TOKEN=abc\n', 'secrets/key.pem': 'KEY\n', 'build/out.js': 'x\n', '.worktreeinclude': '.env\nsecrets/\n' });
  app = await createApp({ shell: 'serve', env, cwd: repo, fresh: true });
});
afterEach(async () => {
  await app.dispose();
  state.cleanup();
});

const req = <K extends RequestName>(name: K, payload: Req<K>): Promise<Res<K>> => app.core.request(name, payload, client);

async function card(paneId: string): Promise<Surface | undefined> {
  return (await app.core.request('surface.list', { paneId }, client)).find((s) => s.id === CHANGES_ID);
}

/** Type a line into the agent (it runs `do …` lines, as an agent edits files). */
async function tell(paneId: string, line: string): Promise<void> {
  const before = app.panes.screenText(paneId).split('did it').length;
  app.panes.write(paneId, `${line}\r`);
  await waitFor(() => app.panes.screenText(paneId).split('did it').length > before, `the agent to run: ${line}`);
}

async function newWorktree(name = 'fix-login') {
  const res = await req('worktree.new', { repo, name, command: agent });
  if (!res.ok) throw new Error(res.error);
  await waitFor(() => app.panes.screenText(res.pane.id).includes('agent ready in'), 'the agent to start');
  return res;
}

const files = (s: Surface | undefined) => (s?.model.files as Array<{ path: string; diff: string; hunks: Array<{ key: string; since: string }> }> | undefined) ?? [];

describe('a new agent in a worktree', () => {
  it('makes the worktree on a new branch beside the repository, copies what .worktreeinclude lists, and starts the agent there', async () => {
    const { pane, worktree } = await newWorktree();
    const where = path.join(state.dir, 'src', 'app.worktrees', 'fix-login');
    expect(worktree).toMatchObject({ path: where, repo, branch: 'fix-login', base: 'main', ahead: 0, behind: 0, paneId: pane.id });
    expect(pane.cwd).toBe(where);
    expect(pane.kind).toBe('agent');
    expect(app.panes.screenText(pane.id)).toContain(`agent ready in ${where}`);
    expect(gitSync(['branch', '--show-current'], where, env).trim()).toBe('fix-login');
    expect(fs.readFileSync(path.join(where, '.env'), 'utf8')).toBe('TOKEN=abc\n');
    expect(fs.readFileSync(path.join(where, 'secrets', 'key.pem'), 'utf8')).toBe('KEY\n');
    expect(fs.existsSync(path.join(where, 'build', 'out.js'))).toBe(false); // ignored, but not listed
    await waitFor(() => app.panes.get(pane.id)?.worktree?.branch === 'fix-login', 'the header fields');
    expect(app.panes.get(pane.id)!.worktree).toEqual({ path: where, repo, branch: 'fix-login', base: 'main', ahead: 0, behind: 0 });
    const saved = JSON.parse(fs.readFileSync(path.join(app.paths.state, REGISTRY_FILE), 'utf8'));
    expect(saved.worktrees).toEqual([expect.objectContaining({ path: where, repo, branch: 'fix-login', base: 'main', paneId: pane.id })]);
    expect(await req('worktree.list', {})).toEqual([expect.objectContaining({ path: where, paneId: pane.id })]);
  });

  it('names the branch from the first prompt and gives the prompt to the agent', async () => {
    const res = await req('worktree.new', { repo, prompt: 'Fix the login bug!', command: agent });
    expect(res.ok).toBe(true);
    if (!res.ok) return;
    expect(res.worktree.branch).toBe('fix-the-login-bug');
    expect(res.pane.command.at(-1)).toBe('Fix the login bug!');
  });

  it('runs the setup command in the new worktree before the agent starts', async () => {
    await req('settings.set', { worktreeSetup: 'echo set-up > setup.txt' });
    const { worktree } = await newWorktree();
    expect(fs.readFileSync(path.join(worktree.path, 'setup.txt'), 'utf8')).toBe('set-up\n');
  });
});

describe('the Changes card', () => {
  it('shows the worktree\'s diff against its base, follows the agent\'s edits, and a per-hunk reject is typed back', async () => {
    const { pane, worktree } = await newWorktree();
    const empty = await waitFor(() => card(pane.id), 'the Changes card');
    expect(empty).toMatchObject({ kind: 'change', shelf: 'Review', route: 'worktree', title: 'Changes on fix-login' });
    expect(empty.model.summary).toBe('No changes on `fix-login` against `main` yet.');

    // The agent edits a tracked file and makes a new one.
    const started = Date.now();
    await tell(pane.id, 'do sed -i "s/^line 2$/LINE TWO/; s/^line 25$/LINE 25/" a.txt && printf "hello\\n" > new.txt');
    const edited = await waitFor(async () => { const c = await card(pane.id); return files(c).length === 2 ? c : undefined; }, 'the card to show the edits');
    // (Timing belongs in a benchmark; this only prints what it saw.)
    console.log(`Changes card updated ${Date.now() - started} ms after the agent's edit`);
    expect(files(edited).map((f) => f.path)).toEqual(['a.txt', 'new.txt']);
    expect(files(edited)[0]!.hunks).toHaveLength(2);
    expect(files(edited)[0]!.diff).toContain('+LINE TWO');
    expect(files(edited)[1]!.diff).toContain('new file mode');

    // A per-hunk reject with a comment goes back to the agent as any change's does.
    const tag = app.panes.get(pane.id)!.tag;
    const res = await req('surface.act', { paneId: pane.id, surfaceId: CHANGES_ID, action: 'reject_part', target: 'a.txt#hunk-1', comment: 'keep it lower case' });
    expect(res).toMatchObject({ ok: true });
    await waitFor(() => fs.existsSync(agentLog) && fs.readFileSync(agentLog, 'utf8').includes('reject_part'), 'the line to reach the agent');
    expect(fs.readFileSync(agentLog, 'utf8')).toBe(`[workbench:${tag}] reject_part on surface worktree-changes · a.txt#hunk-1 — keep it lower case\n`);
    // the same again is a repeat while the hunk is the same…
    expect(await req('surface.act', { paneId: pane.id, surfaceId: CHANGES_ID, action: 'reject_part', target: 'a.txt#hunk-1', comment: 'keep it lower case' })).toMatchObject({ ok: false });

    // …and once the agent changed that hunk, the old reject no longer speaks for it.
    await tell(pane.id, 'do sed -i "s/LINE TWO/line two/" a.txt');
    await waitFor(async () => files(await card(pane.id))[0]?.diff.includes('+line two'), 'the card to show the new hunk');
    expect(await req('surface.act', { paneId: pane.id, surfaceId: CHANGES_ID, action: 'reject_part', target: 'a.txt#hunk-1', comment: 'keep it lower case' })).toMatchObject({ ok: true });
    expect(worktree.path).toBe(app.panes.get(pane.id)!.worktree!.path);
  });

  it('commits are in the diff too; a person puts one hunk back; a changed hunk is not put back', async () => {
    const { pane, worktree } = await newWorktree();
    await tell(pane.id, 'do sed -i "s/^line 2$/LINE TWO/; s/^line 25$/LINE 25/" a.txt && git add -A && git commit -qm "agent: shout"');
    await waitFor(() => app.panes.get(pane.id)?.worktree?.ahead === 1, 'ahead 1 in the header');
    const c = await waitFor(async () => { const s = await card(pane.id); return files(s)[0]?.hunks.length === 2 ? s : undefined; }, 'two hunks');
    const [h1, h2] = files(c)[0]!.hunks;
    expect(await req('worktree.revert', { path: worktree.path, file: 'a.txt', hunk: 2, key: h1!.key })).toEqual({ ok: false, error: 'hunk 2 of "a.txt" changed since you saw it: look at the card again, then put it back' });
    expect(await req('worktree.revert', { path: worktree.path, file: 'a.txt', hunk: 2, key: h2!.key })).toEqual({ ok: true });
    const text = fs.readFileSync(path.join(worktree.path, 'a.txt'), 'utf8');
    expect(text).toContain('LINE TWO');
    expect(text).toContain("line 25\n");
    await waitFor(async () => files(await card(pane.id))[0]?.hunks.length === 1, 'the card to lose the hunk put back');
  });

  it('comes back after a restart: the registry, the header, the card', async () => {
    const { pane, worktree } = await newWorktree();
    await waitFor(() => card(pane.id), 'the Changes card');
    await app.dispose();
    app = await createApp({ shell: 'serve', env, cwd: repo, fresh: false });
    await waitFor(() => app.panes.get(pane.id)?.worktree?.branch === 'fix-login', 'the restored pane\'s worktree');
    expect(await req('worktree.list', {})).toEqual([expect.objectContaining({ path: worktree.path, paneId: pane.id })]);
    fs.writeFileSync(path.join(worktree.path, 'later.txt'), 'after the restart\n');
    await waitFor(async () => files(await card(pane.id)).some((f) => f.path === 'later.txt'), 'the card to follow the files again');
  });
});

describe('finishing', () => {
  it('commits (the message drawn from the agent\'s last reply), merges into the base, and removes the worktree and branch', async () => {
    const { pane, worktree } = await newWorktree();
    fs.appendFileSync(path.join(app.panes.folder(pane.id), 'inbound.jsonl'), `${JSON.stringify({ tdac: '0.2', type: 'reply', id: 'r-1', at: new Date().toISOString(), text: 'Shouted line two. Nothing else changed.' })}\n`);
    await tell(pane.id, 'do sed -i "s/^line 2$/LINE TWO/" a.txt');
    const status = await req('worktree.status', { path: worktree.path });
    expect(status).toMatchObject({ ok: true, uncommitted: 1, remote: null, gh: 'missing', agentRunning: true, message: 'Shouted line two\n\nShouted line two. Nothing else changed.' });
    const committed = await req('worktree.commit', { path: worktree.path, message: 'Shout line two' });
    expect(committed.ok).toBe(true);
    expect(gitSync(['log', '-1', '--format=%s', 'fix-login'], repo, env).trim()).toBe('Shout line two');
    await waitFor(() => app.panes.get(pane.id)?.worktree?.ahead === 1, 'ahead 1');

    const merged = await req('worktree.merge', { path: worktree.path, how: 'ff' });
    expect(merged.ok).toBe(true);
    expect(fs.readFileSync(path.join(repo, 'a.txt'), 'utf8')).toContain('LINE TWO'); // main's worktree moved with it
    expect(gitSync(['rev-parse', 'main'], repo, env)).toBe(gitSync(['rev-parse', 'fix-login'], repo, env));
    await waitFor(() => app.panes.get(pane.id)?.worktree?.ahead === 0, 'ahead 0 after the merge');

    // The agent still runs: removing asks first.
    const refused = await req('worktree.remove', { path: worktree.path });
    expect(refused).toEqual({ ok: false, confirm: true, error: expect.stringMatching(/^removing "fix-login" would lose work: its agent still runs in the pane ".*"; confirm to remove it anyway$/) });
    expect(fs.existsSync(worktree.path)).toBe(true);
    expect(await req('worktree.remove', { path: worktree.path, force: true })).toEqual({ ok: true });
    expect(fs.existsSync(worktree.path)).toBe(false);
    expect(gitSync(['branch', '--list', 'fix-login'], repo, env).trim()).toBe('');
    expect(gitSync(['worktree', 'list', '--porcelain'], repo, env)).not.toContain('fix-login');
    expect(app.panes.get(pane.id)).toBeUndefined();
    expect(await req('worktree.list', {})).toEqual([]);
  });

  it('a merge commit when the base moved on; a conflict is one sentence and merges nothing', async () => {
    const { pane, worktree } = await newWorktree();
    await tell(pane.id, 'do sed -i "s/^line 2$/LINE TWO/" a.txt && git commit -qam "agent: line 2"');
    fs.writeFileSync(path.join(repo, 'b.txt'), 'on main\n');
    gitSync(['add', 'b.txt'], repo, env);
    gitSync(['commit', '-qm', 'main: b'], repo, env);
    await waitFor(() => app.panes.get(pane.id)?.worktree?.behind === 1, 'behind 1');
    expect(await req('worktree.merge', { path: worktree.path, how: 'ff' })).toEqual({ ok: false, error: '"main" has 1 commit the branch lacks, so it cannot fast-forward: choose a merge commit; nothing was merged' });
    const merged = await req('worktree.merge', { path: worktree.path, how: 'merge' });
    expect(merged.ok).toBe(true);
    expect(gitSync(['log', '-1', '--format=%s%n%p', 'main'], repo, env).split('\n')[0]).toBe("Merge branch 'fix-login' into main");

    // A conflict: both sides change line 5.
    await tell(pane.id, 'do sed -i "s/line 5/agent five/" a.txt && git commit -qam "agent: line 5"');
    fs.writeFileSync(path.join(repo, 'a.txt'), fs.readFileSync(path.join(repo, 'a.txt'), 'utf8').replace('line 5', 'main five'));
    gitSync(['commit', '-qam', 'main: line 5'], repo, env);
    const before = gitSync(['rev-parse', 'main'], repo, env);
    const conflict = await req('worktree.merge', { path: worktree.path, how: 'merge' });
    expect(conflict).toEqual({ ok: false, error: 'merging "fix-login" into "main" conflicts in a.txt: bring "main" into the branch and settle them there, then merge; nothing was merged' });
    expect(gitSync(['rev-parse', 'main'], repo, env)).toBe(before);
    expect(gitSync(['status', '--porcelain', '--untracked-files=no'], repo, env)).toBe('');
    expect(fs.existsSync(path.join(repo, '.git', 'MERGE_HEAD'))).toBe(false);
  });

  it('pushes the branch to the remote; a pull request needs gh, and says so', async () => {
    const remote = path.join(state.dir, 'remote.git');
    gitSync(['init', '-q', '--bare', remote], state.dir, env);
    gitSync(['remote', 'add', 'origin', remote], repo, env);
    const { pane, worktree } = await newWorktree();
    await tell(pane.id, 'do sed -i "s/^line 2$/LINE TWO/" a.txt && git commit -qam "agent: line 2"');
    expect(await req('worktree.push', { path: worktree.path, pr: true })).toEqual({ ok: false, error: GH_MISSING });
    expect(gitSync(['branch', '--list'], remote, env)).toBe('');
    expect(await req('worktree.push', { path: worktree.path, pr: false })).toEqual({ ok: true, remote: 'origin' });
    expect(gitSync(['log', '-1', '--format=%s', 'fix-login'], remote, env).trim()).toBe('agent: line 2');
    expect(gitSync(['rev-parse', '--abbrev-ref', 'fix-login@{upstream}'], worktree.path, env).trim()).toBe('origin/fix-login');
  });

  it('a worktree whose pane closed is listed, can get an agent again, and is removed without asking when nothing would be lost', async () => {
    const { pane, worktree } = await newWorktree();
    app.panes.close(pane.id);
    await waitFor(async () => { const l = await req('worktree.list', {}); return l.length === 1 && l[0]!.paneId === undefined; }, 'the worktree listed without a pane');
    const opened = await req('worktree.open', { path: worktree.path, command: agent });
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.pane.cwd).toBe(worktree.path);
    await waitFor(() => app.panes.get(opened.pane.id)?.worktree?.branch === 'fix-login', 'the new pane\'s worktree');
    app.panes.close(opened.pane.id);
    await waitFor(async () => (await req('worktree.list', {}))[0]?.paneId === undefined, 'no pane again');
    expect(await req('worktree.remove', { path: worktree.path })).toEqual({ ok: true });
    expect(fs.existsSync(worktree.path)).toBe(false);
  });
});

describe('bad input: one sentence each, nothing made', () => {
  async function nothingMade(): Promise<void> {
    expect(fs.existsSync(path.join(state.dir, 'src', 'app.worktrees'))).toBe(false);
    expect(gitSync(['worktree', 'list', '--porcelain'], repo, env).match(/^worktree /gm)).toHaveLength(1);
    expect(await req('worktree.list', {})).toEqual([]);
    expect(app.panes.list().filter((p) => p.kind === 'agent')).toEqual([]);
  }

  it('a folder that is not a repository', async () => {
    const plain = path.join(state.dir, 'plain');
    fs.mkdirSync(plain);
    expect(await req('worktree.new', { repo: plain, command: agent })).toEqual({ ok: false, error: `"${plain}" is not in a git repository: choose a folder inside one (or run git init there)` });
    expect(await req('worktree.probe', { dir: plain })).toMatchObject({ ok: false });
    await nothingMade();
  });

  it('a dirty base', async () => {
    fs.appendFileSync(path.join(repo, 'a.txt'), 'not committed\n');
    expect(await req('worktree.new', { repo, name: 'x', command: agent })).toEqual({ ok: false, error: `"main" has uncommitted changes in "${repo}" (a.txt): commit or stash them first, so the agent starts from what you see` });
    await nothingMade();
  });

  it('a branch name that exists', async () => {
    gitSync(['branch', 'taken'], repo, env);
    expect(await req('worktree.new', { repo, name: 'taken', command: agent })).toEqual({ ok: false, error: `a branch "taken" already exists in "${repo}": choose another name` });
    await nothingMade();
  });

  it('a worktree folder that exists', async () => {
    const where = path.join(state.dir, 'src', 'app.worktrees', 'there');
    fs.mkdirSync(where, { recursive: true });
    expect(await req('worktree.new', { repo, name: 'there', command: agent })).toEqual({ ok: false, error: `the folder "${where}" already exists: choose another name, or remove that folder` });
    expect(gitSync(['branch', '--list', 'there'], repo, env)).toBe('');
    fs.rmSync(path.dirname(where), { recursive: true });
    await nothingMade();
  });

  it('a base that does not exist, a name git refuses, a worktree folder inside the repository', async () => {
    expect(await req('worktree.new', { repo, base: 'nope', command: agent })).toEqual({ ok: false, error: `there is no branch "nope" in "${repo}": choose one of its branches as the base` });
    expect(await req('worktree.new', { repo, name: 'a..b', command: agent })).toMatchObject({ ok: false, error: expect.stringMatching(/^"a\.\.b" is not usable as a branch name/) });
    await req('settings.set', { worktreeFolder: path.join(repo, 'trees') });
    expect(await req('worktree.new', { repo, name: 'inside', command: agent })).toEqual({ ok: false, error: `the worktree folder "${path.join(repo, 'trees')}" is inside the repository: choose a folder outside it in the settings (worktreeFolder)` });
    expect(fs.existsSync(path.join(repo, 'trees'))).toBe(false);
    await nothingMade();
  });

  it('an agent program that is not there, a setup command that fails', async () => {
    expect(await req('worktree.new', { repo, name: 'x', command: ['no-such-agent-xyz'] })).toEqual({ ok: false, error: '"no-such-agent-xyz" was not found on PATH or is not executable: check the agent command (settings.agentCommand), or give its full path' });
    await nothingMade();
    await req('settings.set', { worktreeSetup: 'echo installing; echo "npm ERR! no network" >&2; exit 3' });
    expect(await req('worktree.new', { repo, name: 'x', command: agent })).toEqual({ ok: false, error: 'the setup command "echo installing; echo "npm ERR! no network" >&2; exit 3" failed (exit 3): npm ERR! no network; nothing was kept — fix worktreeSetup in the settings, or empty it' });
    expect(gitSync(['branch', '--list', 'x'], repo, env)).toBe('');
    await nothingMade();
  });

  it('git missing', async () => {
    await app.dispose();
    const noGit = { ...env, PATH: path.join(state.dir, 'empty-bin') };
    fs.mkdirSync(noGit.PATH!);
    app = await createApp({ shell: 'serve', env: noGit, cwd: repo, fresh: true });
    expect(await req('worktree.new', { repo, name: 'x', command: agent })).toEqual({ ok: false, error: GIT_MISSING });
    await nothingMade();
  });

  it('a path that is not one of the app\'s worktrees', async () => {
    // Each with its own fields only: the contract's schema refuses any other.
    const payloads = { 'worktree.commit': { path: repo, message: 'm' }, 'worktree.merge': { path: repo, how: 'ff' }, 'worktree.push': { path: repo, pr: false }, 'worktree.status': { path: repo }, 'worktree.remove': { path: repo } } as const;
    for (const [name, payload] of Object.entries(payloads)) {
      expect(await req(name as keyof typeof payloads, payload as never)).toEqual({ ok: false, error: `"${repo}" is not a worktree Terminal Delight made: pick one from the agents list` });
    }
  });
});
