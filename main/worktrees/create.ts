/**
 * Making an agent's worktree: every check first (a repository, a base branch that
 * exists and is not dirty, a name git takes and no branch or folder of that name
 * already, a folder outside the repository), then `git worktree add -b`, the untracked
 * files `.worktreeinclude` lists copied in, and the setup command run. Anything that
 * fails after `git worktree add` takes the worktree, the branch and a folder it made
 * away again: a failure leaves nothing behind.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { git, gitReason } from './git.ts';
import { isInside, worktreesFolder } from './folders.ts';
import { folderName, madeUpName, nameFromPrompt, nameProblem } from '../../common/worktree-names.ts';
import { branchExists, gitOut, repoOf, uncommitted, worktrees, type Env } from './repo.ts';

export const INCLUDE_FILE = '.worktreeinclude';
/** The setup command may run this long. */
export const SETUP_TIMEOUT_MS = 15 * 60_000;

export interface MakeRequest {
  /** A folder inside the repository. */
  dir: string;
  base?: string;
  name?: string;
  prompt?: string;
}

export interface MakeOptions {
  env: Env;
  home: string;
  /** settings.worktreeFolder and settings.worktreeSetup. */
  folderSetting: string;
  setup: string;
}

export interface Made {
  path: string;
  repo: string;
  branch: string;
  base: string;
  /** Untracked files copied in because `.worktreeinclude` lists them. */
  included: string[];
  /** Take it all away again (the worktree, its branch, a folder made for it). */
  undo(): Promise<void>;
}

/** Check everything, then make the worktree. Throws one sentence; nothing is left when it throws. */
export async function makeWorktree(req: MakeRequest, opts: MakeOptions): Promise<Made> {
  const { env } = opts;
  const info = await repoOf(req.dir, env);
  const base = req.base?.trim() || info.current;
  if (!base) throw new Error(`HEAD is detached in "${info.top}": choose a base branch`);
  if (!(await branchExists(info.repo, base, env))) throw new Error(`there is no branch "${base}" in "${info.repo}": choose one of its branches as the base`);
  const trees = await worktrees(info.repo, env);
  const baseTree = trees.find((w) => w.branch === base);
  if (baseTree && fs.existsSync(baseTree.path)) {
    const dirty = await uncommitted(baseTree.path, env, true);
    if (dirty.length > 0) {
      throw new Error(`"${base}" has uncommitted changes in "${baseTree.path}" (${dirty.slice(0, 3).join(', ')}${dirty.length > 3 ? ', …' : ''}): commit or stash them first, so the agent starts from what you see`);
    }
  }
  const name = req.name?.trim() || nameFromPrompt(req.prompt ?? '') || madeUpName();
  const problem = nameProblem(name);
  if (problem) throw new Error(problem);
  const format = await git(['check-ref-format', '--branch', name], { cwd: info.repo, env });
  if (format.code !== 0) throw new Error(`"${name}" is not usable as a branch name (git refuses it): choose another name`);
  if (await branchExists(info.repo, name, env)) throw new Error(`a branch "${name}" already exists in "${info.repo}": choose another name`);
  const folder = worktreesFolder(opts.folderSetting, info.repo, opts.home);
  if (isInside(folder, info.repo)) throw new Error(`the worktree folder "${folder}" is inside the repository: choose a folder outside it in the settings (worktreeFolder)`);
  const where = path.join(folder, folderName(name));
  if (fs.existsSync(where)) throw new Error(`the folder "${where}" already exists: choose another name, or remove that folder`);

  const madeFolder = !fs.existsSync(folder);
  fs.mkdirSync(folder, { recursive: true });
  const undo = async (): Promise<void> => {
    await git(['worktree', 'remove', '--force', '--force', where], { cwd: info.repo, env });
    fs.rmSync(where, { recursive: true, force: true });
    await git(['worktree', 'prune'], { cwd: info.repo, env });
    await git(['branch', '-D', name], { cwd: info.repo, env });
    if (madeFolder) {
      try {
        fs.rmdirSync(folder);
      } catch {
        // something else is in it now: leave it
      }
    }
  };
  const add = await git(['worktree', 'add', '-b', name, where, `refs/heads/${base}`], { cwd: info.repo, env });
  if (add.code !== 0) {
    await undo().catch(() => undefined);
    throw new Error(`git could not make the worktree: ${gitReason(add)}`);
  }
  try {
    const included = await copyIncluded(info.top, where, env);
    if (opts.setup.trim()) await runSetup(opts.setup, where, env);
    return { path: where, repo: info.repo, branch: name, base, included, undo };
  } catch (e) {
    await undo().catch(() => undefined);
    throw e;
  }
}

/**
 * Copy the untracked files `.worktreeinclude` (gitignore syntax, at the top of the
 * worktree it is made from) lists: git itself matches them
 * (`ls-files --others --ignored --exclude-from`). Tracked files are never copied.
 */
export async function copyIncluded(from: string, to: string, env: Env): Promise<string[]> {
  const list = path.join(from, INCLUDE_FILE);
  if (!fs.existsSync(list)) return [];
  const out = await gitOut(['ls-files', '-z', '--others', '--ignored', `--exclude-from=${list}`], from, env, `git could not read ${INCLUDE_FILE}`);
  const copied: string[] = [];
  for (const rel of out.split('\0').filter(Boolean)) {
    const src = path.join(from, rel);
    const dst = path.join(to, rel);
    if (!isInside(src, from) || fs.existsSync(dst)) continue;
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.cpSync(src, dst, { verbatimSymlinks: true, preserveTimestamps: true, errorOnExist: true, force: false });
    copied.push(rel);
  }
  return copied;
}

/** Run the setup command with /bin/sh in the new worktree; throws one sentence with the end of its output when it fails. */
export function runSetup(command: string, cwd: string, env: Env, timeoutMs = SETUP_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (d: Buffer) => { tail = (tail + d.toString('utf8')).slice(-4096); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`the setup command could not start (${e.message}): fix worktreeSetup in the settings, or empty it`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const last = tail.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
      const how = signal ? (signal === 'SIGKILL' ? `was stopped after ${Math.round(timeoutMs / 60_000)} minutes` : `was killed by ${signal}`) : `failed (exit ${code})`;
      reject(new Error(`the setup command "${command}" ${how}${last ? `: ${last.slice(0, 200)}` : ''}; nothing was kept — fix worktreeSetup in the settings, or empty it`));
    });
  });
}
