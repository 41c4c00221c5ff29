/**
 * The worktrees the app made, on disk: `worktrees.json` in the state folder (mode 0600,
 * written atomically at every change), so a restarted core finds each one again, with
 * the pane that works in it. git's own `worktree list` says whether each is still there.
 */
import path from 'node:path';
import { readJson, writeJsonAtomic } from '../state/files.ts';

export const REGISTRY_FILE = 'worktrees.json';

export interface WorktreeRecord {
  /** The worktree's folder (absolute). */
  path: string;
  /** The main repository's folder. */
  repo: string;
  branch: string;
  base: string;
  /** The pane that works there, when it has one. */
  paneId?: string;
  createdAt: string;
}

function isRecord(v: unknown): v is WorktreeRecord {
  const o = v as Record<string, unknown> | null;
  return !!o && typeof o === 'object' && typeof o.path === 'string' && path.isAbsolute(o.path)
    && typeof o.repo === 'string' && typeof o.branch === 'string' && typeof o.base === 'string'
    && typeof o.createdAt === 'string' && (o.paneId === undefined || typeof o.paneId === 'string');
}

export class WorktreeRegistry {
  private readonly file: string;
  private records: WorktreeRecord[];

  constructor(file: string) {
    this.file = file;
    const raw = readJson(file) as { worktrees?: unknown } | undefined;
    this.records = Array.isArray(raw?.worktrees) ? raw.worktrees.filter(isRecord).map((r) => ({ ...r })) : [];
  }

  list(): WorktreeRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  get(p: string): WorktreeRecord | undefined {
    const want = path.resolve(p);
    const r = this.records.find((x) => x.path === want);
    return r ? { ...r } : undefined;
  }

  byPane(paneId: string): WorktreeRecord | undefined {
    const r = this.records.find((x) => x.paneId === paneId);
    return r ? { ...r } : undefined;
  }

  add(rec: WorktreeRecord): void {
    this.records = [...this.records.filter((r) => r.path !== rec.path), { ...rec, path: path.resolve(rec.path) }];
    this.save();
  }

  update(p: string, patch: Partial<Pick<WorktreeRecord, 'paneId'>>): void {
    const want = path.resolve(p);
    this.records = this.records.map((r) => {
      if (r.path !== want) return r;
      const next = { ...r, ...patch };
      if (next.paneId === undefined) delete next.paneId;
      return next;
    });
    this.save();
  }

  remove(p: string): void {
    const want = path.resolve(p);
    this.records = this.records.filter((r) => r.path !== want);
    this.save();
  }

  private save(): void {
    writeJsonAtomic(this.file, { version: 1, worktrees: this.records });
  }
}
