/**
 * Changes by turn: each pane's turns (turns.jsonl, written by the agent channel's hook
 * with a checkpoint at each start and end), and its Changes card shown by turn: This
 * turn (the last turn's start to its end, or to the files now while it runs), Since I last
 * reviewed (All without the hunks the person marked Reviewed), All (a worktree's diff
 * against its base; elsewhere, since the pane's first turn began), with the timeline of
 * the turns. A worktree pane's card is the worktree service's, which asks `view` here;
 * any other pane with turns gets its card from here, refreshed when its files change.
 *
 * The person's own acts are requests (`turns.*`), never typed by the window: Reviewed
 * (remembered in the state folder), Revert a hunk (`git apply -R` of that one hunk,
 * checked first, refused when the file changed since), Restore a turn (the files it
 * touched back to how they were at its start, after a checkpoint, recorded as a turn of
 * its own so it can be restored too). What was put back is then told to the agent in one
 * line, typed into its pane as actions are (control characters become spaces).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { Core } from '../core.ts';
import type { Paths } from '../paths.ts';
import type { PaneServiceApi, SurfaceServiceApi } from '../services.ts';
import { actionLine } from '../surfaces/actions.ts';
import { CHANGES_ID, changesSurface, splitDiff, stampsOf, type ChangesStamps, type DiffFile } from '../worktrees/changes.ts';
import { diffArgs } from '../worktrees/repo.ts';
import { Quiet, watchTree } from '../worktrees/watch.ts';
import { decorate, keepHunks, parseNumstat, timelineEntry, TIMELINE_TURNS, viewSummary, type TurnStat } from './card.ts';
import { snapshotTree, tgit, type Target } from './checkpoint.ts';
import { readEntries, TURNS_FILE, turnsOf, type Turn } from './log.ts';
import { restoreTurn, revertHunk } from './putback.ts';
import { ReviewStore, VIEWS, type TurnView } from './reviewed.ts';

type Panes = Pick<PaneServiceApi, 'list' | 'get' | 'folder' | 'submit' | 'shellAtPrompt' | 'onCreated' | 'onRemoved'>;

/** What the worktree service lends: whether a pane's card is its, refreshing it, and its diff against the base. */
export interface WorktreeLink {
  owns(paneId: string): boolean;
  refresh(paneId: string): void;
  allDiff(paneId: string): Promise<{ files: DiffFile[]; against: string } | undefined>;
}

export interface TurnServiceOptions {
  core: Pick<Core, 'handle' | 'onDispose'>;
  panes: Panes;
  surfaces: Pick<SurfaceServiceApi, 'ingest' | 'list'>;
  env: NodeJS.ProcessEnv;
  paths: Pick<Paths, 'state'>;
  /** Quiet time after a file change before the card is refreshed (default 150 ms; at most 4× this under a stream). */
  debounceMs?: number;
}

interface PaneTurns {
  paneId: string;
  folder: string;
  turns: Turn[];
  size: number;
  folderWatch?: fs.FSWatcher;
  treeWatch?: FSWatcher;
  watchedTop?: string;
  quiet: Quiet;
  busy: boolean;
  again: boolean;
  closed: boolean;
  stamps?: ChangesStamps;
}

/** What a view of a pane's changes is. */
export interface Composed {
  view: TurnView;
  /** The turn shown (This turn), else the last. */
  last: Turn;
  files: DiffFile[];
  from: string;
  /** A checkpoint, or the tree of the files now. */
  to: string;
  /** Whether `to` is the end of a turn (not the files now). */
  ended: boolean;
  /** Keys of hunks of an ended turn that the files no longer have (reverted, or changed again since). */
  gone: ReadonlySet<string>;
  target: Target;
  nowTree: string;
  allSummary?: string;
}

/** How long after a told line its return is typed. */

