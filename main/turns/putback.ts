/**
 * Putting back: one hunk of a view reverted in the working tree (checked first, so
 * nothing is half-applied), and a turn's files rewound to how they were at its start
 * (after a checkpoint, and recorded as a turn of its own). The git work only; the turn
 * service finds the view, tells the agent and refreshes the card.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hunkPatch, type DiffFile } from '../worktrees/changes.ts';
import { git, gitReason } from '../worktrees/git.ts';
import { checkpoint, snapshotTree, tgit, targetEnv, type Env, type Target } from './checkpoint.ts';
import { appendEntry, readEntries, turnRef, type Turn } from './log.ts';

/** What a view shows, as far as reverting one of its hunks goes. */
export interface RevertView {
  files: DiffFile[];
  target: Target;
  /** The turn shown, and whether the view ends at its end (not at the files now). */
  turn: number;
  ended: boolean;
  /** The end checkpoint, for an ended turn. */
  to: string;
  /** Hunks of an ended turn the files no longer have. */
  gone: ReadonlySet<string>;
}

async function blob(t: Target, file: string, env: Env): Promise<string | null> {
  if (!fs.existsSync(path.join(t.top, file))) return null;
  return (await tgit(t, ['hash-object', '--', file], env)).trim();
}

async function blobAt(t: Target, commit: string, file: string, env: Env): Promise<string | null> {
  const r = await git(['rev-parse', '--verify', '--quiet', `${commit}:${file}`], { cwd: t.top, env, extraEnv: targetEnv(t) });
  return r.code === 0 ? r.stdout.trim() : null;
}

/** Revert the hunk `key` of `file` in the view; returns its number there. Refuses in one sentence, changing nothing. */
export async function revertHunk(v: RevertView, file: string, key: string, env: Env): Promise<number> {
  const f = v.files.find((x) => x.path === file);
  const n = f ? f.hunks.findIndex((h) => h.key === key) + 1 : 0;
  if (!f || n === 0) throw new Error(`that hunk of "${file}" is not in this view any more: the file changed since you saw it; look at the card again`);
  const t = v.target;
  if (v.gone.has(key)) throw new Error(`hunk ${n} of "${file}" is no longer in the files, so there is nothing to revert`);
  if (v.ended && await blob(t, file, env) !== await blobAt(t, v.to, file, env)) {
    throw new Error(`"${file}" has changed since turn ${v.turn} ended, so nothing was reverted: revert the hunk in All, which shows the file as it is now`);
  }
  const patch = hunkPatch(f, n)!;
  const apply = (check: boolean) => git(['apply', '--reverse', '--whitespace=nowarn', ...(check ? ['--check'] : []), '-'], { cwd: t.top, env, input: patch, extraEnv: targetEnv(t) });
  const checked = await apply(true);
  if (checked.code !== 0) throw new Error(`hunk ${n} of "${file}" no longer matches the file, so nothing was reverted (${gitReason(checked)}): look at the card again`);
  const r = await apply(false);
  if (r.code !== 0) throw new Error(`git could not revert hunk ${n} of "${file}": ${gitReason(r)}`);
  return n;
}

/**
 * The files `turn` touched back as they were at its start: a checkpoint first, then a
 * temporary index read from its start writes them (`checkout-index`), files its start did
 * not have are removed, a checkpoint after, and a `restore` line in the pane's turns.
 * Returns the files.
 */
export async function restoreTurn(folder: string, turn: Turn, env: Env): Promise<string[]> {
  const t = turn.target;
  const to = turn.end ?? await snapshotTree(t, env);
  const touched = (await tgit(t, ['diff', '--name-only', '-z', '--no-renames', turn.start, to, '--'], env)).split('\0').filter(Boolean);
  if (touched.length === 0) throw new Error(`turn ${turn.n} changed no files, so there is nothing to restore`);
  const m = (readEntries(folder).at(-1)?.n ?? 0) + 1;
  const before = await checkpoint(t, turnRef(folder, m, 'restore-before'), `terminal-delight restore of turn ${turn.n}: before\n`, env);
  const had = new Set((await tgit(t, ['ls-tree', '-r', '-z', '--name-only', turn.start, '--', ...touched], env)).split('\0').filter(Boolean));
  const tmp = path.join(os.tmpdir(), `td-restore-${process.pid}-${randomBytes(6).toString('hex')}.index`);
  try {
    await tgit(t, ['read-tree', turn.start], env, { index: tmp, what: 'git could not read the turn\'s start' });
    const back = touched.filter((f) => had.has(f));
    if (back.length) await tgit(t, ['checkout-index', '-f', '-z', '--stdin'], env, { index: tmp, input: `${back.join('\0')}\0`, what: 'git could not write the files back' });
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  for (const f of touched) if (!had.has(f)) fs.rmSync(path.join(t.top, f), { force: true });
  const after = await checkpoint(t, turnRef(folder, m, 'restore-after'), `terminal-delight restore of turn ${turn.n}: after\n`, env);
  appendEntry(folder, { kind: 'restore', n: m, of: turn.n, commit: before, after, at: new Date().toISOString(), target: t });
  return touched;
}
