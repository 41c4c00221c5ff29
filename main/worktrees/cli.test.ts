/**
 * `terminal-delight agent new --worktree`: arguments, the core in-process (createApp),
 * and once for real: the command run as a person runs it, reaching the service it
 * starts on demand.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../app.ts';
import { tempState } from '../panes/testing.ts';
import { connectService, stopService } from '../service/client.ts';
import { parseAgentArgs, runAgent } from './cli.ts';
import { AGENT_SOURCE, gitSync, gitTestEnv, makeRepo } from './testing.ts';

const bin = path.resolve(import.meta.dirname, '..', '..', 'bin', 'terminal-delight');

describe('agent new: arguments', () => {
  it('reads the worktree options and the agent command after --', () => {
    expect(parseAgentArgs([])).toEqual({ worktree: false });
    expect(parseAgentArgs(['--worktree', '--repo', '~/src/app', '--base=main', '--name', 'fix', '--prompt', 'Fix it', '--', 'codex', '--full-auto'])).toEqual({
      worktree: true, repo: '~/src/app', base: 'main', name: 'fix', prompt: 'Fix it', command: ['codex', '--full-auto'],
    });
  });

  it('refuses what it does not know, in one sentence', () => {
    expect(parseAgentArgs(['--frob'])).toMatch(/^"--frob" is not an option of agent new: /);
    expect(parseAgentArgs(['--worktree', '--name'])).toBe('--name needs a value: for example --name fix-login');
    expect(parseAgentArgs(['--name', 'x'])).toBe('--repo, --base, --name and --prompt go with --worktree: add --worktree, or leave them out');
    expect(parseAgentArgs(['--worktree', '--'])).toMatch(/^nothing follows "--"/);
  });
});

describe('agent new --worktree', () => {
  let state: ReturnType<typeof tempState>;
  let env: NodeJS.ProcessEnv;
  let repo: string;
  let agent: string[];
  beforeEach(() => {
    state = tempState('td-worktree-cli-');
    env = gitTestEnv(state.env, state.dir);
    repo = makeRepo(path.join(state.dir, 'app'), env);
    const script = path.join(state.dir, 'agent.mjs');
    fs.writeFileSync(script, AGENT_SOURCE);
    env.AGENT_LOG = path.join(state.dir, 'agent.log');
    agent = [process.execPath, script];
  });
  afterEach(() => state.cleanup());

  it('starts the agent in a new worktree of the current folder\'s repository (the core in-process)', async () => {
    const app: App = await createApp({ shell: 'serve', env, cwd: repo, fresh: true });
    try {
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s), cwd: path.join(repo) };
      const request = <K extends Parameters<App['core']['request']>[0]>(name: K, req: Parameters<App['core']['request']>[1]) => app.core.request(name, req as never, { id: 'cli' });
      expect(await runAgent(['new', '--worktree', '--name', 'fix', '--', ...agent], request as never, io)).toBe(0);
      expect(out.join('')).toBe(`started ${process.execPath} in pane ${app.worktrees.registry.list()[0]!.paneId}: worktree ${path.join(state.dir, 'app.worktrees', 'fix')} on branch fix (from main)\n`);
      expect(await runAgent(['new', '--worktree', '--name', 'fix', '--', ...agent], request as never, io)).toBe(1);
      expect(err.join('')).toBe(`terminal-delight agent: a branch "fix" already exists in "${repo}": choose another name\n`);
      expect(await runAgent(['new', '--bogus'], request as never, io)).toBe(2);
    } finally {
      await app.dispose();
    }
  });

  it('reaches the service it starts, from the command line as a person runs it', async () => {
    try {
      const r = spawnSync(bin, ['agent', 'new', '--worktree', '--prompt', 'Tidy the readme', '--', ...agent], { cwd: repo, env: { ...env, TD_NODE: process.execPath }, encoding: 'utf8', timeout: 60_000 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      const where = path.join(state.dir, 'app.worktrees', 'tidy-the-readme');
      expect(r.stdout).toMatch(new RegExp(`^started .* in pane \\S+: worktree ${where.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on branch tidy-the-readme \\(from main\\)\\n$`));
      expect(gitSync(['branch', '--show-current'], where, env).trim()).toBe('tidy-the-readme');
      const conn = await connectService({ env, client: 'cli', start: false });
      try {
        const list = await conn.request('worktree.list', {});
        expect(list).toEqual([expect.objectContaining({ path: where, branch: 'tidy-the-readme', base: 'main' })]);
        const panes = (await conn.request('app.hello', {})).panes;
        expect(panes.find((p) => p.id === list[0]!.paneId)?.worktree?.branch).toBe('tidy-the-readme');
      } finally {
        conn.close();
      }
      const bad = spawnSync(bin, ['agent', 'new', '--worktree', '--repo', state.dir], { cwd: repo, env: { ...env, TD_NODE: process.execPath }, encoding: 'utf8', timeout: 60_000 });
      expect(bad.status).toBe(1);
      expect(bad.stderr).toBe(`terminal-delight agent: "${state.dir}" is not in a git repository: choose a folder inside one (or run git init there)\n`);
    } finally {
      await stopService({ env, endPanes: true });
    }
  });
});
