/**
 * What git says about a repository and its worktrees: the repository a folder is in,
 * its branches, the worktrees and what each has checked out, uncommitted files, how far
 * a branch and its base are apart, and the worktree's diff against its base (committed,
 * uncommitted and new files alike). Each function runs the real `git`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { git, gitReason, type GitResult } from './git.ts';

export type Env = NodeJS.ProcessEnv;

/** Run git and return its stdout, or throw its reason as an Error prefixed by `what`. */
export async function gitOut(args: string[], cwd: string, env: Env, what?: string): Promise<string> {
  const r = await git(args, { cwd, env });
  if (r.code !== 0) throw new Error(what ? `${what}: ${gitReason(r)}` : gitReason(r));
  return r.stdout;
}

export interface RepoInfo {
  /** The top folder of the worktree the folder is in. */
  top: string;
  /** The main repository's folder (its first worktree). */
  repo: string;
  /** The branch checked out at `top`, or null when HEAD is detached. */
  current: string | null;
}

/** The repository `dir` is in; throws one sentence when it is none. */
export async function repoOf(dir: string, env: Env): Promise<RepoInfo> {
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(dir);
  } catch {
    stat = undefined;
  }
  if (!stat?.isDirectory()) throw new Error(`the folder "${dir}" does not exist: choose a folder inside a git repository`);
  const r = await git(['rev-parse', '--show-toplevel'], { cwd: dir, env });
  if (r.code !== 0) {
    throw new Error(/bare repository|must be run in a work tree/.test(r.stderr)
      ? `"${dir}" is a bare repository, which has no working tree: choose a folder with one`
      : `"${dir}" is not in a git repository: choose a folder inside one (or run git init there)`);
  }
  const top = r.stdout.trim();
  const list = parseWorktreeList(await gitOut(['worktree', 'list', '--porcelain'], top, env));
  const repo = list[0] && !list[0].bare ? list[0].path : top;
  const head = await git(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: top, env });
  return { top, repo, current: head.code === 0 ? head.stdout.trim() : null };
}

export interface WorktreeEntry {
  path: string;
  head?: string;
  /** The branch checked out (short name), absent when detached. */
  branch?: string;
  bare?: boolean;
}

/** `git worktree list --porcelain` as entries. Pure. */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const out: WorktreeEntry[] = [];
  let cur: WorktreeEntry | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('worktree ')) {
      cur = { path: line.slice(9) };
      out.push(cur);
    } else if (cur && line.startsWith('HEAD ')) cur.head = line.slice(5);
    else if (cur && line.startsWith('branch ')) cur.branch = line.slice(7).replace(/^refs\/heads\//, '');
    else if (cur && line === 'bare') cur.bare = true;
  }
  return out;
}

export async function worktrees(repo: string, env: Env): Promise<WorktreeEntry[]> {
  return parseWorktreeList(await gitOut(['worktree', 'list', '--porcelain'], repo, env));
}

/** Local branches, the current one first. */
export async function branches(repo: string, env: Env): Promise<string[]> {
  const out = await gitOut(['for-each-ref', '--format=%(refname:short)', '--sort=-committerdate', 'refs/heads/'], repo, env);
  return out.split('\n').map((s) => s.trim()).filter(Boolean);
}

export async function branchExists(repo: string, branch: string, env: Env): Promise<boolean> {
  return (await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { cwd: repo, env })).code === 0;
}

export async function revParse(repo: string, rev: string, env: Env): Promise<string> {
  return (await gitOut(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`], repo, env, `"${rev}" names no commit`)).trim();
}

/** Files with uncommitted changes (`git status --porcelain`), untracked ones too unless `tracked`. */
export async function uncommitted(dir: string, env: Env, tracked = false): Promise<string[]> {
  const out = await gitOut(['status', '--porcelain', '-z', '--no-renames', `--untracked-files=${tracked ? 'no' : 'all'}`], dir, env);
  return out.split('\0').filter(Boolean).map((e) => e.slice(3));
}

/** Commits on `branch` not on `base` (ahead) and on `base` not on `branch` (behind). */
export async function aheadBehind(dir: string, base: string, branch: string, env: Env): Promise<{ ahead: number; behind: number }> {
  const r = await git(['rev-list', '--left-right', '--count', `refs/heads/${base}...refs/heads/${branch}`], { cwd: dir, env });
  const m = /^(\d+)\s+(\d+)/.exec(r.stdout.trim());
  return m ? { behind: Number(m[1]), ahead: Number(m[2]) } : { ahead: 0, behind: 0 };
}

/** The worktree checked out on `branch`, if any. */
export async function checkedOutAt(repo: string, branch: string, env: Env): Promise<string | undefined> {
  return (await worktrees(repo, env)).find((w) => w.branch === branch)?.path;
}

/** The remote a branch would push to: its base's upstream remote, else `origin`, else the only remote. */
export async function pushRemote(repo: string, base: string, env: Env): Promise<string | null> {
  const remotes = (await gitOut(['remote'], repo, env)).split('\n').map((s) => s.trim()).filter(Boolean);
  const upstream = (await git(['config', '--get', `branch.${base}.remote`], { cwd: repo, env })).stdout.trim();
  if (upstream && remotes.includes(upstream)) return upstream;
  if (remotes.includes('origin')) return 'origin';
  return remotes.length === 1 ? remotes[0]! : null;
}

/**
 * `git diff` as the Changes card reads it (whatever the person's config says: no
 * renames, no external diff or textconv, unquoted paths, a/ and b/), between `revs`
 * (one: against the working tree; two: between them) for `paths` (all when none).
 */
export function diffArgs(...revs: string[]): string[] {
  return [
    '-c', 'core.quotePath=false', '-c', 'diff.noprefix=false', '-c', 'diff.mnemonicPrefix=false', '-c', 'diff.relative=false',
    'diff', '--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--src-prefix=a/', '--dst-prefix=b/', ...revs, '--',
  ];
}

/**
 * The worktree's diff against the merge base of its branch and base: committed and
 * uncommitted changes, new files included. New files are shown by marking them
 * intent-to-add in a copy of the worktree's index (GIT_INDEX_FILE), so the agent's own
 * index is never touched.
 */
export async function worktreeDiff(dir: string, base: string, env: Env): Promise<{ against: string; text: string }> {
  const mb = await git(['merge-base', `refs/heads/${base}`, 'HEAD'], { cwd: dir, env });
  const against = mb.code === 0 ? mb.stdout.trim() : await revParse(dir, `refs/heads/${base}`, env);
  const index = (await gitOut(['rev-parse', '--path-format=absolute', '--git-path', 'index'], dir, env)).trim();
  const tmp = path.join(os.tmpdir(), `td-worktree-${process.pid}-${randomBytes(6).toString('hex')}.index`);
  try {
    try {
      fs.copyFileSync(index, tmp);
    } catch {
      // no index yet: git makes one
    }
    const extraEnv = { GIT_INDEX_FILE: tmp };
    const add = await git(['add', '--intent-to-add', '--all', '--', '.'], { cwd: dir, env, extraEnv });
    if (add.code !== 0) throw new Error(`git could not list the new files: ${gitReason(add)}`);
    const diff: GitResult = await git(diffArgs(against), { cwd: dir, env, extraEnv });
    if (diff.code !== 0) throw new Error(`git diff failed: ${gitReason(diff)}`);
    return { against, text: diff.stdout };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}
