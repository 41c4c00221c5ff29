import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitSync, makeRepo } from '../worktrees/testing.ts';
import { checkpoint, REF_ROOT, snapshotTree, targetOf } from './checkpoint.ts';
import { repoLooks, turnsTestEnv } from './testing.ts';

let t: ReturnType<typeof turnsTestEnv>;
beforeEach(() => { t = turnsTestEnv(); });
afterEach(() => t.cleanup());

/** What the person's repository looks like from outside, and its status. */
function looks(repo: string, env: NodeJS.ProcessEnv): Record<string, string> {
  return { ...repoLooks(repo, env), status: gitSync(['status', '--porcelain', '--untracked-files=all'], repo, env) };
}

describe('checkpoints', () => {
  it('records tracked and untracked files, not ignored ones, and leaves the person\'s repository as it was', async () => {
    const repo = makeRepo(path.join(t.dir, 'repo'), t.env, { 'new.txt': 'new\n', '.env': 'SECRET=1\n' });
    fs.appendFileSync(path.join(repo, 'a.txt'), 'more\n');
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'staged\n');
    gitSync(['add', 'staged.txt'], repo, t.env);
    gitSync(['stash', 'push', '-q', '--', 'staged.txt'], repo, t.env);
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'staged again\n');
    gitSync(['add', 'staged.txt'], repo, t.env);
    const before = looks(repo, t.env);
    const target = (await targetOf(repo, t.state, t.env))!;
    expect(target.shadow).toBe(false);
    const commit = await checkpoint(target, `${REF_ROOT}/s/p/1-start`, 'turn 1', t.env);
    expect(looks(repo, t.env)).toEqual(before);
    expect(gitSync(['rev-parse', `${REF_ROOT}/s/p/1-start`], repo, t.env).trim()).toBe(commit);
    const files = gitSync(['ls-tree', '-r', '--name-only', commit], repo, t.env).split('\n').filter(Boolean).sort();
    expect(files).toEqual(['.gitignore', 'a.txt', 'new.txt', 'staged.txt']);
    expect(gitSync(['show', `${commit}:a.txt`], repo, t.env)).toMatch(/line 30\nmore\n$/);
    expect(gitSync(['show', `${commit}:staged.txt`], repo, t.env)).toBe('staged again\n');
  });

  it('works in a folder that is no repository, through a shadow repository in the state folder', async () => {
    const dir = path.join(t.dir, 'plain');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'notes.md'), 'one\n');
    const target = (await targetOf(dir, t.state, t.env))!;
    expect(target.shadow).toBe(true);
    expect(target.gitDir.startsWith(path.join(t.state, 'shadow'))).toBe(true);
    const c1 = await checkpoint(target, `${REF_ROOT}/s/p/1-start`, 'turn 1', t.env);
    fs.writeFileSync(path.join(dir, 'notes.md'), 'two\n');
    const c2 = await checkpoint(target, `${REF_ROOT}/s/p/1-end`, 'turn 1 end', t.env);
    expect(c1).not.toBe(c2);
    expect(fs.existsSync(path.join(dir, '.git'))).toBe(false);
    expect(gitSync(['--git-dir', target.gitDir, 'show', `${c1}:notes.md`], t.dir, t.env)).toBe('one\n');
    // The home folder itself gets no shadow.
    expect(await targetOf(t.env.HOME!, t.state, t.env)).toBeUndefined();
  });

  it('an agent\'s git commit while checkpoints are taken succeeds, and never meets index.lock', async () => {
    const repo = makeRepo(path.join(t.dir, 'repo'), t.env);
    for (let i = 0; i < 200; i++) fs.writeFileSync(path.join(repo, `f${i}.txt`), `file ${i}\n`.repeat(50));
    const target = (await targetOf(repo, t.state, t.env))!;
    const commits: Promise<number>[] = [];
    const checkpoints: Promise<string>[] = [];
    for (let i = 0; i < 5; i++) {
      fs.appendFileSync(path.join(repo, 'a.txt'), `agent ${i}\n`);
      checkpoints.push(checkpoint(target, `${REF_ROOT}/s/p/${i + 1}-start`, `turn ${i + 1}`, t.env));
      commits.push(new Promise((resolve) => {
        const child = spawn('sh', ['-c', `git add -A && git commit -q -m "agent ${i}"`], { cwd: repo, env: t.env, stdio: 'ignore' });
        child.on('close', (code) => resolve(code ?? 1));
      }));
      // eslint-disable-next-line no-await-in-loop
      expect(await commits[i]).toBe(0);
    }
    await Promise.all(checkpoints);
    expect(gitSync(['log', '--format=%s', '-5'], repo, t.env).split('\n').filter(Boolean)).toEqual(['agent 4', 'agent 3', 'agent 2', 'agent 1', 'agent 0']);
    expect(gitSync(['status', '--porcelain'], repo, t.env)).toBe('');
    expect(gitSync(['for-each-ref', '--format=%(refname)', REF_ROOT], repo, t.env).split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('a snapshot is the same tree for the same files', async () => {
    const repo = makeRepo(path.join(t.dir, 'repo'), t.env);
    const target = (await targetOf(repo, t.state, t.env))!;
    expect(await snapshotTree(target, t.env)).toBe(gitSync(['rev-parse', 'HEAD^{tree}'], repo, t.env).trim());
  });
});
