/**
 * The Changes card by turn: what the card's model carries besides its files (the view,
 * the timeline of the pane's turns, each hunk's Reviewed mark), a file cut down to its
 * hunks not yet reviewed, `git diff --numstat -z` read as counts. Pure.
 */
import type { DiffFile } from '../worktrees/changes.ts';
import type { TurnView } from './reviewed.ts';
import type { Turn } from './log.ts';

/** Turns listed on the card at most (the newest). */
export const TIMELINE_TURNS = 30;
/** Files named per turn at most. */
const FILES_NAMED = 20;

export interface TurnStat {
  files: string[];
  added: number;
  removed: number;
}

export interface TimelineEntry {
  n: number;
  prompt: string;
  at: string;
  endAt?: string;
  running?: true;
  restoreOf?: number;
  files: string[];
  fileCount: number;
  added: number;
  removed: number;
}

/** `git diff --numstat -z` (no renames) as files and line counts; a binary file counts no lines. */
export function parseNumstat(text: string): TurnStat {
  const out: TurnStat = { files: [], added: 0, removed: 0 };
  for (const rec of text.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(rec.replace(/^\n/, ''));
    if (!m) continue;
    out.files.push(m[3]!);
    if (m[1] !== '-') out.added += Number(m[1]);
    if (m[2] !== '-') out.removed += Number(m[2]);
  }
  return out;
}

/** The file with only the hunks `keep` keeps (its diff text and counts made again), or undefined when none is left. */
export function keepHunks(f: DiffFile, keep: (key: string) => boolean): DiffFile | undefined {
  const hunks = f.hunks.filter((h) => keep(h.key));
  if (hunks.length === f.hunks.length) return f;
  if (hunks.length === 0) return undefined;
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    for (const line of h.text.split('\n').slice(1)) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { ...f, hunks, added, removed, diff: [f.header, ...hunks.map((h) => h.text)].join('\n') };
}

export function timelineEntry(turn: Turn, stat: TurnStat): TimelineEntry {
  return {
    n: turn.n, prompt: turn.prompt.slice(0, 300), at: turn.at,
    ...(turn.endAt ? { endAt: turn.endAt } : { running: true as const }),
    ...(turn.restoreOf !== undefined ? { restoreOf: turn.restoreOf } : {}),
    files: stat.files.slice(0, FILES_NAMED), fileCount: stat.files.length, added: stat.added, removed: stat.removed,
  };
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

function quoteOf(prompt: string): string {
  const line = prompt.replace(/\s+/g, ' ').trim();
  return line ? ` (“${line.length > 60 ? `${line.slice(0, 59)}…` : line}”)` : '';
}

/** The card's summary line for a view. */
export function viewSummary(view: TurnView, last: Turn, files: DiffFile[], allSummary?: string): string {
  const added = files.reduce((n, f) => n + f.added, 0);
  const removed = files.reduce((n, f) => n + f.removed, 0);
  const counts = `${plural(files.length, 'file')}, +${added} −${removed}`;
  if (view === 'turn') {
    const name = last.restoreOf !== undefined ? `Restore of turn ${last.restoreOf}` : `Turn ${last.n}${quoteOf(last.prompt)}`;
    const state = last.end ? 'ended' : 'still running';
    return files.length ? `${name}, ${state}: ${counts}.` : `${name}, ${state}: no changes.`;
  }
  if (view === 'reviewed') return files.length ? `Since you last reviewed: ${counts}.` : 'Nothing new since you last reviewed: every hunk is marked Reviewed.';
  return allSummary ?? (files.length ? `Since turn 1 began: ${counts}.` : 'No changes since turn 1 began.');
}

/**
 * Put the turn parts into a Changes card's model: `turns` (the view, the turn shown,
 * what the diff is from and to, the timeline), `reviewed: true` on each hunk marked, and
 * `gone: true` on each hunk of an ended turn the files no longer have.
 */
export function decorate(model: Record<string, unknown>, parts: { view: TurnView; turn: number; from: string; to: string; ended: boolean; timeline: TimelineEntry[]; marks: ReadonlySet<string>; gone: ReadonlySet<string>; summary: string }): void {
  model.summary = parts.summary;
  model.turns = { view: parts.view, turn: parts.turn, from: parts.from, to: parts.to, ended: parts.ended, timeline: parts.timeline };
  for (const f of Array.isArray(model.files) ? (model.files as Array<{ hunks?: Array<Record<string, unknown>> }>) : []) {
    for (const h of f.hunks ?? []) {
      if (typeof h.key !== 'string') continue;
      if (parts.marks.has(h.key)) h.reviewed = true;
      if (parts.gone.has(h.key)) h.gone = true;
    }
  }
}
