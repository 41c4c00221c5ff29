/**
 * The pane service: every pane of the window, the layout that tiles them, and the
 * focused pane. Emits the contract's pane and layout events on the Core and offers
 * PaneServiceApi to the other services.
 */
import { EventEmitter } from 'node:events';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Layout, LayoutArea, PaneInfo, Res } from '../../preload/contract.ts';
import { FLOW } from '../../preload/contract.ts';
import type { ScreenCells } from '../../common/first-paint.ts';
import type { Core } from '../core.ts';
import type { Paths } from '../paths.ts';
import { paneFolder } from '../paths.ts';
import type { CreatePaneOptions, PaneServiceApi } from '../services.ts';
import { appBin, findProgram, newTag, paneEnv, loginShell } from './env.ts';
import { integrate, zshDotdir } from './integration.ts';
import { atPrompt, type PromptState } from './marks.ts';
import { GOVERNOR, OutputGovernor } from './governor.ts';
import { WindowShares } from './flow.ts';
import * as L from './layout.ts';
import { isQualifiedPaneId } from '../../common/pane-id.ts';
import { DEFAULT_AREA, DEFAULT_MIN, placePane, type Placed } from './tiling.ts';
import { DEFAULT_COLS, DEFAULT_ROWS, Pane, SCROLLBACK, snapshotScrollback } from './pane.ts';
import { findAncestor, foregroundGroup, sessionGroups, signalSession } from './proc.ts';
import { endRecorded, escalate, QUIT_ESCALATION, stillRunning, type Escalation, type ProcessRecord } from './ending.ts';
import { agentOf, flagValue, resumeArgv, SHELLS } from './resume.ts';


export interface PaneServiceOptions {
  core: Core;
  paths: Paths;
  /** The environment panes inherit. */
  env: NodeJS.ProcessEnv;
  /** Where panes start when no cwd is given. */
  cwd: string;
  /** $TD_SESSION; a new one when absent. */
  session?: string;
  scrollback?: () => number;
  /** Whether bash, zsh and fish panes start with the shell integration (settings.shellIntegration; default on). */
  shellIntegration?: () => boolean;
}

