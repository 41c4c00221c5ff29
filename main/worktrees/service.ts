/**
 * Agents in worktrees: the contract's worktree.* requests, the registry of worktrees
 * the app made (worktrees.json, found again after a restart), each worktree pane's
 * header fields (PaneInfo.worktree: branch, base, ahead, behind) and its Changes card
 * on the Review shelf, refreshed from `git diff` when files change (chokidar,
 * debounced). Actions on the card's hunks go back to the agent as any change
 * surface's do (the surfaces service types them); the person's own actions (commit,
 * merge, push, put a hunk back, remove) are requests here and never reach the PTY.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import type { PaneInfo, PaneWorktree, WorktreeInfo } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { Paths } from '../paths.ts';
import { findProgram } from '../panes/env.ts';
import type { PaneService } from '../panes/service.ts';
import type { SettingsApi, SurfaceServiceApi } from '../services.ts';
import { TDSP_VERSION } from '../surfaces/registry.ts';
import { readNewLines } from '../agent-channel/tail.ts';
import { CHANGES_ID, changesSurface, splitDiff, stampsOf, type ChangesStamps } from './changes.ts';
import { makeWorktree } from './create.ts';
import { commitAll, ghState, mergeIntoBase, pushBranch, removeRisks, removeWorktree, revertHunk } from './finish.ts';
import { worktreesFolder } from './folders.ts';
import { commitMessage } from '../../common/worktree-names.ts';
import { REGISTRY_FILE, WorktreeRegistry, type WorktreeRecord } from './registry.ts';
import { aheadBehind, branches, gitOut, pushRemote, repoOf, uncommitted, worktreeDiff } from './repo.ts';
import type { TurnService } from '../turns/service.ts';
import { Quiet, watchTree } from './watch.ts';

export interface WorktreeServiceOptions {
  core: Pick<Core, 'emit' | 'handle' | 'onDispose'>;
  panes: PaneService;
  surfaces: SurfaceServiceApi;
  /** Starts an agent pane (the agent channel's 'agent.new', with its session id and transcript). */
  newAgentPane(req: { command?: string[]; cwd?: string; splitOf?: string; direction?: 'right' | 'down' }): PaneInfo;
  settings: SettingsApi;
  env: NodeJS.ProcessEnv;
  paths: Paths;
  /** Quiet time after a file change before the card is refreshed (default 150 ms; at most 4× this under a stream of changes). */
  debounceMs?: number;
  /** The pane's turns (main/turns): the card's view (This turn, Since I last reviewed, All), its timeline and Reviewed marks. */
  turns?: Pick<TurnService, 'compose' | 'decorate'>;
}

interface Watched {
  paneId: string;
  path: string;
  watcher?: FSWatcher;
  quiet: Quiet;
  busy: boolean;
  again: boolean;
  closed: boolean;
  stamps?: ChangesStamps;
  ahead: number;
  behind: number;
}

