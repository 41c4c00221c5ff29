/**
 * Hunks a person marked Reviewed, and the view each pane's Changes card shows: kept in
 * `turns/review.json` in the state folder (0600, written atomically), so both survive a
 * service restart. A mark is keyed by the folder and the hunk's key (its file and lines,
 * `hunkKey` in main/worktrees/changes.ts): a hunk whose lines change afterwards is
 * another hunk, and has no mark.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

import type { TurnView } from '../../preload/contract.ts';

export type { TurnView };
export const VIEWS: readonly TurnView[] = ['turn', 'reviewed', 'all'];
/** Marks kept per folder at most (the oldest go first). */
const MARKS_KEPT = 5000;

interface Saved {
  v: 1;
  /** folder → hunk key → when it was marked. */
  reviewed: Record<string, Record<string, string>>;
  /** pane id → the view its card shows. */
  views: Record<string, TurnView>;
  /** pane id → the turn This turn shows, when the person chose one (else the last). */
  shown?: Record<string, number>;
}

export class ReviewStore {
  private readonly file: string;
  private saved: Saved;

  constructor(file: string) {
    this.file = file;
    this.saved = this.load();
  }

  private load(): Saved {
    if (!fs.existsSync(this.file)) return { v: 1, reviewed: {}, views: {} };
    try {
      const s = JSON.parse(fs.readFileSync(this.file, 'utf8')) as Saved;
      if (s && s.v === 1 && s.reviewed && typeof s.reviewed === 'object' && s.views && typeof s.views === 'object') return s;
    } catch {
      // unreadable: kept aside below
    }
    // A file this build cannot use is kept aside, never overwritten silently.
    fs.renameSync(this.file, `${this.file}.broken-${Date.now()}`);
    return { v: 1, reviewed: {}, views: {} };
  }

  private save(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${randomBytes(4).toString('hex')}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(this.saved), { mode: 0o600 });
    fs.renameSync(tmp, this.file);
  }

  /** The keys marked reviewed in this folder. */
  marks(folder: string): ReadonlySet<string> {
    return new Set(Object.keys(this.saved.reviewed[folder] ?? {}));
  }

  mark(folder: string, key: string, reviewed: boolean): void {
    const marks = this.saved.reviewed[folder] ?? {};
    if (reviewed) marks[key] = new Date().toISOString();
    else delete marks[key];
    const keys = Object.keys(marks);
    for (const k of keys.slice(0, Math.max(0, keys.length - MARKS_KEPT))) delete marks[k];
    this.saved.reviewed[folder] = marks;
    this.save();
  }

  view(paneId: string): TurnView {
    return this.saved.views[paneId] ?? 'turn';
  }

  /** The turn This turn shows for the pane, when the person chose one. */
  shownTurn(paneId: string): number | undefined {
    return this.saved.shown?.[paneId];
  }

  setView(paneId: string, view: TurnView, turn?: number): void {
    this.saved.views[paneId] = view;
    const shown = this.saved.shown ?? {};
    if (view === 'turn' && turn !== undefined) shown[paneId] = turn;
    else delete shown[paneId];
    this.saved.shown = shown;
    this.save();
  }
}
