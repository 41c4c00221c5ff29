/**
 * A person's Finish actions on a worktree: commit, merge into the base, push (and a
 * pull request through gh), put one hunk back, and remove the worktree and its branch.
 * Each checks first and says in one sentence what stopped it; a merge that would
 * conflict is found with `git merge-tree` before anything moves, so nothing is ever
 * half-merged.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { findProgram } from '../panes/env.ts';
import { hunkPatch, splitDiff } from './changes.ts';
import { git, gitReason } from './git.ts';
import { aheadBehind, checkedOutAt, gitOut, pushRemote, revParse, uncommitted, worktreeDiff, type Env } from './repo.ts';
import type { WorktreeRecord } from './registry.ts';

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Commit everything in the worktree (new files too). The agent's index is put back as it was if the commit fails. */
export async function commitAll(rec: WorktreeRecord, message: string, env: Env): Promise<string> {
  const msg = typeof message === 'string' ? message.replace(/\r\n/g, '\n').trim() : '';
  if (!msg) throw new Error('the commit needs a message: write one, then commit');
  if ((await uncommitted(rec.path, env)).length === 0) throw new Error(`there is nothing to commit in "${rec.path}": every change is committed already`);
  const index = (await gitOut(['rev-parse', '--path-format=absolute', '--git-path', 'index'], rec.path, env)).trim();
  const saved = path.join(os.tmpdir(), `td-worktree-${process.pid}-${randomBytes(6).toString('hex')}.index`);
  const hadIndex = fs.existsSync(index);
  if (hadIndex) fs.copyFileSync(index, saved);
  try {
    const add = await git(['add', '--all', '--', '.'], { cwd: rec.path, env });
    if (add.code !== 0) throw new Error(`git could not stage the changes: ${gitReason(add)}`);
    const c = await git(['commit', '--quiet', '--no-verify', '-F', '-'], { cwd: rec.path, env, input: `${msg}\n` });
    if (c.code !== 0) {
      if (/tell me who you are|empty ident|user\.email/i.test(c.stderr)) {
        throw new Error('git does not know who you are: set your name and email (git config --global user.name "Your Name"; git config --global user.email you@example.com), then commit again');
      }
      throw new Error(`git could not commit: ${gitReason(c)}`);
    }
  } catch (e) {
    if (hadIndex) fs.copyFileSync(saved, index);
    throw e;
  } finally {
    fs.rmSync(saved, { force: true });
  }
  return (await gitOut(['rev-parse', 'HEAD'], rec.path, env)).trim();
}

/**
 * Merge the branch into its base, fast-forward only (`ff`) or with a merge commit.
 * Where the base is checked out, its worktree must be clean and the merge happens
 * there; where it is not, the ref moves (a merge commit is made from `merge-tree`'s tree).
 */
export async function mergeIntoBase(rec: WorktreeRecord, how: 'ff' | 'merge', env: Env): Promise<string> {
  if (how !== 'ff' && how !== 'merge') throw new Error('choose how to merge: "ff" (fast-forward only) or "merge" (a merge commit)');
  const open = await uncommitted(rec.path, env);
  if (open.length > 0) throw new Error(`the worktree has ${plural(open.length, 'uncommitted file')}: commit them first, or they stay out of the merge; nothing was merged`);
  const { ahead, behind } = await aheadBehind(rec.repo, rec.base, rec.branch, env);
  if (ahead === 0) throw new Error(`"${rec.branch}" has no commits that "${rec.base}" lacks: there is nothing to merge`);
  const baseTree = await checkedOutAt(rec.repo, rec.base, env);
  if (baseTree) {
    const dirty = await uncommitted(baseTree, env, true);
    if (dirty.length > 0) throw new Error(`"${rec.base}" is checked out in "${baseTree}" with uncommitted changes: commit or stash them there first; nothing was merged`);
  }
  const mt = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', `refs/heads/${rec.base}`, `refs/heads/${rec.branch}`], { cwd: rec.repo, env });
  if (mt.code === 1) {
    const files = mt.stdout.split('\n').slice(1).map((s) => s.trim()).filter(Boolean);
    throw new Error(`merging "${rec.branch}" into "${rec.base}" conflicts in ${files.slice(0, 5).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}: bring "${rec.base}" into the branch and settle them there, then merge; nothing was merged`);
  }
  if (mt.code !== 0) throw new Error(`git could not try the merge: ${gitReason(mt)}; nothing was merged`);
  if (how === 'ff' && behind > 0) {
    throw new Error(`"${rec.base}" has ${plural(behind, 'commit')} the branch lacks, so it cannot fast-forward: choose a merge commit; nothing was merged`);
  }
  const baseSha = await revParse(rec.repo, `refs/heads/${rec.base}`, env);
  const branchSha = await revParse(rec.repo, `refs/heads/${rec.branch}`, env);
  const message = `Merge branch '${rec.branch}' into ${rec.base}`;
  if (baseTree) {
    const args = how === 'ff' ? ['merge', '--ff-only', '--quiet', branchSha] : ['merge', '--no-ff', '--no-edit', '--quiet', '-m', message, branchSha];
    const r = await git(args, { cwd: baseTree, env });
    if (r.code !== 0) {
      await git(['merge', '--abort'], { cwd: baseTree, env });
      throw new Error(`git could not merge in "${baseTree}": ${gitReason(r)}; nothing was merged`);
    }
  } else {
    let target = branchSha;
    if (how === 'merge') {
      const tree = mt.stdout.split('\n')[0]!.trim();
      target = (await gitOut(['commit-tree', tree, '-p', baseSha, '-p', branchSha, '-m', message], rec.repo, env, 'git could not make the merge commit')).trim();
    }
    await gitOut(['update-ref', '-m', message, `refs/heads/${rec.base}`, target, baseSha], rec.repo, env, `git could not move "${rec.base}"`);
  }
  return revParse(rec.repo, `refs/heads/${rec.base}`, env);
}