/** One sentence from anything thrown (lower-case first letter kept, no trailing full stop added). */
function reason(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class WorktreeService {
  readonly registry: WorktreeRegistry;
  private readonly opts: WorktreeServiceOptions;
  private readonly watched = new Map<string, Watched>();
  private readonly unsubscribe: Array<() => void> = [];
  private changedTimer?: NodeJS.Timeout;
  private disposed = false;

  constructor(opts: WorktreeServiceOptions) {
    this.opts = opts;
    this.registry = new WorktreeRegistry(path.join(opts.paths.state, REGISTRY_FILE));
  }

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env;
  }

  private get home(): string {
    return this.env.HOME && path.isAbsolute(this.env.HOME) ? this.env.HOME : os.homedir();
  }

  /** Watch the worktree of every pane there is and every pane to come. */
  start(): void {
    const { panes } = this.opts;
    this.unsubscribe.push(
      panes.onCreated((pane) => this.attach(pane.id)),
      panes.onRemoved((paneId) => {
        this.detach(paneId);
        const rec = this.registry.byPane(paneId);
        if (rec) {
          this.registry.update(rec.path, { paneId: undefined });
          this.changed();
        }
      }),
    );
    for (const pane of panes.list()) this.attach(pane.id);
  }

  // ───────────── panes and their cards ─────────────

  private attach(paneId: string): void {
    if (this.disposed || this.watched.has(paneId)) return;
    const rec = this.registry.byPane(paneId);
    if (!rec || !this.opts.panes.get(paneId)) return;
    const w: Watched = { paneId, path: rec.path, quiet: new Quiet(this.opts.debounceMs ?? 150, () => void this.refresh(w)), busy: false, again: false, closed: false, ahead: 0, behind: 0 };
    this.watched.set(paneId, w);
    this.patchPane(w, rec);
    void this.watch(w, rec);
    void this.refresh(w);
  }

  private detach(paneId: string): void {
    const w = this.watched.get(paneId);
    if (!w) return;
    w.closed = true;
    w.quiet.cancel();
    void w.watcher?.close();
    this.watched.delete(paneId);
  }

  private async watch(w: Watched, rec: WorktreeRecord): Promise<void> {
    if (!fs.existsSync(rec.path)) return;
    let gitFiles: string[] = [];
    try {
      const gitDir = (await gitOut(['rev-parse', '--path-format=absolute', '--git-dir'], rec.path, this.env)).trim();
      const common = (await gitOut(['rev-parse', '--path-format=absolute', '--git-common-dir'], rec.path, this.env)).trim();
      // Commits in the worktree (HEAD, index) and the base moving (refs, packed-refs).
      gitFiles = [path.join(gitDir, 'HEAD'), path.join(gitDir, 'index'), path.join(common, 'refs', 'heads'), path.join(common, 'packed-refs')];
    } catch {
      // not a worktree any more: files alone
    }
    if (w.closed) return;
    const watcher = watchTree(rec.path, gitFiles, () => this.schedule(w));
    if (w.closed) void watcher.close();
    else w.watcher = watcher;
  }

  /** Refresh soon: after `debounceMs` of quiet, or at most 4× that after the first change. */
  private schedule(w: Watched): void {
    if (!w.closed) w.quiet.poke();
  }

  /** Refresh every watched card now (after a merge the other branches' counts move too). */
  refreshAll(): Promise<void[]> {
    return Promise.all([...this.watched.values()].map((w) => this.refresh(w)));
  }

  /** Read the diff and the counts, and put the Changes card (and the header's fields) up to date. */
  async refresh(w: Watched): Promise<void> {
    if (w.closed) return;
    if (w.busy) {
      w.again = true;
      return;
    }
    w.busy = true;
    try {
      const rec = this.registry.byPane(w.paneId);
      if (!rec || rec.path !== w.path || !fs.existsSync(rec.path)) return;
      const [{ against, text }, counts] = await Promise.all([
        worktreeDiff(rec.path, rec.base, this.env),
        aheadBehind(rec.path, rec.base, rec.branch, this.env),
      ]);
      if (w.closed) return;
      const { surfaces } = this.opts;
      const prev = w.stamps ?? stampsOf(surfaces.list(w.paneId).find((s) => s.id === CHANGES_ID)?.model);
      const all = splitDiff(text);
      // With turns, the card shows the view the person chose (main/turns).
      const byTurn = await this.opts.turns?.compose(w.paneId, { files: all, against }).catch(() => undefined);
      if (w.closed) return;
      const { doc, stamps } = changesSurface(byTurn?.files ?? all, { branch: rec.branch, base: rec.base, against, path: rec.path }, prev, new Date().toISOString());
      w.stamps = stamps;
      if (byTurn) {
        const model = doc.model as Record<string, unknown>;
        if (byTurn.view === 'all') byTurn.allSummary = String(model.summary);
        await this.opts.turns!.decorate(w.paneId, byTurn, model);
      }
      const r = surfaces.ingest(w.paneId, doc, 'worktree', { strict: true });
      if (r.refusal) process.stderr.write(`terminal-delight: the Changes card of ${rec.branch} was refused: ${r.refusal}\n`);
      w.ahead = counts.ahead;
      w.behind = counts.behind;
      this.patchPane(w, rec);
    } catch (e) {
      if (!w.closed) process.stderr.write(`terminal-delight: could not read the changes in ${w.path}: ${reason(e)}\n`);
    } finally {
      w.busy = false;
      if (w.again && !w.closed) {
        w.again = false;
        void this.refresh(w);
      }
    }
  }

  /** Whether this pane's Changes card is this service's (a worktree pane). */
  owns(paneId: string): boolean {
    return this.watched.has(paneId) || !!this.registry.byPane(paneId);
  }

  /** Refresh a worktree pane's card now (its turns changed). */
  refreshPane(paneId: string): void {
    const w = this.watched.get(paneId);
    if (w) void this.refresh(w);
  }

  /** A worktree pane's diff against its base, as its card's All shows it. */
  async allDiff(paneId: string): Promise<{ files: ReturnType<typeof splitDiff>; against: string } | undefined> {
    const rec = this.registry.byPane(paneId);
    if (!rec) return undefined;
    const { against, text } = await worktreeDiff(rec.path, rec.base, this.env);
    return { files: splitDiff(text), against };
  }

  private patchPane(w: Watched, rec: WorktreeRecord): void {
    const { panes } = this.opts;
    const pane = panes.get(w.paneId);
    if (!pane) return;
    const next: PaneWorktree = { path: rec.path, repo: rec.repo, branch: rec.branch, base: rec.base, ahead: w.ahead, behind: w.behind };
    if (JSON.stringify(pane.worktree) !== JSON.stringify(next)) panes.patch(w.paneId, { worktree: next });
  }

  // ───────────── the list ─────────────

  async list(): Promise<WorktreeInfo[]> {
    const { panes } = this.opts;
    return Promise.all(this.registry.list().map(async (rec) => {
      const paneId = rec.paneId && panes.get(rec.paneId) ? rec.paneId : undefined;
      const w = paneId ? this.watched.get(paneId) : undefined;
      const missing = !fs.existsSync(rec.path);
      let counts = w ? { ahead: w.ahead, behind: w.behind } : { ahead: 0, behind: 0 };
      if (!w && fs.existsSync(rec.repo)) counts = await aheadBehind(rec.repo, rec.base, rec.branch, this.env).catch(() => counts);
      const info: WorktreeInfo = { path: rec.path, repo: rec.repo, branch: rec.branch, base: rec.base, ...counts, createdAt: rec.createdAt };
      if (paneId) info.paneId = paneId;
      if (missing) info.missing = true;
      return info;
    }));
  }

  /** Tell windows the list changed (coalesced). */
  private changed(): void {
    if (this.changedTimer || this.disposed) return;
    this.changedTimer = setTimeout(() => {
      this.changedTimer = undefined;
      void this.list().then((worktrees) => this.opts.core.emit('worktree.changed', { worktrees }), () => undefined);
    }, 20);
  }

  private need(p: unknown): WorktreeRecord {
    const rec = typeof p === 'string' && p ? this.registry.get(p) : undefined;
    if (!rec) throw new Error(`"${String(p).slice(0, 200)}" is not a worktree Terminal Delight made: pick one from the agents list`);
    return rec;
  }

  private info(rec: WorktreeRecord): WorktreeInfo {
    const w = rec.paneId ? this.watched.get(rec.paneId) : undefined;
    const out: WorktreeInfo = { path: rec.path, repo: rec.repo, branch: rec.branch, base: rec.base, ahead: w?.ahead ?? 0, behind: w?.behind ?? 0, createdAt: rec.createdAt };
    if (rec.paneId && this.opts.panes.get(rec.paneId)) out.paneId = rec.paneId;
    return out;
  }

  // ───────────── requests ─────────────

  /** The folder "New agent in a worktree" starts from: the focused pane's, live. */
  private focusedDir(): string {
    const { panes } = this.opts;
    const id = panes.focused;
    const dir = id ? panes.liveCwd(id) : undefined;
    if (!dir) throw new Error('there is no focused pane to take the repository from: type the repository\'s folder');
    return dir;
  }

  async probe(req: { dir?: string }): Promise<{ repo: string; current: string | null; branches: string[]; folder: string; setup: string }> {
    const dir = typeof req.dir === 'string' && req.dir.trim() ? expandHome(req.dir.trim(), this.home) : this.focusedDir();
    const info = await repoOf(dir, this.env);
    const list = await branches(info.repo, this.env);
    const s = this.opts.settings.get();
    return { repo: info.top, current: info.current, branches: list, folder: worktreesFolder(s.worktreeFolder, info.repo, this.home), setup: s.worktreeSetup };
  }

  async create(req: { repo?: string; base?: string; name?: string; prompt?: string; command?: string[]; splitOf?: string; direction?: 'right' | 'down' }): Promise<{ pane: PaneInfo; worktree: WorktreeInfo }> {
    for (const k of ['repo', 'base', 'name', 'prompt', 'splitOf'] as const) {
      if (req[k] !== undefined && typeof req[k] !== 'string') throw new Error(`${k} must be text: fix it and try again`);
    }
    const prompt = req.prompt?.trim() ?? '';
    if (prompt.startsWith('-')) throw new Error('the first prompt starts with "-", which the agent would read as an option: start it with a word');
    const command = this.agentCommand(req.command);
    const dir = req.repo?.trim() ? expandHome(req.repo.trim(), this.home) : this.focusedDir();
    await repoOf(dir, this.env); // a folder that is no repository says so first
    if (!findProgram(command[0]!, this.env as Record<string, string>, dir)) {
      throw new Error(`"${command[0]}" was not found on PATH or is not executable: check the agent command (settings.agentCommand), or give its full path`);
    }
    const s = this.opts.settings.get();
    const made = await makeWorktree({ dir, base: req.base, name: req.name, prompt }, { env: this.env, home: this.home, folderSetting: s.worktreeFolder, setup: s.worktreeSetup });
    const rec: WorktreeRecord = { path: made.path, repo: made.repo, branch: made.branch, base: made.base, createdAt: new Date().toISOString() };
    this.registry.add(rec);
    let pane: PaneInfo;
    try {
      pane = this.opts.newAgentPane({ command: prompt ? [...command, prompt] : command, cwd: made.path, splitOf: req.splitOf, direction: req.direction });
    } catch (e) {
      this.registry.remove(made.path);
      await made.undo().catch(() => undefined);
      throw e;
    }
    this.registry.update(made.path, { paneId: pane.id });
    this.attach(pane.id);
    this.changed();
    return { pane: this.opts.panes.get(pane.id) ?? pane, worktree: this.info({ ...rec, paneId: pane.id }) };
  }

  private agentCommand(command: unknown): string[] {
    if (command !== undefined) {
      if (!Array.isArray(command) || command.length === 0 || command.some((a) => typeof a !== 'string') || !command[0]) {
        throw new Error('the agent command must be a list of words with the program first, like ["claude"]: fix it and try again');
      }
      return [...command] as string[];
    }
    const configured = this.opts.settings.get().agentCommand;
    return Array.isArray(configured) && configured[0] ? [...configured] : ['claude'];
  }

  async status(p: string): Promise<{ worktree: WorktreeInfo; uncommitted: number; message: string; remote: string | null; gh: 'ready' | 'missing' | 'signed-out'; agentRunning: boolean }> {
    const rec = this.need(p);
    if (!fs.existsSync(rec.path)) throw new Error(`the worktree folder "${rec.path}" is gone: remove it from the list`);
    const pane = rec.paneId ? this.opts.panes.get(rec.paneId) : undefined;
    const [open, remote, gh, counts] = await Promise.all([
      uncommitted(rec.path, this.env), pushRemote(rec.repo, rec.base, this.env), ghState(this.env, rec.path), aheadBehind(rec.path, rec.base, rec.branch, this.env),
    ]);
    const worktree = { ...this.info(rec), ...counts };
    return { worktree, uncommitted: open.length, message: commitMessage(pane ? this.lastReply(pane.id) : undefined, rec.branch), remote, gh, agentRunning: pane?.status === 'running' };
  }

  /** The agent's last reply: the TDAC reply event's text, else the newest response card's words. */
  private lastReply(paneId: string): string | undefined {
    try {
      const file = path.join(this.opts.panes.folder(paneId), 'inbound.jsonl');
      const size = fs.existsSync(file) ? fs.statSync(file).size : 0;
      const { lines } = readNewLines(file, Math.max(0, size - 256 * 1024));
      for (let i = lines.length - 1; i >= 0; i--) {
        try {
          const e = JSON.parse(lines[i]!) as { type?: unknown; text?: unknown };
          if (e.type === 'reply' && typeof e.text === 'string' && e.text.trim()) return e.text;
        } catch {
          // a partial first line
        }
      }
    } catch {
      // no channel: the cards
    }
    const reply = this.opts.surfaces.list(paneId).filter((s) => s.kind === 'response').sort((a, b) => b.order - a.order)[0];
    if (!reply) return undefined;
    const m = reply.model as { layman?: unknown; body?: unknown };
    return [m.layman, m.body].filter((x) => typeof x === 'string' && x.trim()).join('\n\n') || undefined;
  }

  async commit(p: string, message: string): Promise<{ commit: string }> {
    const rec = this.need(p);
    const commit = await commitAll(rec, message, this.env);
    this.refreshNow(rec);
    return { commit };
  }

  async merge(p: string, how: 'ff' | 'merge'): Promise<{ commit: string }> {
    const rec = this.need(p);
    const commit = await mergeIntoBase(rec, how, this.env);
    void this.refreshAll();
    this.changed();
    return { commit };
  }

  async push(p: string, pr: boolean): Promise<{ remote: string; url?: string }> {
    return pushBranch(this.need(p), pr === true, this.env);
  }

  async revert(p: string, file: string, hunk: number, key: string): Promise<void> {
    const rec = this.need(p);
    if (typeof file !== 'string' || !Number.isInteger(hunk) || hunk < 1 || typeof key !== 'string') throw new Error('name the hunk to put back: a file, a hunk number from 1 and its key');
    await revertHunk(rec, file, hunk, key, this.env);
    this.refreshNow(rec);
  }

  async remove(p: string, force: boolean): Promise<{ ok: true } | { ok: false; error: string; confirm?: boolean }> {
    const rec = this.need(p);
    const { panes } = this.opts;
    const pane = rec.paneId ? panes.get(rec.paneId) : undefined;
    const risks: string[] = [];
    if (pane?.status === 'running') risks.push(`its agent still runs in the pane "${pane.title}"`);
    risks.push(...await removeRisks(rec, this.env).catch(() => []));
    if (risks.length > 0 && force !== true) {
      return { ok: false, confirm: true, error: `removing "${rec.branch}" would lose work: ${risks.join(', ')}; confirm to remove it anyway` };
    }
    if (pane) {
      this.detach(pane.id);
      if (pane.status === 'running') panes.close(pane.id);
      else {
        this.opts.surfaces.ingest(pane.id, { td: TDSP_VERSION, op: 'retire', id: CHANGES_ID }, 'worktree', { strict: true });
        panes.patch(pane.id, { worktree: undefined });
      }
    }
    await removeWorktree(rec, this.env);
    this.registry.remove(rec.path);
    this.changed();
    return { ok: true };
  }

  async open(p: string, command?: string[]): Promise<{ pane: PaneInfo }> {
    const rec = this.need(p);
    if (rec.paneId && this.opts.panes.get(rec.paneId)) throw new Error(`an agent already works in "${rec.path}": focus its pane from the agents list`);
    if (!fs.existsSync(rec.path)) throw new Error(`the worktree folder "${rec.path}" is gone: remove it from the list`);
    const pane = this.opts.newAgentPane({ command: this.agentCommand(command), cwd: rec.path });
    this.registry.update(rec.path, { paneId: pane.id });
    this.attach(pane.id);
    this.changed();
    return { pane: this.opts.panes.get(pane.id) ?? pane };
  }

  private refreshNow(rec: WorktreeRecord): void {
    const w = rec.paneId ? this.watched.get(rec.paneId) : undefined;
    if (w) void this.refresh(w);
  }

  /** The contract's worktree.* requests. */
  install(core: Pick<Core, 'handle'>): void {
    const guard = async <T extends object>(fn: () => Promise<T>): Promise<({ ok: true } & T) | { ok: false; error: string }> => {
      try {
        return { ok: true, ...(await fn()) };
      } catch (e) {
        return { ok: false, error: reason(e) };
      }
    };
    core.handle('worktree.probe', (req) => guard(() => this.probe(req)));
    core.handle('worktree.new', (req) => guard(() => this.create(req)));
    core.handle('worktree.list', () => this.list());
    core.handle('worktree.status', ({ path: p }) => guard(() => this.status(p)));
    core.handle('worktree.commit', ({ path: p, message }) => guard(() => this.commit(p, message)));
    core.handle('worktree.merge', ({ path: p, how }) => guard(() => this.merge(p, how)));
    core.handle('worktree.push', ({ path: p, pr }) => guard(() => this.push(p, pr)));
    core.handle('worktree.revert', ({ path: p, file, hunk, key }) => guard(async () => {
      await this.revert(p, file, hunk, key);
      return {};
    }));
    core.handle('worktree.remove', async ({ path: p, force }) => {
      try {
        return await this.remove(p, force === true);
      } catch (e) {
        return { ok: false, error: reason(e) };
      }
    });
    core.handle('worktree.open', ({ path: p, command }) => guard(() => this.open(p, command)));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.changedTimer) clearTimeout(this.changedTimer);
    for (const u of this.unsubscribe.splice(0)) u();
    for (const id of [...this.watched.keys()]) this.detach(id);
  }
}

function expandHome(dir: string, home: string): string {
  if (dir === '~') return home;
  return dir.startsWith('~/') ? path.join(home, dir.slice(2)) : path.resolve(dir);
}

/** Build the worktree service, install its requests and start it. */
export function installWorktrees(opts: WorktreeServiceOptions): WorktreeService {
  const service = new WorktreeService(opts);
  service.install(opts.core);
  service.start();
  opts.core.onDispose(() => service.dispose());
  return service;
}