function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class TurnService {
  readonly store: ReviewStore;
  private readonly opts: TurnServiceOptions;
  private readonly panes = new Map<string, PaneTurns>();
  private readonly stats = new Map<string, TurnStat>();
  private readonly unsubscribe: Array<() => void> = [];
  private link?: WorktreeLink;
  private disposed = false;

  constructor(opts: TurnServiceOptions) {
    this.opts = opts;
    this.store = new ReviewStore(path.join(opts.paths.state, 'turns', 'review.json'));
  }

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env;
  }

  /** The worktree service, once it is there (its panes' cards are its). */
  linkWorktrees(link: WorktreeLink): void {
    this.link = link;
  }

  start(): void {
    const { panes } = this.opts;
    this.unsubscribe.push(panes.onCreated((p) => this.attach(p.id)), panes.onRemoved((id) => this.detach(id)));
    for (const p of panes.list()) this.attach(p.id);
  }

  // ───────────── panes ─────────────

  private attach(paneId: string): void {
    if (this.disposed || this.panes.has(paneId)) return;
    let folder: string;
    try {
      folder = this.opts.panes.folder(paneId);
    } catch {
      return;
    }
    const p: PaneTurns = { paneId, folder, turns: [], size: -1, quiet: new Quiet(this.opts.debounceMs ?? 150, () => void this.refresh(paneId)), busy: false, again: false, closed: false };
    this.panes.set(paneId, p);
    try {
      fs.mkdirSync(folder, { recursive: true });
      p.folderWatch = fs.watch(folder, (_type, name) => {
        if (!name || name === TURNS_FILE) this.reload(p);
      });
      p.folderWatch.on('error', () => p.folderWatch?.close());
    } catch {
      // requests reload it too
    }
    this.reload(p);
  }

  private detach(paneId: string): void {
    const p = this.panes.get(paneId);
    if (!p) return;
    p.closed = true;
    p.quiet.cancel();
    p.folderWatch?.close();
    void p.treeWatch?.close();
    this.panes.delete(paneId);
  }

  private need(paneId: unknown): PaneTurns {
    const p = typeof paneId === 'string' ? this.panes.get(paneId) : undefined;
    if (!p) throw new Error(`there is no pane "${String(paneId).slice(0, 80)}": it may have closed`);
    this.reload(p);
    if (p.turns.length === 0) throw new Error('this pane has no turns yet: its agent records one when a prompt reaches it (terminal-delight hooks installs that)');
    return p;
  }

  /** Read turns.jsonl again when it grew; a new turn refreshes the card. */
  private reload(p: PaneTurns): void {
    const size = fs.statSync(path.join(p.folder, TURNS_FILE), { throwIfNoEntry: false })?.size ?? 0;
    if (size === p.size) return;
    p.size = size;
    p.turns = turnsOf(readEntries(p.folder));
    if (p.turns.length === 0) return;
    this.watchTree(p);
    this.changed(p);
  }

  private owned(p: PaneTurns): boolean {
    return this.link?.owns(p.paneId) === true;
  }

  /** Files changing refresh a card that is ours (a worktree's card has its own watch). */
  private watchTree(p: PaneTurns): void {
    const top = p.turns.at(-1)?.target.top;
    if (!top || p.watchedTop === top || this.owned(p)) return;
    void p.treeWatch?.close();
    p.watchedTop = top;
    const w = watchTree(top, [], () => {
      if (!p.closed) p.quiet.poke();
    });
    p.treeWatch = w;
  }

  private changed(p: PaneTurns): void {
    if (this.owned(p)) this.link!.refresh(p.paneId);
    else void this.refresh(p.paneId);
  }

  // ───────────── views ─────────────

  private async diff(t: Target, from: string, to: string): Promise<DiffFile[]> {
    return splitDiff(await tgit(t, diffArgs(from, to), this.env, { what: 'git diff failed' }));
  }

  private async stat(t: Target, from: string, to: string, cache: boolean): Promise<TurnStat> {
    const key = `${t.gitDir}\n${from}..${to}`;
    const hit = this.stats.get(key);
    if (hit) return hit;
    const s = parseNumstat(await tgit(t, ['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', from, to, '--'], this.env));
    if (cache) this.stats.set(key, s);
    return s;
  }

  /** The pane's changes in the view it shows (`all`: the worktree's, when the worktree service lends them). */
  async compose(paneId: string, all?: { files: DiffFile[]; against: string; summary?: string }): Promise<Composed | undefined> {
    const p = this.panes.get(paneId);
    if (!p) return undefined;
    this.reload(p);
    const last = p.turns.at(-1);
    if (!last) return undefined;
    const t = last.target;
    const view = this.store.view(paneId);
    const nowTree = await snapshotTree(t, this.env);
    if (view === 'turn') {
      // The turn the person chose to see (Show on the timeline), else the last.
      const pinned = this.store.shownTurn(paneId);
      const shown = (pinned !== undefined ? p.turns.find((x) => x.n === pinned && x.target.gitDir === t.gitDir) : undefined) ?? last;
      const to = shown.end ?? nowTree;
      const files = await this.diff(t, shown.start, to);
      const gone = new Set<string>();
      if (shown.end) {
        const now = new Set((await this.diff(t, shown.start, nowTree)).flatMap((f) => f.hunks.map((h) => h.key)));
        for (const f of files) for (const h of f.hunks) if (!now.has(h.key)) gone.add(h.key);
      }
      return { view, last: shown, files, from: shown.start, to, ended: !!shown.end, gone, target: t, nowTree };
    }
    const first = p.turns.find((x) => x.target.gitDir === t.gitDir && x.target.top === t.top) ?? last;
    let files = all?.files ?? await this.diff(t, first.start, nowTree);
    const from = all?.against ?? first.start;
    if (view === 'reviewed') {
      const marks = this.store.marks(t.top);
      files = files.map((f) => keepHunks(f, (k) => !marks.has(k))).filter((f): f is DiffFile => f !== undefined);
    }
    return { view, last, files, from, to: nowTree, ended: false, gone: new Set(), target: t, nowTree, ...(all?.summary ? { allSummary: all.summary } : {}) };
  }

  /** Put the turn parts (view, timeline, Reviewed marks) into a Changes card's model. */
  async decorate(paneId: string, c: Composed, model: Record<string, unknown>): Promise<void> {
    const p = this.panes.get(paneId);
    if (!p) return;
    const shown = p.turns.slice(-TIMELINE_TURNS);
    const timeline = await Promise.all(shown.map(async (turn) => {
      if (turn.target.gitDir !== c.target.gitDir) return timelineEntry(turn, { files: [], added: 0, removed: 0 });
      return timelineEntry(turn, await this.stat(turn.target, turn.start, turn.end ?? c.nowTree, !!turn.end).catch(() => ({ files: [], added: 0, removed: 0 })));
    }));
    decorate(model, {
      view: c.view, turn: c.last.n, from: c.from, to: c.ended ? c.to : 'now', ended: c.ended, timeline,
      marks: this.store.marks(c.target.top), gone: c.gone, summary: viewSummary(c.view, c.last, c.files, c.allSummary),
    });
  }

  /** Refresh the pane's Changes card (the worktree service's, for a worktree pane). */
  async refresh(paneId: string): Promise<void> {
    const p = this.panes.get(paneId);
    if (!p || p.closed) return;
    if (this.owned(p)) {
      this.link!.refresh(paneId);
      return;
    }
    if (p.busy) {
      p.again = true;
      return;
    }
    p.busy = true;
    try {
      const c = await this.compose(paneId);
      if (!c || p.closed) return;
      const now = new Date().toISOString();
      // A restarted service keeps the card's stamps (when each hunk first showed), so actions taken on it still count.
      const prev = p.stamps ?? stampsOf(this.opts.surfaces.list(paneId).find((x) => x.id === CHANGES_ID)?.model);
      const { doc, stamps } = changesSurface(c.files, { branch: '', base: '', against: c.from, path: c.target.top }, prev, now);
      p.stamps = stamps;
      const model = doc.model as Record<string, unknown>;
      delete model.worktree;
      model.folder = c.target.top;
      doc.title = `Changes in ${path.basename(c.target.top) || c.target.top}`;
      await this.decorate(paneId, c, model);
      const r = this.opts.surfaces.ingest(paneId, doc, 'worktree', { strict: true });
      if (r.refusal) process.stderr.write(`terminal-delight: the Changes card was refused: ${r.refusal}\n`);
    } catch (e) {
      if (!p.closed) process.stderr.write(`terminal-delight: could not read the turns of pane ${paneId}: ${reason(e)}\n`);
    } finally {
      p.busy = false;
      if (p.again && !p.closed) {
        p.again = false;
        void this.refresh(paneId);
      }
    }
  }

  /** The view's changes as the card showed them: the worktree's All comes from the worktree service. */
  private async current(p: PaneTurns): Promise<Composed> {
    const all = this.owned(p) && this.store.view(p.paneId) !== 'turn' ? await this.link!.allDiff(p.paneId) : undefined;
    const c = await this.compose(p.paneId, all);
    if (!c) throw new Error('this pane has no turns yet');
    return c;
  }

  // ───────────── the person's acts ─────────────

  setView(paneId: string, view: TurnView, turn?: number): void {
    const p = this.need(paneId);
    if (!VIEWS.includes(view)) throw new Error(`"${String(view).slice(0, 40)}" is not a view: choose turn, reviewed or all`);
    if (turn !== undefined && !p.turns.some((x) => x.n === turn)) throw new Error(`this pane has no turn ${String(turn).slice(0, 12)}: pick one from the timeline`);
    // The last turn is not pinned: This turn then follows the turns as they come.
    this.store.setView(p.paneId, view, turn === p.turns.at(-1)!.n ? undefined : turn);
    this.changed(p);
  }

  review(paneId: string, key: string, reviewed: boolean): void {
    const p = this.need(paneId);
    if (typeof key !== 'string' || !/^[0-9a-f]{16}$/.test(key)) throw new Error('name the hunk by its key, as the card gives it');
    this.store.mark(p.turns.at(-1)!.target.top, key, reviewed !== false);
    this.changed(p);
  }

  /** Put one hunk of the view back in the working tree: checked first, nothing half-done. */
  async revert(paneId: string, file: string, key: string): Promise<{ told: boolean }> {
    const p = this.need(paneId);
    if (typeof file !== 'string' || typeof key !== 'string') throw new Error('name the hunk to revert: its file and its key');
    const c = await this.current(p);
    const n = await revertHunk({ files: c.files, target: c.target, turn: c.last.n, ended: c.ended, to: c.to, gone: c.gone }, file, key, this.env);
    const where = c.view === 'turn' ? `from turn ${c.last.n}` : 'from the changes';
    const told = this.tell(p.paneId, 'revert_part', `${file}#hunk-${n}`, `the person reverted this hunk ${where} in the working tree; the file no longer has it`);
    this.changed(p);
    return { told };
  }

  /** Turn `n`'s files back to how they were at its start, after a checkpoint; recorded as a turn of its own. */
  async restore(paneId: string, n: number): Promise<{ files: string[]; told: boolean }> {
    const p = this.need(paneId);
    const turn = p.turns.find((x) => x.n === n);
    if (!turn) throw new Error(`this pane has no turn ${String(n).slice(0, 12)}: pick one from the timeline`);
    const touched = await restoreTurn(p.folder, turn, this.env);
    const list = touched.length > 5 ? `${touched.slice(0, 5).join(', ')} and ${touched.length - 5} more` : touched.join(', ');
    const told = this.tell(p.paneId, 'restore_turn', `turn ${n}`, touched.length === 1 ? `the person restored this file to how it was before turn ${n}: ${list}` : `the person restored these ${touched.length} files to how they were before turn ${n}: ${list}`);
    this.reload(p);
    return { files: touched, told };
  }

  /** One line to the agent, as an action's, when a program (not a bare shell) reads the pane. */
  private tell(paneId: string, action: string, target: string, comment: string): boolean {
    const { panes } = this.opts;
    const pane = panes.get(paneId);
    if (!pane || pane.status !== 'running' || panes.shellAtPrompt(paneId)) return false;
    panes.submit(paneId, actionLine(pane.tag, action, CHANGES_ID, target, comment));
    return true;
  }

  /** The contract's turns.* requests. */
  install(core: Pick<Core, 'handle'>): void {
    const guard = async <T extends object>(fn: () => T | Promise<T>): Promise<({ ok: true } & T) | { ok: false; error: string }> => {
      try {
        return { ok: true, ...(await fn()) };
      } catch (e) {
        return { ok: false, error: reason(e) };
      }
    };
    core.handle('turns.view', ({ paneId, view, turn }) => guard(() => { this.setView(paneId, view, turn); return {}; }));
    core.handle('turns.review', ({ paneId, key, reviewed }) => guard(() => { this.review(paneId, key, reviewed); return {}; }));
    core.handle('turns.revert', ({ paneId, file, key }) => guard(() => this.revert(paneId, file, key)));
    core.handle('turns.restore', ({ paneId, n }) => guard(() => this.restore(paneId, n)));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const u of this.unsubscribe.splice(0)) u();
    for (const id of [...this.panes.keys()]) this.detach(id);
  }
}

/** Build the turn service and install its requests; `start()` it once the worktree service is linked. */
export function installTurns(opts: TurnServiceOptions): TurnService {
  const service = new TurnService(opts);
  service.install(opts.core);
  opts.core.onDispose(() => service.dispose());
  return service;
}
