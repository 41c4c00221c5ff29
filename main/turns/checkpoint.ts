/**
 * Checkpoints: the working tree (tracked files and untracked ones git does not ignore)
 * recorded as a git commit under a private ref, without touching anything of the
 * person's: a temporary index (GIT_INDEX_FILE in the temp folder, seeded from the
 * repository's own index so only changed files are hashed) takes `git add -A`, then
 * `git write-tree`, `git commit-tree` and `git update-ref refs/terminal-delight/…`. The
 * person's index, HEAD, stash, branches and files are never written, and no lock an
 * agent's own `git commit` needs (index.lock, HEAD.lock) is ever taken.
 *
 * A folder outside any repository gets a shadow repository in the state folder
 * (`<state>/shadow/<hash>.git`, used with GIT_DIR and GIT_WORK_TREE), which does the same.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { git, gitReason } from '../worktrees/git.ts';

export type Env = NodeJS.ProcessEnv;

/** Where checkpoints of a folder go. */
export interface Target {
  /** The top of the working tree. */
  top: string;
  /** The repository's git folder (a worktree's own), or the shadow repository. */
  gitDir: string;
  /** The index the temporary index starts from (the repository's own; the shadow's kept copy). */
  seed: string;
  shadow: boolean;
}

/** Who checkpoint commits are by: never the person's identity, and no identity needed. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Terminal Delight', GIT_AUTHOR_EMAIL: 'turns@terminal-delight.invalid',
  GIT_COMMITTER_NAME: 'Terminal Delight', GIT_COMMITTER_EMAIL: 'turns@terminal-delight.invalid',
};

/** The mark left in the state folder for a folder that took too long to record: it is not tried again. */
export function skipMark(stateDir: string, top: string): string {
  return path.join(stateDir, 'shadow', `${createHash('sha256').update(top).digest('hex').slice(0, 16)}.skip`);
}

/** The ref namespace checkpoints live under (never a branch, a tag or the stash). */
export const REF_ROOT = 'refs/terminal-delight/turns';

/** A ref segment from an id: only what check-ref-format takes everywhere. */
export function refSegment(id: string): string {
  return id.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^[-_]+/, '').slice(0, 80) || 'x';
}

/** The environment git runs with for this target (and a temporary index). */
export function targetEnv(t: Target, index?: string): Record<string, string> {
  const out: Record<string, string> = t.shadow ? { GIT_DIR: t.gitDir, GIT_WORK_TREE: t.top } : {};
  if (index) out.GIT_INDEX_FILE = index;
  return out;
}

/** Run git against a target; throws git's reason on a non-zero exit. */
export async function tgit(t: Target, args: string[], env: Env, opts: { index?: string; input?: string; extra?: Record<string, string>; what?: string; timeoutMs?: number } = {}): Promise<string> {
  const r = await git(args, { cwd: t.top, env, input: opts.input, extraEnv: { ...targetEnv(t, opts.index), ...opts.extra }, timeoutMs: opts.timeoutMs ?? 120_000 });
  if (r.code !== 0) throw new Error(`${opts.what ?? `git ${args[0]} failed`}: ${gitReason(r)}`);
  return r.stdout;
}

/**
 * The target for a folder: its repository, or a shadow repository under `stateDir`.
 * Undefined for a folder that is not there, and for the home folder or `/` outside a
 * repository (a shadow of a whole home is not a checkpoint anyone wants).
 */
export async function targetOf(dir: string, stateDir: string, env: Env): Promise<Target | undefined> {
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const r = await git(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-path', 'index'], { cwd: dir, env });
  if (r.code === 0) {
    const [top, gitDir, seed] = r.stdout.split('\n');
    if (top && gitDir && seed) return fs.existsSync(skipMark(stateDir, top)) ? undefined : { top, gitDir, seed, shadow: false };
  }
  if (/bare repository|must be run in a work tree/.test(r.stderr)) return undefined;
  const top = fs.realpathSync(dir);
  const home = env.HOME && path.isAbsolute(env.HOME) ? env.HOME : os.homedir();
  if (top === path.parse(top).root || top === (fs.existsSync(home) ? fs.realpathSync(home) : home)) return undefined;
  const gitDir = path.join(stateDir, 'shadow', `${createHash('sha256').update(top).digest('hex').slice(0, 16)}.git`);
  if (fs.existsSync(skipMark(stateDir, top))) return undefined;
  if (!fs.existsSync(path.join(gitDir, 'HEAD'))) {
    fs.mkdirSync(path.dirname(gitDir), { recursive: true, mode: 0o700 });
    const init = await git(['init', '-q', '--bare', gitDir], { cwd: top, env });
    if (init.code !== 0) throw new Error(`could not make a shadow repository for "${top}": ${gitReason(init)}`);
    fs.writeFileSync(path.join(gitDir, 'info', 'exclude'), 'node_modules/\n.DS_Store\n');
    fs.writeFileSync(path.join(gitDir, 'td-folder'), `${top}\n`);
  }
  return { top, gitDir, seed: path.join(gitDir, 'td-index'), shadow: true };
}

/**
 * The tree the working tree is now: a temporary index seeded from the repository's own
 * (so unchanged files are not hashed again), `git add -A`, `git write-tree`. A shadow
 * repository keeps the index it made for next time.
 */
export async function snapshotTree(t: Target, env: Env, timeoutMs?: number): Promise<string> {
  const tmp = path.join(os.tmpdir(), `td-turn-${process.pid}-${randomBytes(6).toString('hex')}.index`);
  try {
    try {
      fs.copyFileSync(t.seed, tmp);
    } catch {
      // no index yet: git makes one
    }
    await tgit(t, ['add', '-A', '--ignore-errors', '--', '.'], env, { index: tmp, what: 'git could not read the working tree', timeoutMs });
    const tree = (await tgit(t, ['write-tree'], env, { index: tmp, what: 'git could not write the tree' })).trim();
    if (t.shadow) fs.renameSync(tmp, t.seed);
    return tree;
  } finally {
    fs.rmSync(tmp, { force: true });
    fs.rmSync(`${tmp}.lock`, { force: true });
  }
}

/** Record `tree` as a commit (message as given) and point `ref` at it. Returns the commit. */
export async function commitTree(t: Target, tree: string, ref: string, message: string, env: Env): Promise<string> {
  const commit = (await tgit(t, ['commit-tree', tree], env, { input: message, extra: IDENTITY, what: 'git could not record the checkpoint' })).trim();
  await tgit(t, ['update-ref', '-m', 'terminal-delight checkpoint', ref, commit], env, { what: 'git could not keep the checkpoint' });
  return commit;
}

/** A checkpoint of the working tree under `ref`: the commit. */
export async function checkpoint(t: Target, ref: string, message: string, env: Env, timeoutMs?: number): Promise<string> {
  return commitTree(t, await snapshotTree(t, env, timeoutMs), ref, message, env);
}
