/**
 * The Changes card of a worktree, from `git diff` output: one `change` surface whose
 * files are the worktree's diff against its base, cut to fit a surface document, with
 * a key and a `since` time per hunk (an action on a hunk counts only for the hunk it was
 * taken on; see common/revisions.ts). Also the one-hunk patch `git apply -R`
 * takes to put a hunk back. Pure: git's text in, models and patches out; the parsing is
 * parse-diff's, the diffing git's.
 */
import { createHash } from 'node:crypto';
import parseDiff from 'parse-diff';
import { TDSP_VERSION } from '../surfaces/registry.ts';

/** The card's id on the pane's bench. */
export const CHANGES_ID = 'worktree-changes';
/** A file's diff longer than this is named but not shown. */
export const FILE_DIFF_CHARS = 64 * 1024;
/** All diffs together stay under this, so the card fits in a 256 KiB surface. */
export const TOTAL_DIFF_CHARS = 160 * 1024;
/** Files listed at most. */
export const MAX_FILES = 300;

export interface DiffHunk {
  /** The hunk as git wrote it: its `@@` line and its lines. */
  text: string;
  /** A hash of the file's path and the hunk's lines (not its line numbers): the hunk as the person saw it. */
  key: string;
}

export interface DiffFile {
  path: string;
  /** The file's whole diff as git wrote it (from `diff --git`). */
  diff: string;
  /** The lines before the first hunk (diff --git, index, modes, ---, +++). */
  header: string;
  hunks: DiffHunk[];
  added: number;
  removed: number;
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** The key of a hunk: its file and its lines, not where they are (a hunk moved by an edit above it keeps its key). */
export function hunkKey(path: string, hunkText: string): string {
  const body = hunkText.split('\n').slice(1).join('\n');
  return hash(`${path}\n${body}`);
}

/** Split `git diff` output into files, each with its raw text and hunks (parsed by parse-diff). */
export function splitDiff(text: string): DiffFile[] {
  if (!text.trim()) return [];
  const blocks: string[][] = [];
  for (const line of text.replace(/\n$/, '').split('\n')) {
    if (line.startsWith('diff --git ') || blocks.length === 0) blocks.push([]);
    blocks[blocks.length - 1]!.push(line);
  }
  const out: DiffFile[] = [];
  for (const lines of blocks) {
    const [parsed] = parseDiff(`${lines.join('\n')}\n`);
    if (!parsed) continue;
    const path = (parsed.deleted ? parsed.from : parsed.to) ?? parsed.from ?? '';
    const first = lines.findIndex((l) => l.startsWith('@@'));
    const header = (first < 0 ? lines : lines.slice(0, first)).join('\n');
    const hunks = parsed.chunks.map((c) => {
      const t = [c.content, ...c.changes.map((ch) => ch.content)].join('\n');
      return { text: t, key: hunkKey(path, t) };
    });
    out.push({ path, diff: lines.join('\n'), header, hunks, added: parsed.additions, removed: parsed.deletions });
  }
  return out;
}

/** The patch that is one hunk of a file: its header and that hunk (n from 1), for `git apply -R`. */
export function hunkPatch(file: DiffFile, n: number): string | undefined {
  const h = file.hunks[n - 1];
  return h ? `${file.header}\n${h.text}\n` : undefined;
}

export interface ChangesContext {
  branch: string;
  base: string;
  /** The commit the diff is against (the merge base of the branch and its base). */
  against: string;
  path: string;
}

export interface ChangesStamps {
  /** hunk key → when it first showed (RFC 3339). */
  hunks: Map<string, string>;
  /** When the files last changed. */
  since: string;
  /** What the files were (to tell whether they changed). */
  digest: string;
}

/** The stamps a card already on the bench carries, so a restarted app keeps them. */
export function stampsOf(model: Record<string, unknown> | undefined): ChangesStamps | undefined {
  if (!model || typeof model.since !== 'string' || !Array.isArray(model.files)) return undefined;
  const hunks = new Map<string, string>();
  for (const f of model.files as Array<{ hunks?: Array<{ key?: unknown; since?: unknown }> }>) {
    for (const h of Array.isArray(f?.hunks) ? f.hunks : []) if (typeof h?.key === 'string' && typeof h.since === 'string') hunks.set(h.key, h.since);
  }
  return { hunks, since: model.since, digest: typeof model.digest === 'string' ? model.digest : '' };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The Changes card's surface document for these files, stamped against the previous
 * stamps (a hunk seen before keeps its time; the card's `since` moves only when the
 * files changed). Returns the document and the new stamps.
 */
export function changesSurface(files: DiffFile[], ctx: ChangesContext, prev: ChangesStamps | undefined, now: string): { doc: Record<string, unknown>; stamps: ChangesStamps } {
  const digest = hash(files.map((f) => f.diff).join('\n'));
  const since = prev && prev.digest === digest ? prev.since : now;
  const hunks = new Map<string, string>();
  let budget = TOTAL_DIFF_CHARS;
  const shown: Array<Record<string, unknown>> = [];
  for (const f of files.slice(0, MAX_FILES)) {
    const stamped = f.hunks.map((h) => {
      const at = prev?.hunks.get(h.key) ?? now;
      hunks.set(h.key, at);
      return { key: h.key, since: at };
    });
    if (f.diff.length > FILE_DIFF_CHARS || f.diff.length > budget) {
      const why = f.diff.length > FILE_DIFF_CHARS ? `too large to show here (${Math.ceil(f.diff.length / 1024)} KiB of diff)` : 'not shown: the card is full';
      shown.push({ path: f.path, diff: `${f.path}: ${why}; see \`git diff ${ctx.against.slice(0, 12)} -- ${f.path}\` in the worktree`, hunks: [], added: f.added, removed: f.removed });
      continue;
    }
    budget -= f.diff.length;
    shown.push({ path: f.path, diff: f.diff, hunks: stamped });
  }
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  const more = files.length > MAX_FILES ? ` (the first ${MAX_FILES} listed)` : '';
  const summary = files.length === 0
    ? `No changes on \`${ctx.branch}\` against \`${ctx.base}\` yet.`
    : `${plural(files.length, 'file')} changed on \`${ctx.branch}\` against \`${ctx.base}\`${more}: +${added} −${removed}, committed and not.`;
  const doc = {
    td: TDSP_VERSION,
    kind: 'change',
    id: CHANGES_ID,
    title: `Changes on ${ctx.branch}`.slice(0, 200),
    model: {
      summary,
      files: shown,
      since,
      digest,
      worktree: { path: ctx.path, branch: ctx.branch, base: ctx.base, against: ctx.against },
    },
  };
  return { doc, stamps: { hunks, since, digest } };
}