export type GhState = 'ready' | 'missing' | 'signed-out';

/** Whether GitHub's CLI is there and signed in. */
export async function ghState(env: Env, cwd: string): Promise<GhState> {
  if (!findProgram('gh', env as Record<string, string>, cwd)) return 'missing';
  const r = await runProgram('gh', ['auth', 'status'], cwd, env);
  return r.code === 0 ? 'ready' : 'signed-out';
}

export const GH_MISSING = 'gh is not installed: install GitHub\'s CLI and sign in with `gh auth login`, or push yourself';
export const GH_SIGNED_OUT = 'gh is installed but not signed in: run `gh auth login`, or push yourself';

/** Push the branch to its remote (setting it as upstream), and with `pr` open a pull request against the base with gh. */
export async function pushBranch(rec: WorktreeRecord, pr: boolean, env: Env): Promise<{ remote: string; url?: string }> {
  if (pr) {
    const gh = await ghState(env, rec.path);
    if (gh === 'missing') throw new Error(GH_MISSING);
    if (gh === 'signed-out') throw new Error(GH_SIGNED_OUT);
  }
  const remote = await pushRemote(rec.repo, rec.base, env);
  if (!remote) throw new Error('the repository has no remote to push to: add one (git remote add origin URL), then push');
  const r = await git(['push', '--quiet', '--set-upstream', remote, `refs/heads/${rec.branch}:refs/heads/${rec.branch}`], { cwd: rec.path, env, timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`pushing "${rec.branch}" to ${remote} failed: ${gitReason(r)}`);
  if (!pr) return { remote };
  const p = await runProgram('gh', ['pr', 'create', '--base', rec.base, '--head', rec.branch, '--fill'], rec.path, env);
  if (p.code !== 0) throw new Error(`the branch is pushed, but gh could not open a pull request: ${(p.stderr || p.stdout).trim().split('\n')[0]}`);
  const url = p.stdout.trim().split('\n').filter(Boolean).pop();
  return url ? { remote, url } : { remote };
}

/** Put hunk `n` of `file` back as the base has it, if the hunk is still the one the person saw (`key`). */
export async function revertHunk(rec: WorktreeRecord, file: string, n: number, key: string, env: Env): Promise<void> {
  const { text } = await worktreeDiff(rec.path, rec.base, env);
  const f = splitDiff(text).find((x) => x.path === file);
  const hunk = f?.hunks[n - 1];
  if (!f || !hunk) throw new Error(`"${file}" has no hunk ${n} any more: the file changed since you saw it; look at the card again`);
  if (hunk.key !== key) throw new Error(`hunk ${n} of "${file}" changed since you saw it: look at the card again, then put it back`);
  const r = await git(['apply', '--reverse', '--whitespace=nowarn', '-'], { cwd: rec.path, env, input: hunkPatch(f, n)! });
  if (r.code !== 0) throw new Error(`git could not put hunk ${n} of "${file}" back: ${gitReason(r)}`);
}

/** Why removing would lose work (uncommitted files, commits the base lacks), or [] when it would not. */
export async function removeRisks(rec: WorktreeRecord, env: Env): Promise<string[]> {
  const risks: string[] = [];
  if (fs.existsSync(rec.path)) {
    const open = await uncommitted(rec.path, env);
    if (open.length > 0) risks.push(`${plural(open.length, 'file')} with uncommitted changes`);
  }
  const { ahead } = await aheadBehind(rec.repo, rec.base, rec.branch, env);
  if (ahead > 0) risks.push(`${plural(ahead, 'commit')} not merged into "${rec.base}"`);
  return risks;
}

/** Remove the worktree's folder and its branch (git's records too). */
export async function removeWorktree(rec: WorktreeRecord, env: Env): Promise<void> {
  if (fs.existsSync(rec.path)) {
    const r = await git(['worktree', 'remove', '--force', '--force', rec.path], { cwd: rec.repo, env });
    if (r.code !== 0) throw new Error(`git could not remove the worktree: ${gitReason(r)}`);
  }
  await git(['worktree', 'prune'], { cwd: rec.repo, env });
  const b = await git(['branch', '-D', rec.branch], { cwd: rec.repo, env });
  if (b.code !== 0 && !/not found/.test(b.stderr)) throw new Error(`the worktree is gone, but git could not delete the branch "${rec.branch}": ${gitReason(b)}`);
}

function runProgram(cmd: string, args: string[], cwd: string, env: Env): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...env, GH_PROMPT_DISABLED: '1', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString('utf8'); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString('utf8'); });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', (e) => { clearTimeout(timer); resolve({ code: 127, stdout, stderr: e.message }); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code: code ?? 1, stdout, stderr }); });
  });
}