/** A saved pane, to start again under its old id (main/state): everything a resume needs. */
export interface SavedPane {
  id: string;
  tag: string;
  kind: PaneInfo['kind'];
  command: string[];
  cwd: string;
  title?: string;
  /** The process's whole environment (the app's own variables are renewed on resume). */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  agentCli?: PaneInfo['agentCli'];
  /** Whether its process was running when this was saved (absent in files of earlier versions: true). */
  running?: boolean;
  exitCode?: number;
  /**
   * Its process (running, or the last run's of a pane that came back ended): the pid that
   * leads its session, when it started and on which boot, so a resume can tell whether
   * anything of it still runs (main/panes/ending.ts).
   */
  process?: ProcessRecord;
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A pane's screen and its whole history, kept in its folder (saveScreens). */
const SCREEN_FILE = '.last-screen.ans';
/** The periodic screen saves wait until no window has typed, or asked for a snapshot or a resize, for this long (keepScreens)... */
const SAVE_QUIET_MS = 1_000;
/** ...but a round of saves waits no longer than this in all. */
const SAVE_WAIT_MAX_MS = 10_000;
/** How long a submitted line waits before its return (submit). */
export const SUBMIT_DELAY_MS = 200;

export function newPaneId(): string {
  const bytes = randomBytes(8);
  let s = 'p';
  for (const b of bytes) s += ID_ALPHABET[b % ID_ALPHABET.length];
  return s;
}

export function newSessionId(): string {
  const d = new Date();
  const ymd = `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
  return `${ymd}-${randomBytes(4).toString('hex')}`;
}

export class PaneService implements PaneServiceApi {
  readonly session: string;
  private readonly core: Core;
  private readonly paths: Paths;
  private readonly env: NodeJS.ProcessEnv;
  private readonly defaultCwd: string;
  private readonly scrollback: () => number;
  private readonly shellIntegration: () => boolean;
  private readonly panes = new Map<string, Pane>();
  /** Lines on their way into a pane (submit), so that the next waits for the one before. */
  private readonly submits = new Map<string, Promise<void>>();
  private readonly bus = new EventEmitter();
  /** Windows reading pane output (for flow control). */
  private readonly readers = new Set<string>();
  /** The windows' output held across the panes: each window's flow-control floor is shared among the panes holding output for it (main/panes/flow.ts). */
  private readonly shares = new WindowShares();
  /**
   * Panes each window does not show now (`pane.view`: its page is hidden, or the pane is too
   * small to read): it is sent none of their output and never holds their PTYs; their
   * headless screens keep everything, and the window redraws each from a snapshot when it
   * shows it again.
   */
  private readonly outOfView = new Map<string, Set<string>>();
  /** Each pane's cwd as last reported, to save the session when one moves. */
  private readonly cwds = new Map<string, string>();
  /** Panes flooding at once take turns (main/panes/governor.ts); a slice every GOVERNOR.sliceMs while output comes. */
  private readonly governor = new OutputGovernor(GOVERNOR);
  private governTimer: NodeJS.Timeout | undefined;
  /** When each pane last had input (performance.now()): a pane typed into lately never floods in the background. */
  private readonly inputAt = new Map<string, number>();
  /** When a window last typed, or asked for a snapshot or a resize (performance.now()): the periodic saves wait for quiet (saveInTurns). */
  private windowWorkAt = -Infinity;
  private layoutTree: Layout | null = null;
  private focusedId: string | null = null;
  /** Panes in the order they last had focus, the most recent last (where focus goes when one closes). */
  private focusOrder: string[] = [];
  /** Whether a window has said its panes area: until one has, nobody sees the panes, and a pane is never refused for room. */
  private areaKnown = false;
  /** The panes area of the window that last said (`layout.area`), and the smallest pane, in px. */
  private area: Required<LayoutArea> = { width: DEFAULT_AREA.width, height: DEFAULT_AREA.height, minWidth: DEFAULT_MIN.width, minHeight: DEFAULT_MIN.height, benchWidth: 0 };
  private disposed = false;

  constructor(opts: PaneServiceOptions) {
    this.core = opts.core;
    this.paths = opts.paths;
    this.env = opts.env;
    this.defaultCwd = opts.cwd;
    this.session = opts.session ?? newSessionId();
    this.scrollback = opts.scrollback ?? (() => SCROLLBACK);
    this.shellIntegration = opts.shellIntegration ?? (() => true);
    this.bus.setMaxListeners(0);
    this.core.onClientGone((client) => this.dropReader(client.id));
    // Output goes to windows (clients that said app.hello), not to relays' own connections or
    // commands; a window left out of a pane's flow (it fell behind while another kept up) gets none.
    // A window sends none of a pane it does not show (pane.view).
    this.core.filterEvents('pane.output', (p, client) => this.readers.has(client.id) && !this.outOfView.get(client.id)?.has(p.paneId) && (this.panes.get(p.paneId)?.accepts(client.id) ?? true));
  }

  // ───────────── queries ─────────────

  list(): PaneInfo[] {
    return [...this.panes.values()].map((p) => p.info);
  }

  get(paneId: string): PaneInfo | undefined {
    return this.panes.get(paneId)?.info;
  }

  get layout(): Layout | null {
    return this.layoutTree;
  }

  get focused(): string | null {
    return this.focusedId;
  }

  /** The program in the pane's foreground now, else the one it started. */
  program(paneId: string): string {
    return this.need(paneId).program;
  }

  pid(paneId: string): number | undefined {
    return this.panes.get(paneId)?.pid;
  }

  shellAtPrompt(paneId: string): boolean {
    const pane = this.panes.get(paneId);
    const pid = pane?.pid;
    if (!pane || pid === undefined || pane.info.status !== 'running') return false;
    if (!SHELLS.has(path.basename(pane.command[0] ?? '').replace(/^-/, ''))) return false;
    // With shell integration, its marks say when the prompt shows (even where the OS keeps
    // the foreground group to itself). While they say a command runs, the foreground group
    // still has its say: marks come with output, a moment behind a program that just
    // exited, and any program can print them.
    if (atPrompt(pane.prompt)) return true;
    // The shell leads its own process group; it is in the foreground when nothing it started is.
    return foregroundGroup(pid) === pid;
  }

  /** What the pane's shell integration marks say its shell is doing (NO_PROMPT without them). */
  prompt(paneId: string): PromptState {
    return this.need(paneId).prompt;
  }

  /** The pane's live working folder: what its shell reported (OSC 7), else what the OS says, else where it was last seen (Pane.liveCwd). */
  liveCwd(paneId: string): string | undefined {
    return this.panes.get(paneId)?.liveCwd();
  }

  screenText(paneId: string): string {
    return this.need(paneId).screenText();
  }

  /** The pane's rows on screen as runs of cells, and its cursor; undefined for a pane that is not here. */
  screenCells(paneId: string): ScreenCells | undefined {
    return this.panes.get(paneId)?.screenCells();
  }

  /** Scrollback and screen as plain text. */
  allText(paneId: string): string {
    return this.need(paneId).allText();
  }

  /** Resolves once the pane's headless screen has parsed all output received so far. */
  settled(paneId: string): Promise<void> {
    return this.need(paneId).settled();
  }

  folder(paneId: string): string {
    const dir = paneFolder(this.paths, this.session, paneId);
    fs.mkdirSync(dir, { recursive: true });
    return dir;
  }

  paneOfPid(pid: number): string | undefined {
    const byPid = new Map<number, string>();
    for (const p of this.panes.values()) if (p.pid !== undefined) byPid.set(p.pid, p.id);
    const hit = findAncestor(pid, (p) => byPid.has(p));
    return hit === undefined ? undefined : byPid.get(hit);
  }

  /** Whether the pane's PTY is paused now (flow control, or its turn is not come: isPaced). */
  isPaused(paneId: string): boolean {
    return this.need(paneId).isPaused;
  }

  /** Whether the pane waits its turn because many panes flood (main/panes/governor.ts). */
  isPaced(paneId: string): boolean {
    return this.need(paneId).isPaced;
  }

  /** Whether the pane floods in the background: windows reading slower than the core only redraw it (Pane.background). */
  inBackground(paneId: string): boolean {
    return this.need(paneId).inBackground;
  }

  /** Characters of output the client has not acknowledged yet. */
  behind(paneId: string, clientId: string): number {
    return this.need(paneId).behind(clientId);
  }

  // ───────────── lifecycle ─────────────

  create(opts: CreatePaneOptions): PaneInfo {
    if (this.disposed) throw new Error('the window is shutting down: no new panes');
    const id = opts.paneId ?? newPaneId();
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id)) throw new Error(`pane id "${id}" is not usable: use 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit`);
    if (this.panes.has(id)) throw new Error(`pane "${id}" already exists: choose another id`);
    if (opts.cwd !== undefined && !usableCwd(opts.cwd)) throw new Error(`folder "${opts.cwd}" does not exist: give the pane an existing folder as cwd`);
    // A new pane beside another opens where that one is now (the focused pane's, when none is named).
    const beside = opts.detached || opts.cwd !== undefined ? undefined : (opts.splitOf && this.panes.has(opts.splitOf) ? opts.splitOf : this.focusedId);
    const inherited = beside ? usableCwd(this.liveCwd(beside)) : undefined;
    if (opts.command !== undefined && (!Array.isArray(opts.command) || !opts.command.every((a) => typeof a === 'string'))) {
      throw new Error('command must be a list of strings (argv): for example ["bash", "-l"]');
    }
    const cwd = usableCwd(opts.cwd) ?? inherited ?? usableCwd(this.defaultCwd) ?? os.homedir();
    const command = opts.command && opts.command.length > 0 ? opts.command : loginShell(this.env);
    const cols = validSize(opts.cols, DEFAULT_COLS, 2000);
    const rows = validSize(opts.rows, DEFAULT_ROWS, 1000);
    return this.spawn({ id, tag: newTag(), kind: opts.kind ?? 'shell', command, cwd, cols, rows, title: opts.title, instanceId: opts.instanceId, extraEnv: opts.env }, opts);
  }

  /**
   * A saved pane back under its old id, tag and folder, ended (its process went with the
   * last service), with why; `resume` starts it. It is not put into the layout.
   */
  restoreEnded(saved: SavedPane, ended: { reason: string; at: string }): PaneInfo {
    if (this.panes.has(saved.id)) throw new Error(`pane "${saved.id}" already exists: a saved pane comes back once`);
    const command = saved.command.length > 0 ? saved.command : loginShell(this.env);
    const env = saved.env ?? paneEnv(this.env, { session: this.session, paneId: saved.id, tag: saved.tag, socket: this.paths.socket });
    // What it showed when the last service stopped (cleanly, or killed: the last save), drawn
    // again under the ended note. The file stays until the pane's screen is saved again: a
    // service killed before that brings the same screen back again.
    const screenFile = path.join(paneFolder(this.paths, this.session, saved.id), SCREEN_FILE);
    let screen: string | undefined;
    try {
      screen = fs.readFileSync(screenFile, 'utf8');
    } catch {
      screen = undefined;
    }
    const info = this.spawn(
      {
        id: saved.id, tag: saved.tag, kind: saved.kind, command, cwd: saved.cwd, env,
        cols: validSize(saved.cols, DEFAULT_COLS, 2000), rows: validSize(saved.rows, DEFAULT_ROWS, 1000), title: saved.title,
        agentCli: saved.agentCli, ended: { ...ended, resumeArgv: resumeArgv(command, saved.agentCli) }, leftover: saved.process,
      },
      { detached: true },
    );
    if (screen) void this.panes.get(saved.id)?.writeScreen(screen + '\r\n');
    return info;
  }

  /**
   * Keep every pane's screen and its whole history (the 'all' snapshot, exact cell by cell:
   * main/service/resume-history.test.ts) in its folder, so a pane that comes back ended
   * shows what it showed: all of them at a clean shutdown, and while the
   * service runs those that changed (keepScreens), so after a crash a pane shows what it
   * showed shortly before.
   */
  async saveScreens(ids: Iterable<string> = this.panes.keys()): Promise<void> {
    await Promise.all([...ids].map(async (id) => {
      const p = this.panes.get(id);
      if (!p || p.kind === 'tick') return;
      try {
        const snap = await p.snapshot(Number.MAX_SAFE_INTEGER);
        // Beside, then renamed into place: a crash mid-write leaves the last whole screen.
        const file = path.join(this.folder(p.id), SCREEN_FILE);
        fs.writeFileSync(`${file}.tmp`, snap.data, { mode: 0o600 });
        fs.renameSync(`${file}.tmp`, file);
      } catch {
        // its folder is gone: it comes back blank
      }
    }));
  }

  /**
   * While the service runs, keep the screens of panes whose output changed: checked every
   * `everyMs`, a changed pane's screen is saved once its output has been quiet for a second
   * (or, for one that never goes quiet, once it has waited four rounds), so a flood is not
   * snapshotted as it runs. `onSaved` follows each round of saves (what the snapshots made
   * is garbage then: main/service/memory.ts gives it back). Returns the stop.
   */
  keepScreens(everyMs: number, onSaved?: () => void): () => void {
    const changed = new Map<string, { since: number; last: number }>();
    const off = this.onOutput((id) => {
      const now = Date.now();
      const c = changed.get(id);
      if (c) c.last = now;
      else changed.set(id, { since: now, last: now });
    });
    let saving = false;
    let stopped = false;
    const timer = setInterval(() => {
      if (saving) return;
      const now = Date.now();
      // A pane whose history is still reflowed in the background after a resize waits for it
      // (its whole-history snapshot would reflow all of it at once: ~100 ms a pane of 10,000
      // lines), unless it has waited four rounds.
      const due = [...changed].filter(([id, c]) => (now - c.last >= 1000 && !this.panes.get(id)?.reflowing) || now - c.since >= 4 * everyMs).map(([id]) => id);
      if (due.length === 0) return;
      for (const id of due) changed.delete(id);
      saving = true;
      void this.saveInTurns(due, () => stopped).finally(() => {
        saving = false;
        onSaved?.();
      });
    }, everyMs);
    timer.unref?.();
    return () => {
      stopped = true;
      clearInterval(timer);
      off();
    };
  }

  /**
   * saveScreens for keepScreens: one pane an event-loop turn, each once no window has typed or
   * asked for a snapshot or a resize for SAVE_QUIET_MS (the round waiting SAVE_WAIT_MAX_MS in
   * all at most, so someone typing on and on still has every screen saved within it), so a
   * window attaching, or keys, never wait behind a round of saves (32 panes of 10,000 lines:
   * seconds of one task, when it was one Promise.all of all of them).
   */
  private async saveInTurns(ids: string[], stopped: () => boolean): Promise<void> {
    const until = performance.now() + SAVE_WAIT_MAX_MS;
    for (const id of ids) {
      while (performance.now() - this.windowWorkAt < SAVE_QUIET_MS && performance.now() < until && !stopped() && !this.disposed) {
        await new Promise((r) => setTimeout(r, SAVE_QUIET_MS / 4));
      }
      if (stopped() || this.disposed) return;
      await this.saveScreens([id]);
      await new Promise((r) => setImmediate(r));
    }
  }

  /**
   * Start an ended pane again as it was: the same id, folder, environment (the app's
   * variables renewed), cwd and size. Never while its last run's program still runs (a
   * service that died without ending it): `endLeftover` first, as the requests do.
   */
  resume(paneId: string): PaneInfo {
    const pane = this.need(paneId);
    if (pane.running) throw new Error(`pane "${paneId}" is running: only a pane that ended with the service can be resumed`);
    const left = pane.info.ended ? stillRunning(pane.process) : [];
    if (left.length > 0) {
      throw new Error(`pane "${paneId}" cannot resume while its program from before (pid ${pane.process!.pid}) still runs without its terminal: end it (kill -TERM -- -${left[0]}) and resume again`);
    }
    const argv = pane.info.ended?.resumeArgv ?? pane.command;
    const cwd = usableCwd(pane.info.cwd) ?? usableCwd(pane.cwd) ?? usableCwd(this.defaultCwd) ?? os.homedir();
    const env = paneEnv(pane.env, { session: this.session, paneId: pane.id, tag: pane.tag, socket: this.paths.socket });
    if (!argv[0] || !findProgram(argv[0], env, cwd)) {
      throw new Error(`"${argv[0] ?? ''}" was not found on PATH or is not executable, so pane "${paneId}" cannot resume: install it, or close the pane`);
    }
    pane.relaunch(argv, env, cwd);
    this.core.emit('pane.updated', pane.info);
    this.changedNow();
    return pane.info;
  }

  private spawn(
    s: {
      id: string; tag: string; kind: PaneInfo['kind']; command: string[]; cwd: string; cols: number; rows: number; title?: string; instanceId?: string;
      /** Extra variables (create), or the whole environment of a saved pane (restoreEnded). */
      extraEnv?: Record<string, string>; env?: Record<string, string>;
      agentCli?: PaneInfo['agentCli']; ended?: NonNullable<PaneInfo['ended']>; leftover?: ProcessRecord;
    },
    place: Pick<CreatePaneOptions, 'detached' | 'splitOf' | 'direction'>,
  ): PaneInfo {
    if (!place.detached && !s.ended) {
      // No room: said before anything starts.
      const room = this.place(s.id, place.splitOf, place.direction);
      if (!room.ok) throw new Error(room.error);
    }
    const env = s.env ?? paneEnv(this.env, { session: this.session, paneId: s.id, tag: s.tag, socket: this.paths.socket, extra: s.extraEnv });
    if (!s.ended && (!s.command[0] || !findProgram(s.command[0], env, s.cwd))) {
      throw new Error(`"${s.command[0] ?? ''}" was not found on PATH or is not executable: check the command, or give its full path`);
    }
    const name = agentOf(s.command);
    const sessionId = flagValue(s.command, '--session-id');
    const agentCli = s.agentCli ?? (name ? { name, ...(sessionId ? { sessionId } : {}) } : undefined);
    const pane = new Pane(
      {
        id: s.id, tag: s.tag, kind: s.kind, command: s.command, cwd: s.cwd, env, cols: s.cols, rows: s.rows, title: s.title, instanceId: s.instanceId, scrollback: this.scrollback(), ended: s.ended, leftover: s.leftover, agentCli,
        shares: this.shares,
        launch: (command, base) => (this.shellIntegration() ? integrate(command, base, { bin: appBin, zdotdir: () => zshDotdir(this.paths.state) }) : undefined),
      },
      {
        output: (p, data) => {
          if (this.panes.get(p.id) !== p) return;
          this.core.emit('pane.output', { paneId: p.id, data });
          this.bus.emit('output', p.id, data);
          this.govern(p.id, data.length);
        },
        stale: (p, clientId, over) => {
          if (this.panes.get(p.id) === p) this.core.emitTo(clientId, 'pane.stale', over ? { paneId: p.id, history: 'all' } : { paneId: p.id });
        },
        compacted: (p) => {
          if (this.panes.get(p.id) === p) this.bus.emit('compacted', p.id);
        },
        updated: (p) => {
          if (this.panes.get(p.id) !== p) return;
          this.core.emit('pane.updated', p.info);
          // A shell that moved folders: the saved session follows.
          if (this.cwds.get(p.id) !== p.info.cwd) {
            this.cwds.set(p.id, p.info.cwd);
            this.changed();
          }
        },
        exited: (p) => {
          if (this.panes.get(p.id) !== p) return;
          if (this.governor.remove(p.id)) this.pace();
          this.core.emit('pane.updated', p.info);
          this.bus.emit('exit', p.info);
          this.changed();
        },
      },
    );
    this.panes.set(s.id, pane);
    this.cwds.set(s.id, pane.info.cwd);
    this.bus.emit('created', pane.info);
    this.core.emit('pane.updated', pane.info);
    if (!place.detached) this.attach(s.id, place.splitOf, place.direction);
    // A new process's record is on disk before anything else happens to it (resume needs it).
    if (!s.ended) this.changedNow();
    else this.changed();
    return pane.info;
  }

  restart(paneId: string): PaneInfo {
    const pane = this.need(paneId);
    if (pane.running) throw new Error(`pane "${paneId}" is still running: close it or wait for it to exit before restarting`);
    if (pane.info.ended) return this.resume(paneId);
    pane.start();
    this.core.emit('pane.updated', pane.info);
    this.changed();
    return pane.info;
  }

  close(paneId: string): void {
    const pane = this.panes.get(paneId);
    if (!pane) return;
    pane.dispose();
    if (this.governor.remove(paneId)) this.pace();
    this.panes.delete(paneId);
    this.cwds.delete(paneId);
    this.inputAt.delete(paneId);
    for (const hidden of this.outOfView.values()) hidden.delete(paneId);
    this.removeFromLayout(paneId);
    this.core.emit('pane.removed', { paneId });
    this.bus.emit('removed', paneId);
    this.changed();
  }

  detach(paneId: string): void {
    this.need(paneId);
    this.removeFromLayout(paneId);
    this.changed();
  }

  /** Put a pane into the layout beside `splitOf` (or the focused pane); a pane of another machine (`name/id`) too. */
  attach(paneId: string, splitOf?: string, direction?: 'right' | 'down'): void {
    if (!isQualifiedPaneId(paneId)) this.need(paneId);
    if (L.containsPane(this.layoutTree, paneId)) return;
    const placed = this.place(paneId, splitOf, direction);
    if (!placed.ok) throw new Error(placed.error);
    this.layoutTree = placed.layout;
    this.focusedId = paneId;
    this.focusOrder = L.focusedLast(this.focusOrder, paneId);
    this.emitLayout();
    this.changed();
  }

  resize(paneId: string, cols: number, rows: number): void {
    const pane = this.need(paneId);
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1 || cols > 2000 || rows > 1000) {
      throw new Error(`size ${cols}x${rows} is not usable: send whole numbers, cols 1 to 2000 and rows 1 to 1000`);
    }
    this.windowWorkAt = performance.now();
    pane.resize(cols, rows);
  }

  write(paneId: string, data: string): void {
    const pane = this.need(paneId);
    // Input goes ahead of bulk output: a pane waiting its turn reads at once (the prompt after
    // Ctrl-C); input to a quiet pane holds the floods until it answers (main/panes/governor.ts).
    const now = performance.now();
    this.inputAt.set(paneId, now);
    this.windowWorkAt = now;
    if (this.governor.input(paneId, now)) this.pace();
    else pane.background(false);
    pane.write(data);
    this.bus.emit('input', paneId);
  }

  /**
   * A line typed and sent as a person would: the text, then its return on its own a moment
   * later (Claude Code takes a line and its return in one read as a paste and leaves it in its
   * input unsent). Lines to one pane go one after another, never interleaved; a pane that ends
   * meanwhile gets nothing more. Throws, as write does, when the first write cannot be made.
   */
  submit(paneId: string, line: string): void {
    const send = () => {
      this.write(paneId, line);
      return new Promise<void>((resolve) => {
        setTimeout(() => {
          try {
            if (this.get(paneId)?.status === 'running') this.write(paneId, '\r');
          } catch {
            // the pane went meanwhile: nothing is left to send to
          }
          // and the next line a moment after this return, not in the same read
          setTimeout(resolve, SUBMIT_DELAY_MS).unref?.();
        }, SUBMIT_DELAY_MS).unref?.();
      });
    };
    const pending = this.submits.get(paneId);
    const next = pending
      ? pending.then(() => (this.get(paneId)?.status === 'running' ? send() : undefined)).catch(() => undefined)
      : send();
    this.submits.set(paneId, next);
    void next.finally(() => {
      if (this.submits.get(paneId) === next) this.submits.delete(paneId);
    });
  }

  /** Output counted for the governor; its slices run while output comes or a pane waits its turn. */
  private govern(paneId: string, chars: number): void {
    if (this.governor.received(paneId, chars)) this.pace();
    if (this.governTimer || this.disposed) return;
    this.governTimer = setInterval(() => {
      this.governor.slice(performance.now());
      this.pace();
      if (!this.governor.active) this.stopGoverning();
    }, GOVERNOR.sliceMs);
  }

  /**
   * Each pane's PTY held or let go as the governor says; and whether it floods in the
   * background: it takes turns with other floods, is not focused and had no input for
   * FLOW.backgroundAfterInputMs (its windows then only redraw it: Pane.background; it leaves
   * the background on focus, on input, or once its flood is over).
   */
  private pace(): void {
    const now = performance.now();
    for (const [id, p] of this.panes) {
      p.pace(this.governor.isPaced(id));
      // (The focused pane however it came to be: focus(), a layout, the focused pane closed.)
      if (id === this.focusedId) p.lookedAt();
      else if (now - (this.inputAt.get(id) ?? -Infinity) < FLOW.backgroundAfterInputMs) p.background(false);
      else if (this.governor.takesTurns(id)) p.background(true);
    }
  }

  private stopGoverning(): void {
    clearInterval(this.governTimer);
    this.governTimer = undefined;
  }

  patch(paneId: string, patch: Partial<Pick<PaneInfo, 'agent' | 'benchOpen' | 'unseen' | 'title' | 'instanceId' | 'agentCli' | 'worktree' | 'usage'>>): void {
    const pane = this.need(paneId);
    const { title, ...rest } = patch;
    const sessionBefore = pane.info.agentCli?.sessionId;
    pane.info = { ...pane.info, ...rest };
    if ('title' in patch) pane.setTitle(title);
    this.core.emit('pane.updated', pane.info);
    // An agent's session id is what its resume needs: on disk at once.
    if ('agentCli' in patch && pane.info.agentCli?.sessionId !== sessionBefore) this.changedNow();
  }

  /** What the saved session keeps of every pane (main/state/session.ts). */
  records(): SavedPane[] {
    return [...this.panes.values()].map((p) => {
      const info = p.info;
      const rec: SavedPane = {
        id: p.id, tag: p.tag, kind: p.kind, command: p.command, cwd: this.liveCwd(p.id) ?? info.cwd, env: p.env,
        cols: info.cols, rows: info.rows, running: info.status === 'running' || info.ended !== undefined,
      };
      if (info.agentCli) rec.agentCli = info.agentCli;
      if (info.exitCode !== undefined && !info.ended) rec.exitCode = info.exitCode;
      if (p.process && (p.running || info.ended)) rec.process = p.process;
      return rec;
    });
  }

  /**
   * End every pane cleanly: SIGHUP to each (as a terminal closing does), SIGTERM to the
   * process groups of its session still there after `termAfterMs`, SIGKILL after
   * `killAfterMs`. A pane's session is its terminal's: what its shell started there (a job
   * that ignores SIGHUP, say) is ended with it, not only the shell. Resolves once every
   * pane has exited and nothing is left in their sessions (or all of it was killed).
   * `by` ("service stop") is told with each pane's exit, as `endedBy`.
   */
  async endAll(e: Escalation = QUIT_ESCALATION, by?: string): Promise<void> {
    const running = [...this.panes.values()].filter((p) => p.running);
    for (const p of running) p.endingBy = by;
    const sessions = running.map((p) => p.process).filter((r): r is ProcessRecord => r !== undefined);
    for (const p of running) p.signal('SIGHUP');
    await escalate(
      () => running.every((p) => !p.running) && sessions.every((r) => sessionGroups(r.pid, r.startTicks).length === 0),
      (sig) => {
        for (const p of running) if (p.running) p.signal(sig, true);
        for (const r of sessions) signalSession(r.pid, sig, r.startTicks);
      },
      e,
    );
  }

  /**
   * A pane that came back ended, whose last run's program still runs without its terminal
   * (the service before was killed or crashed, and the program ignored the hang-up): end it
   * (its whole session, escalating as endAll does) so a resume never starts a second copy.
   * False when something of it would not end.
   */
  endLeftover(paneId: string, e: Escalation = QUIT_ESCALATION): Promise<boolean> {
    const pane = this.need(paneId);
    if (pane.running || !pane.info.ended) return Promise.resolve(true);
    return endRecorded(pane.process, e);
  }

  /** Resume, ending first what its last run left running (endLeftover): what pane.resume and Resume all do. */
  async resumeAfterLeftover(paneId: string): Promise<PaneInfo> {
    await this.endLeftover(paneId);
    return this.resume(paneId);
  }

  /**
   * The pane's snapshot; with `size`, the pane resized to it first (as `resize`), the snapshot
   * taken at it and its default history four screens of that size: a window that knows the
   * size it shows the pane at draws it once, not at the old size and then reflowed.
   */
  snapshot(paneId: string, clientId?: string, scrollback?: number | 'all', size?: { cols: number; rows: number }): Promise<Res<'pane.snapshot'>> {
    const pane = this.need(paneId);
    if (scrollback !== undefined && scrollback !== 'all' && !(Number.isInteger(scrollback) && scrollback >= 0)) {
      throw new Error(`scrollback ${JSON.stringify(scrollback)} is not usable: send a whole number of lines, or "all"`);
    }
    if (size) this.resize(paneId, size.cols, size.rows);
    this.windowWorkAt = performance.now();
    if (clientId) this.addReader(clientId);
    return pane.snapshot(scrollback === 'all' ? Number.MAX_SAFE_INTEGER : scrollback ?? (size ? snapshotScrollback(size.rows) : undefined), clientId);
  }

  // ───────────── layout and focus ─────────────

  /** A pane of the layout: one of this service's, or another machine's (`name/id`, held for its machine). */
  private inLayout = (id: string): boolean => this.panes.has(id) || isQualifiedPaneId(id);

  /** Take a pane of another machine out of the layout (it was closed there). */
  dropFar(paneId: string): void {
    if (!isQualifiedPaneId(paneId) || !L.containsPane(this.layoutTree, paneId)) return;
    this.removeFromLayout(paneId);
    this.changed();
  }

  setLayout(value: unknown): void {
    const check = L.validateLayout(value, this.inLayout);
    if (!check.ok) throw new Error(check.error);
    this.layoutTree = check.layout;
    if (this.focusedId && !L.containsPane(this.layoutTree, this.focusedId)) this.focusedId = L.paneIds(this.layoutTree)[0] ?? null;
    this.emitLayout();
    this.changed();
  }

  /** Set the layout as restored from disk: unknown panes dropped, no error. */
  restoreLayout(layout: Layout | null, focused: string | null): void {
    const check = layout ? L.validateLayout(L.prune(layout, this.inLayout), this.inLayout) : undefined;
    this.layoutTree = check && check.ok ? check.layout : null;
    for (const p of this.panes.values()) {
      if (p.kind !== 'tick' && !L.containsPane(this.layoutTree, p.id)) this.layoutTree = L.splitPane(this.layoutTree, undefined, p.id, 'right');
    }
    this.focusedId = focused && L.containsPane(this.layoutTree, focused) ? focused : (L.paneIds(this.layoutTree)[0] ?? null);
    this.focusOrder = this.focusedId ? [this.focusedId] : [];
    this.emitLayout();
    this.changed();
  }

  /** Where a pane would go now (main/panes/tiling.ts): beside `splitOf` or the focused pane, where there is room. */
  private place(paneId: string, splitOf?: string, direction?: 'right' | 'down'): Placed {
    const target = splitOf && L.containsPane(this.layoutTree, splitOf) ? splitOf : (this.focusedId ?? undefined);
    const a = this.area;
    const min = { width: a.minWidth, height: a.minHeight };
    const withBench = { width: a.minWidth + a.benchWidth, height: a.minHeight };
    return placePane(this.layoutTree, paneId, {
      area: { width: a.width, height: a.height },
      min: (id) => (this.panes.get(id)?.info.benchOpen ? withBench : min),
      target,
      direction: target && direction ? direction : undefined,
      mustFit: this.areaKnown,
    });
  }

  /** The panes area of a window and the smallest usable pane, in px (`layout.area`): where new panes go follows it. */
  setArea(value: unknown): void {
    const v = (value ?? {}) as Record<string, unknown>;
    const ok = (k: string, lo: number, hi: number): number => {
      const n = v[k];
      if (typeof n !== 'number' || !Number.isFinite(n) || n < lo || n > hi) throw new Error(`${k} ${JSON.stringify(n)} is not usable: send a number of pixels from ${lo} to ${hi}`);
      return n;
    };
    this.area = { width: ok('width', 1, 100_000), height: ok('height', 1, 100_000), minWidth: ok('minWidth', 1, 10_000), minHeight: ok('minHeight', 1, 10_000), benchWidth: v.benchWidth === undefined ? 0 : ok('benchWidth', 0, 10_000) };
    this.areaKnown = true;
  }

  focus(paneId: string): void {
    if (!(isQualifiedPaneId(paneId) && L.containsPane(this.layoutTree, paneId))) this.need(paneId);
    if (this.focusedId === paneId) return;
    this.focusedId = paneId;
    this.focusOrder = L.focusedLast(this.focusOrder, paneId);
    // Looked at: a pane flooding in the background catches up at once.
    this.panes.get(paneId)?.lookedAt();
    this.changed();
  }

  private removeFromLayout(paneId: string): void {
    if (!L.containsPane(this.layoutTree, paneId)) return;
    const before = this.layoutTree;
    this.layoutTree = L.removePane(this.layoutTree, paneId);
    this.focusOrder = this.focusOrder.filter((id) => id !== paneId);
    // The focused pane gone: focus goes to the pane focused before it, else the one that took its place.
    this.focusedId = this.focusedId !== paneId && this.focusedId && L.containsPane(this.layoutTree, this.focusedId)
      ? this.focusedId
      : L.nextFocus(before, this.layoutTree, paneId, this.focusOrder);
    this.emitLayout();
  }

  private emitLayout(): void {
    this.syncReaders();
    this.core.emit('layout.changed', { layout: this.layoutTree, focused: this.focusedId });
  }

  /**
   * Windows hold back (flow control) only the panes they show, those in the layout: a
   * detached pane (a Tick whose view is closed) is paced by its headless screen alone.
   */
  private syncReaders(): void {
    const shown = new Set(L.paneIds(this.layoutTree));
    for (const p of this.panes.values()) {
      for (const r of this.readers) {
        if (shown.has(p.id) && !this.outOfView.get(r)?.has(p.id)) p.attachReader(r);
        else p.detachReader(r);
      }
    }
  }

  // ───────────── flow control readers ─────────────

  /** A window that reads pane output and acknowledges it ('pane.ack'). */
  addReader(clientId: string): void {
    if (this.readers.has(clientId)) return;
    this.readers.add(clientId);
    this.syncReaders();
  }

  dropReader(clientId: string): void {
    this.outOfView.delete(clientId);
    if (!this.readers.delete(clientId)) return;
    for (const p of this.panes.values()) p.detachReader(clientId);
  }

  /**
   * The window shows the pane now, or does not (`pane.view`: its page is hidden, or the pane is
   * too small to read, docs/spec/window.md). Out of view, the window is sent none of the pane's
   * output and is no reader of it (it never holds the PTY, nor is redrawn while hidden); back in
   * view, it reads again and redraws from the snapshot it asks for next (what came meanwhile is
   * in it, exact: the headless screen kept everything). Other windows are unaffected.
   */
  view(paneId: string, clientId: string, shown: boolean): void {
    const pane = this.need(paneId);
    if (typeof shown !== 'boolean') throw new Error(`shown ${JSON.stringify(shown)} is not usable: send true or false`);
    let hidden = this.outOfView.get(clientId);
    if (!shown) {
      if (!hidden) this.outOfView.set(clientId, (hidden = new Set()));
      hidden.add(paneId);
      pane.detachReader(clientId);
      return;
    }
    if (!hidden?.delete(paneId)) return;
    if (hidden.size === 0) this.outOfView.delete(clientId);
    if (this.readers.has(clientId) && L.containsPane(this.layoutTree, paneId)) pane.attachReader(clientId);
  }

  ack(paneId: string, clientId: string, chars: number): void {
    const pane = this.panes.get(paneId);
    if (!pane) return;
    if (typeof chars !== 'number' || !Number.isFinite(chars) || chars < 0) {
      throw new Error(`ack of ${String(chars)} characters is not usable: send a non-negative number`);
    }
    // Caught up after being left out: it redraws from a snapshot.
    if (pane.ack(clientId, chars)) this.core.emitTo(clientId, 'pane.stale', pane.redrawWhole(clientId) ? { paneId, history: 'all' } : { paneId });
  }

  // ───────────── listeners ─────────────

  onCreated(listener: (pane: PaneInfo) => void): () => void {
    return this.listen('created', listener);
  }

  onExit(listener: (pane: PaneInfo) => void): () => void {
    return this.listen('exit', listener);
  }

  onRemoved(listener: (paneId: string) => void): () => void {
    return this.listen('removed', listener);
  }

  onOutput(listener: (paneId: string, data: string) => void): () => void {
    return this.listen('output', listener);
  }

  onCompacted(listener: (paneId: string) => void): () => void {
    return this.listen('compacted', listener);
  }

  onInput(listener: (paneId: string) => void): () => void {
    return this.listen('input', listener);
  }

  /** Panes, layout or focus changed (the saved session listens); `urgent`: save now, not debounced. */
  onChange(listener: (urgent: boolean) => void): () => void {
    return this.listen('change', listener);
  }

  private listen(event: string, listener: (...args: never[]) => void): () => void {
    const fn = listener as (...args: unknown[]) => void;
    this.bus.on(event, fn);
    return () => this.bus.off(event, fn);
  }

  private changed(): void {
    this.bus.emit('change', false);
  }

  /** A change the saved session must hold before anything else happens (a process started, an agent's session id). */
  private changedNow(): void {
    this.bus.emit('change', true);
  }

  private need(paneId: string): Pane {
    const pane = typeof paneId === 'string' ? this.panes.get(paneId) : undefined;
    if (!pane) throw new Error(`there is no pane "${String(paneId)}": use an id from app.hello or pane.create`);
    return pane;
  }

  /** Hang up every pane (SIGHUP). */
  dispose(): void {
    this.disposed = true;
    this.stopGoverning();
    for (const p of this.panes.values()) p.dispose();
  }
}

function usableCwd(dir: string | undefined): string | undefined {
  if (!dir) return undefined;
  try {
    return fs.statSync(dir).isDirectory() ? dir : undefined;
  } catch {
    return undefined;
  }
}

function validSize(n: number | undefined, fallback: number, max: number): number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max ? n : fallback;
}
