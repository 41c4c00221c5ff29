/**
 * Feeds the search index (main/search/index.ts) as things happen, and answers `search.query`.
 *
 * - Pane output: each batch a pane prints is queued as it is (one push, on the output's own
 *   path) and read into lines and commands (main/search/lines.ts) by the next flush.
 * - Files in the pane folders, read on from each file's cursor: `actions.jsonl` (the
 *   decision log: every action, with its comment) and `inbound.jsonl` (agents' prompts,
 *   replies and tool runs, as their hooks wrote them). A service killed at any moment reads
 *   them on from the last committed batch; a new index (the old one corrupt) reads them
 *   all again, and each ended pane's saved screen.
 * - Surfaces as they arrive or change (`surface.changed`), and at a start the cards the pane
 *   folders' benches hold that the index lacks (savedCards: a new index, a kill before a
 *   flush); Tick calls (TickHost.onCall).
 * - A pane left out (`search.excludePanes`, by id or tag) or the index off: nothing of it is
 *   read on any path; its folder's files are passed over (their cursors to their end), also
 *   once it is closed (its tag kept in its folder, TAG_FILE) and in a new index.
 *
 * Every flush (FLUSH_MS after something came) writes one transaction; a flush handles at
 * most SLICE_CHARS of output and SLICE_LINES lines and then waits four times as long as it
 * took (sixteen while someone types), so a flood is indexed in slices with at most a fifth of
 * the event loop's time. A pane's block of lines
 * that is not full is held (main/search/index.ts, at most HOLD_MS, written by the next query
 * or a timer) for the pane's next lines, so output that trickles still makes full blocks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { SOURCE_OF_KIND, type PaneInfo, type SearchQuery, type Settings, type Surface } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import { paneFolder, paneFolders, type Paths } from '../paths.ts';
import type { PaneServiceApi, SettingsApi } from '../services.ts';
import type { TickCallRecord } from '../tick/host.ts';
import { parseAgentEvent } from '../agent-channel/events.ts';
import { STATE_FILE } from '../surfaces/store.ts';
import { HOLD_MS, SearchIndex, type Entry } from './index.ts';
import { OutputLines } from './lines.ts';
import { agentEntry, installTranscript, short } from './transcript.ts';

const FLUSH_MS = 250;
/** Pane folders' files are looked at this often. */
const FILES_MS = 1000;
/**
 * Output read into lines per slice before the event loop gets a turn: at most SLICE_CHARS
 * characters and SLICE_LINES lines (a chunk is cut after its last line that fits). The work
 * goes by lines (an entry, a block's share of its deflate and full-text insert each): 128 KiB
 * of `yes` is ~44,000 lines, a slice of ~100 ms on this machine's quiet cores, which held
 * every key typed meanwhile in another pane (issue 38: the echo p99 beside 16 floods); 2,048
 * lines are a few milliseconds.
 */
const SLICE_CHARS = 128 * 1024;
const SLICE_LINES = 2048;
/** While a flood is indexed, the event loop is left this many times as long as each slice took. */
const IDLE_PER_BUSY = 4;
/**
 * ...and this many times while someone types (input to any pane in the last TYPING_MS): a
 * flood's indexing was about half of the service's CPU beside 16 floods (a profile of the
 * fleet bench, issue 38), on 2 cores shared with the floods' programs and the page, and a key
 * waited whenever the service's loop waited for a core. What the index outruns meanwhile is
 * let go at MAX_QUEUED_CHARS, as before.
 */
const IDLE_PER_BUSY_TYPING = 16;
const TYPING_MS = 1000;
/** Output queued for one pane at most (a flood outruns the index: its older part beyond this is counted, not indexed). */
const MAX_QUEUED_CHARS = 4 * 1024 * 1024;
/** A file is read at most this much at a time (one transaction); the rest after the event loop's next turn. */
const FILE_READ_MAX = 512 * 1024;
/** At the end (dispose) at most this much queued output is written, in slices of DISPOSE_SLICE_LINES lines; the rest is let go (flushQueued). */
const DISPOSE_CHARS = 4 * 1024 * 1024;
const DISPOSE_LINES = 200_000;
const DISPOSE_SLICE_LINES = 16_384;
const PRUNE_EVERY_MS = 6 * 3600_000;
/** The words' file is checked this long after the start, on a thread of its own (SearchIndex.checkWords). */
const CHECK_WORDS_MS = 20_000;
/** Rows given their words again a slice (after renewWords): ~64 blocks of 128 lines, tens of ms. */
const MEND_ROWS = 64;
/** Lines before and after a hit's line that `search.lines` gives. */
const LINES_AROUND = 40;
const SCREEN_FILE = '.last-screen.ans';
/**
 * The pane's tag, written in its folder by this service when it first reads the folder: a
 * pane left out by its tag (`excludePanes`) is known so once it is closed (its folder stays,
 * its tag no longer known to the panes), at the next start and when the index is made anew.
 */
export const TAG_FILE = '.search-tag';
const FILES = ['actions.jsonl', 'inbound.jsonl'] as const;

export interface SearchDeps {
  core: Pick<Core, 'handle' | 'onEvent' | 'onDispose'>;
  panes: PaneServiceApi & { readonly session: string };
  settings: SettingsApi;
  paths: Paths;
  /** Surfaces by pane (for the title an action was taken on). */
  surfaces?: { list(paneId: string): Surface[] };
  ticks?: { onCall(fn: (call: TickCallRecord) => void): () => void };
  log?: (line: string) => void;
}

interface PaneFeed {
  lines: OutputLines;
  queue: string[];
  queued: number;
}


/** Every string in a surface's model, joined (its searchable text). */
function modelText(v: unknown, out: string[] = [], depth = 0): string[] {
  if (depth > 6 || out.length > 400) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) modelText(x, out, depth + 1);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) modelText(x, out, depth + 1);
  return out;
}

/** An entry of an agent's event (a line of `inbound.jsonl`): its prompt, reply or tool run; undefined for other events and lines that are not one. */
export function agentEntryOfLine(line: string): Partial<Entry> | undefined {
  const e = parseAgentEvent(line);
  return e ? agentEntry(e) : undefined;
}

/** The tag a pane folder keeps (TAG_FILE), if any. */
function readTag(folder: string): string | undefined {
  try {
    return fs.readFileSync(path.join(folder, TAG_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * A pane's output read on into lines and commands (`lines`), each an entry of the pane's
 * `base` at `at` pushed onto `out`: the service's reading of a pane's queue, and the bench's.
 */
export function outputEntries(lines: OutputLines, data: string, base: Pick<Entry, 'paneId' | 'session' | 'agent' | 'folder'>, at: number, out: Entry[]): void {
  // (Each made as it is read, not from an item of `feed`'s; a command's status set after, not
  // spread in: a second object a line was most of this loop's cost.)
  lines.feedTo(data, out, (kind, line, text, exitCode, folder) => {
    const e: Entry = { ...base, kind, at, line, text };
    if (exitCode !== undefined) e.exitCode = exitCode;
    // Where the shell said it was then (OSC 7): the pane's folder now may be where a later `cd` took it.
    if (folder !== undefined) e.folder = folder;
    return e;
  });
}

/** Where the `n`-th line feed of `data` ends (its length when it has fewer), and how many line feeds that takes. */
export function afterLines(data: string, n: number): { end: number; lines: number } {
  let lines = 0;
  for (let at = data.indexOf('\n'); at >= 0; at = data.indexOf('\n', at + 1)) {
    if (++lines >= n) return { end: at + 1, lines };
  }
  return { end: data.length, lines };
}

export class SearchService {
  readonly index: SearchIndex;
  private readonly deps: SearchDeps;
  private readonly feeds = new Map<string, PaneFeed>();
  private pending: Entry[] = [];
  /** Cursors to commit with the pending entries (a card's revision indexed: surfaceCursor). */
  private pendingCursors = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private holdTimer: NodeJS.Timeout | undefined;
  private filesTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private firstPrune: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private mendTimer: NodeJS.Timeout | undefined;
  private readonly seenSurfaces = new Map<string, string>();
  /** Live panes whose folder has been given their tag (TAG_FILE) in this run. */
  private readonly tagged = new Set<string>();
  /** Folders of earlier sessions, read once at start. */
  private olderFolders: string[] = [];
  private flushing = false;
  private reading = false;
  private disposed = false;
  private readonly offs: Array<() => void> = [];
  /** Output queued past one slice is being written a slice at a time (flushSlice). */
  private backlog = false;
  private readonly drained = new Set<() => void>();
  /** When a pane last had input (performance.now()). */
  private typedAt = -Infinity;

  constructor(deps: SearchDeps) {
    this.deps = deps;
    fs.mkdirSync(deps.paths.state, { recursive: true, mode: 0o700 });
    this.index = new SearchIndex(deps.paths.state);
    if (this.index.movedAside) deps.log?.(`search: the index was unusable (${this.index.movedAside.why}); it is kept as ${this.index.movedAside.to} and rebuilt from the pane folders`);
    if (this.index.wordsRenewed) this.wordsRenewed();
  }

  /** The words' file was found corrupt and made anew: said once, and every row given its words again in slices (mendStep). */
  private wordsRenewed(): void {
    const r = this.index.wordsRenewed!;
    this.deps.log?.(`search: the index's words were unusable (${r.why}); they are kept as ${r.to} and written again from the index's own texts`);
    this.mendStep();
  }

  /** One slice of rows given their words again (SearchIndex.mendWords), then a pause four times as long: the service's event loop stays the window's. */
  private mendStep(): void {
    if (this.disposed) return;
    const t0 = performance.now();
    let more: boolean;
    try {
      more = this.index.mendWords(MEND_ROWS);
    } catch (e) {
      this.deps.log?.(`search: writing the index's words again failed: ${(e as Error).message}`);
      return;
    }
    if (!more) return;
    this.mendTimer = setTimeout(() => this.mendStep(), Math.max(10, 4 * (performance.now() - t0)));
    this.mendTimer.unref?.();
  }

  /** The words' file checked on its own thread a while after the start (not while the first window attaches). */
  private async checkWords(): Promise<void> {
    const why = await this.index.checkWords();
    if (!why || this.disposed || this.index.wordsRenewed) return;
    try {
      this.index.renewWords(why);
    } catch (e) {
      this.deps.log?.(`search: the index's words were unusable (${why}) and could not be made again: ${(e as Error).message}`);
      return;
    }
    this.wordsRenewed();
  }

  private get settings(): Settings['search'] {
    return this.deps.settings.get().search;
  }

  /** What the index holds of each pane now left out (`excludePanes`, by id or tag) goes; the index off keeps what it holds. */
  private forgetLeftOut(): void {
    const s = this.settings;
    if (!s.enabled || s.excludePanes.length === 0) return;
    // Entries waiting for the next flush (a card, a Tick call) of a pane left out go first.
    this.pending = this.pending.filter((e) => !e.paneId || !this.excluded(e.paneId, paneFolder(this.deps.paths, e.session, e.paneId)));
    try {
      for (const { pane, session } of this.index.panes()) {
        if (this.excluded(pane, paneFolder(this.deps.paths, session, pane))) {
          const n = this.index.forgetPane(pane);
          if (n > 0) this.deps.log?.(`search: pane ${pane} is left out now: its ${n} indexed rows went`);
        }
      }
    } catch (e) {
      this.deps.log?.(`search: could not take a left-out pane out of the index: ${(e as Error).message}`);
    }
  }

  /** Whether nothing of a pane is indexed: the index is off, or the pane's id or tag is in `excludePanes` (a closed pane's tag as its folder keeps it, TAG_FILE). */
  private excluded(paneId: string, folder?: string): boolean {
    const s = this.settings;
    if (!s.enabled) return true;
    if (s.excludePanes.length === 0) return false;
    if (s.excludePanes.includes(paneId)) return true;
    const tag = this.deps.panes.get(paneId)?.tag ?? (folder ? readTag(folder) : undefined);
    return tag !== undefined && s.excludePanes.includes(tag);
  }

  /**
   * `fn` once output that took more than one slice to index has all been written (a flood's
   * worth): what indexing it made is garbage then (main/service/memory.ts gives it back).
   */
  onDrained(fn: () => void): () => void {
    this.drained.add(fn);
    return () => this.drained.delete(fn);
  }

  start(): void {
    const { panes, core } = this.deps;
    this.offs.push(panes.onOutput((paneId, data) => this.output(paneId, data)));
    this.offs.push(panes.onInput(() => {
      this.typedAt = performance.now();
    }));
    this.offs.push(panes.onExit((info) => this.ended(info)));
    this.offs.push(core.onEvent((name, payload) => {
      if (name === 'surface.changed') {
        const p = payload as { paneId: string; surface?: Surface };
        if (p.surface) this.surface(p.paneId, p.surface);
      }
    }));
    if (this.deps.ticks) this.offs.push(this.deps.ticks.onCall((c) => this.tickCall(c)));
    // A pane left out once indexed: what the index holds of it goes too, when the setting
    // changes or the index is turned on again (a pane left out while it was off), and at the
    // start (settings.json edited while the service was stopped).
    let leftOut = JSON.stringify([this.settings.enabled, this.settings.excludePanes]);
    this.offs.push(this.deps.settings.onChange((all) => {
      const now = JSON.stringify([all.search.enabled, all.search.excludePanes]);
      if (now === leftOut) return;
      leftOut = now;
      this.forgetLeftOut();
    }));
    setImmediate(() => {
      if (!this.disposed) this.forgetLeftOut();
    });
    core.handle('search.query', (req) => this.query(req));
    core.handle('search.lines', (req) => this.lines(req));
    const fresh = this.index.count() === 0;
    this.olderFolders = this.allFolders();
    if (fresh) this.savedScreens();
    this.filesTimer = setInterval(() => this.readFiles(), FILES_MS);
    this.filesTimer.unref?.();
    setImmediate(() => this.readFiles());
    const prune = () => {
      if (this.disposed) return;
      try {
        this.index.prune(this.settings.keepDays);
      } catch (e) {
        this.deps.log?.(`search: pruning failed: ${(e as Error).message}`);
      }
    };
    this.checkTimer = setTimeout(() => void this.checkWords(), CHECK_WORDS_MS);
    this.checkTimer.unref?.();
    // A minute after start (a scan of the table: not while the window first attaches), then every few hours.
    this.firstPrune = setTimeout(prune, 60_000);
    this.firstPrune.unref?.();
    this.pruneTimer = setInterval(prune, PRUNE_EVERY_MS);
    this.pruneTimer.unref?.();
  }

  query(q: SearchQuery): { ok: true; hits: ReturnType<SearchIndex['search']> } | { ok: false; error: string } {
    try {
      // What came until it was asked (a flood's queue at most a few slices: a query never waits it out).
      this.flushNow([], undefined, 4 * SLICE_CHARS);
      return { ok: true, hits: this.index.search(q) };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  /**
   * `search.lines`: the pane's output lines around `line` as indexed (Enter on a line its
   * terminal no longer holds), and `next`, the number the pane's next line will get (its output
   * read so far): how far above the pane's last line `line` is, to tell apart the copies of a
   * line its terminal holds.
   */
  lines(req: { paneId: string; line: number }): { ok: true; lines: Array<{ line: number; text: string }>; next: number } | { ok: false; error: string } {
    if (typeof req.paneId !== 'string' || !Number.isSafeInteger(req.line) || req.line < 0) return { ok: false, error: 'search.lines needs a pane id and a line number (0 or more).' };
    try {
      this.flushNow([], undefined, 4 * SLICE_CHARS);
      const next = this.feeds.get(req.paneId)?.lines.line ?? this.index.nextLine(req.paneId);
      return { ok: true, lines: this.index.outputLines(req.paneId, Math.max(0, req.line - LINES_AROUND), req.line + LINES_AROUND), next };
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
  }

  // ───────────── sources ─────────────

  private base(paneId: string): Pick<Entry, 'paneId' | 'session' | 'agent' | 'folder'> {
    const info = this.deps.panes.get(paneId);
    return {
      paneId,
      session: this.deps.panes.session,
      ...(info?.agentCli ? { agent: info.agentCli.name } : {}),
      ...(info?.cwd ? { folder: info.cwd } : {}),
    };
  }

  private feed(paneId: string): PaneFeed {
    let f = this.feeds.get(paneId);
    if (!f) {
      f = { lines: new OutputLines(this.index.nextLine(paneId)), queue: [], queued: 0 };
      this.feeds.set(paneId, f);
    }
    return f;
  }

  private output(paneId: string, data: string): void {
    if (this.excluded(paneId)) return;
    const f = this.feed(paneId);
    f.queue.push(data);
    f.queued += data.length;
    while (f.queued > MAX_QUEUED_CHARS && f.queue.length > 1) {
      const dropped = f.queue.shift()!;
      f.queued -= dropped.length;
      f.lines.skip(dropped);
    }
    this.schedule();
  }

  private ended(info: PaneInfo): void {
    const f = this.feeds.get(info.id);
    if (!f) return;
    // What the pane printed last without a newline (its last prompt, a message) is a line too.
    f.queue.push('\n');
    this.schedule();
  }

  /** A live pane's surface arrived or changed (`surface.changed`). */
  private surface(paneId: string, s: Surface): void {
    if (this.excluded(paneId)) return;
    this.card(paneFolder(this.deps.paths, this.deps.panes.session, paneId), this.base(paneId), s);
    this.schedule();
  }

  /**
   * A card's revision, once: indexed with its cursor (the cursors' table keyed by the pane
   * folder's bench file and the card's id, its revision's time), written in the same
   * transaction, so the cards on disk read at a start (savedCards) are not indexed twice.
   */
  private card(folder: string, base: Pick<Entry, 'paneId' | 'session' | 'agent' | 'folder'>, s: Surface): void {
    // The agent channel's own cards (a reply, a question) are its events, indexed from inbound.jsonl.
    if (!s || typeof s !== 'object' || s.route === 'agent' || typeof s.id !== 'string') return;
    const key = `${base.paneId}/${s.id}`;
    if (this.seenSurfaces.get(key) === s.updatedAt) return;
    this.seenSurfaces.set(key, s.updatedAt);
    const rev = Date.parse(s.updatedAt) || 1;
    const cursor = `${path.join(folder, STATE_FILE)}#${s.id}`;
    if (this.index.cursor(cursor) >= rev) return;
    const text = [typeof s.title === 'string' ? s.title : '', ...modelText(s.model)].join(' · ');
    this.pending.push({ ...base, kind: 'surface', at: Date.parse(s.updatedAt) || Date.now(), ref: s.id, text });
    this.pendingCursors.set(cursor, rev);
  }

  /**
   * At the start, the cards a pane folder's bench holds (`.bench-state.json`) that the index
   * has not (a new index; a kill before a card's flush): cards loaded from disk make no
   * `surface.changed`. The bench file is read only when changed since it was last read (its
   * time, a cursor); left out, it is passed over as the other files are.
   */
  private savedCards(folder: string, pass: boolean): void {
    const file = path.join(folder, STATE_FILE);
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (!st) return;
    const mtime = Math.floor(st.mtimeMs);
    if (this.index.cursor(file) >= mtime) return;
    if (!pass) {
      let saved: { surfaces?: unknown };
      try {
        saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { surfaces?: unknown };
      } catch {
        return; // torn or unreadable: read at the next start, once whole
      }
      const paneId = path.basename(folder);
      const base = this.deps.panes.get(paneId) ? this.base(paneId) : { paneId, session: path.basename(path.dirname(folder)) };
      if (Array.isArray(saved?.surfaces)) for (const s of saved.surfaces as Surface[]) this.card(folder, base, s);
    }
    this.pendingCursors.set(file, mtime);
  }

  private tickCall(c: TickCallRecord): void {
    const paneId = c.askingPaneId ?? c.tickPaneId ?? '';
    if (paneId && this.excluded(paneId)) return;
    if (!this.settings.enabled) return;
    const r = c.report;
    const outcome = r.ok ? `ok ${short(r.result, 1000)}` : `${r.outcome}: ${r.reason ?? r.error?.message ?? ''}`;
    this.pending.push({ ...this.base(paneId), paneId, kind: 'tick', at: c.at, ref: c.instanceId, text: `${c.title} ${c.tool} ${short(c.args, 1000)} → ${outcome}` });
    this.schedule();
  }

  /** Every pane folder on disk: surfaces/<session>/<pane>. */
  private allFolders(): string[] {
    return paneFolders(this.deps.paths);
  }

  /** A new index: what the ended panes' saved screens hold is indexed as their output. */
  private savedScreens(): void {
    for (const folder of this.olderFolders) {
      // (A pane left out, or the index off: its screen is never read. Off, no folder is.)
      if (this.excluded(path.basename(folder), folder)) continue;
      let text: string;
      try {
        text = fs.readFileSync(path.join(folder, SCREEN_FILE), 'utf8');
      } catch {
        continue;
      }
      const paneId = path.basename(folder);
      const session = path.basename(path.dirname(folder));
      const at = fs.statSync(path.join(folder, SCREEN_FILE)).mtimeMs;
      const items = new OutputLines().feed(`${text}\n`);
      this.pending.push(...items.map((i) => ({ kind: i.kind, at, paneId, session, line: i.line, text: i.text })));
    }
    this.schedule();
  }

  /** Read the pane folders' files on from their cursors (this session's panes, and once the older ones). */
  private readFiles(): void {
    if (this.disposed || this.reading) return;
    this.reading = true;
    let more = false;
    const folders = new Set<string>();
    for (const p of this.deps.panes.list()) {
      const folder = this.deps.panes.folder(p.id);
      folders.add(folder);
      if (!this.tagged.has(p.id)) this.keepTag(p.id, p.tag, folder);
    }
    const older = new Set(this.olderFolders.splice(0));
    for (const f of older) folders.add(f);
    // The files of panes left out (or all, the index off) are passed over: their cursors moved
    // to their end, so what they hold is never read, at the next start neither.
    const passed = new Map<string, number>();
    for (const folder of folders) {
      const pass = this.excluded(path.basename(folder), folder);
      if (older.has(folder)) {
        try {
          this.savedCards(folder, pass);
        } catch (e) {
          this.deps.log?.(`search: could not read the cards of ${folder}: ${(e as Error).message}`);
        }
      }
      for (const name of FILES) {
        try {
          if (pass) this.passOver(path.join(folder, name), passed);
          else if (this.readFile(folder, name)) more = true;
        } catch (e) {
          this.deps.log?.(`search: could not read ${path.join(folder, name)}: ${(e as Error).message}`);
        }
      }
    }
    if (passed.size > 0 || this.pendingCursors.size > 0) this.flushNow([], passed);
    this.reading = false;
    // A long file (a rebuild, an agent's burst) is read a slice a turn.
    if (more) setImmediate(() => this.readFiles());
  }

  /** A live pane's tag kept in its folder (TAG_FILE), once a run (a pane keeps its tag for life). */
  private keepTag(paneId: string, tag: string, folder: string): void {
    this.tagged.add(paneId);
    if (readTag(folder) === tag) return;
    try {
      fs.writeFileSync(path.join(folder, TAG_FILE), `${tag}\n`, { mode: 0o600 });
    } catch (e) {
      this.deps.log?.(`search: could not keep pane ${paneId}'s tag in its folder: ${(e as Error).message}`);
    }
  }

  /** A file of a pane left out: its cursor to its end (written with the others passed over, in `passed`). */
  private passOver(file: string, passed: Map<string, number>): void {
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
    if (size !== undefined && size !== this.index.cursor(file)) passed.set(file, size);
  }

  /** Read one slice of a file on from its cursor; true when more of it is waiting. */
  private readFile(folder: string, name: (typeof FILES)[number]): boolean {
    const file = path.join(folder, name);
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size;
    if (size === undefined) return false;
    let from = this.index.cursor(file);
    if (size < from) from = 0; // the file was replaced
    if (size === from) return false;
    const fd = fs.openSync(file, 'r');
    let buf: Buffer;
    try {
      const len = Math.min(size - from, FILE_READ_MAX);
      buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, from);
    } finally {
      fs.closeSync(fd);
    }
    const end = buf.lastIndexOf(0x0a);
    if (end < 0) return false; // no whole line yet (or one longer than a slice: left alone)
    const text = buf.subarray(0, end).toString('utf8');
    const paneId = path.basename(folder);
    const session = path.basename(path.dirname(folder));
    const base = this.deps.panes.get(paneId) ? this.base(paneId) : { paneId, session };
    const entries: Entry[] = [];
    for (const line of text.split('\n')) {
      const e = name === 'actions.jsonl' ? this.action(paneId, line) : agentEntryOfLine(line);
      if (e) entries.push({ ...base, ...e } as Entry);
    }
    // The entries and the cursor past them in one transaction (with whatever else waits).
    this.flushNow(entries, new Map([[file, from + end + 1]]));
    return from + end + 1 < size;
  }

  private action(paneId: string, line: string): Partial<Entry> | undefined {
    let e: { type?: unknown; surface?: unknown; action?: unknown; target?: unknown; comment?: unknown; at?: unknown };
    try {
      e = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (!e || e.type !== 'action' || typeof e.surface !== 'string' || typeof e.action !== 'string') return undefined;
    const title = this.deps.surfaces?.list(paneId).find((s) => s.id === e.surface)?.title;
    const target = typeof e.target === 'string' ? ` · ${e.target}` : '';
    const comment = typeof e.comment === 'string' && e.comment ? ` — ${e.comment}` : '';
    return { kind: 'decision', at: typeof e.at === 'string' ? Date.parse(e.at) || Date.now() : Date.now(), ref: e.surface, text: `${e.action}${target} on ${title ? `"${title}" (${e.surface})` : e.surface}${comment}` };
  }

  // ───────────── writing ─────────────

  private schedule(): void {
    if (this.flushTimer || this.disposed) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flushSlice();
    }, FLUSH_MS);
    this.flushTimer.unref?.();
  }

  /**
   * One slice of the queued output and everything else waiting, in one transaction; the rest
   * after a pause of IDLE_PER_BUSY times as long as the slice took: a flood is indexed with at
   * most a fifth of the event loop's time, the rest left to the panes and the windows (what
   * it outruns is let go at MAX_QUEUED_CHARS). The time the index's worker thread spent on
   * words meanwhile counts as the slice's (a flood's indexing takes no more CPU than when
   * the words were written on this thread, only less of the event loop).
   */
  private flushSlice(): void {
    const t = performance.now();
    const w = this.index.workerMs();
    const more = this.write(SLICE_CHARS, undefined, SLICE_LINES);
    if (!more && this.backlog) {
      this.backlog = false;
      for (const fn of this.drained) fn();
    }
    this.backlog ||= more;
    // One slice at a time: output that comes meanwhile waits for this timer, not one of its own.
    if (more && !this.disposed) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flushSlice();
      }, Math.ceil((performance.now() - t + this.index.workerMs() - w) * (performance.now() - this.typedAt < TYPING_MS ? IDLE_PER_BUSY_TYPING : IDLE_PER_BUSY)));
      this.flushTimer.unref?.();
    }
  }

  /** The entries waiting (and `extra`, with the file cursors they were read to), now; queued output up to `outputBudget` characters. */
  private flushNow(extra: Entry[] = [], cursors?: Map<string, number>, outputBudget = 0): void {
    this.pending.push(...extra);
    this.write(outputBudget, cursors);
  }

  /** Read queued output into entries (up to `budget` characters and `lines` lines) and write them with the others; true when output is left. */
  private write(budget: number, cursors?: Map<string, number>, lines = Infinity): boolean {
    if (this.flushing) return false;
    this.flushing = true;
    let left = false;
    try {
      for (const [paneId, f] of this.feeds) {
        if (f.queue.length === 0) continue;
        if (this.excluded(paneId)) {
          // Left out (or the index turned off) since it was queued: counted, not indexed.
          for (const data of f.queue.splice(0)) f.lines.skip(data);
          f.queued = 0;
          continue;
        }
        if (budget <= 0 || lines <= 0) {
          left = true;
          continue;
        }
        const base = this.base(paneId);
        const at = Date.now();
        while (f.queue.length > 0 && budget > 0 && lines > 0) {
          let data = f.queue.shift()!;
          // Cut after the last line the slice takes: the rest waits at the head of the queue
          // (with no line limit, as for a query's write, the chunk is whole: not scanned).
          const cut = lines === Infinity ? { end: data.length, lines: 0 } : afterLines(data, lines);
          lines -= cut.lines;
          if (cut.end < data.length) {
            f.queue.unshift(data.slice(cut.end));
            data = data.slice(0, cut.end);
          }
          f.queued -= data.length;
          budget -= data.length;
          outputEntries(f.lines, data, base, at, this.pending);
        }
        if (f.queue.length > 0) left = true;
        // A closed pane's reader goes once its output is written.
        else if (!this.deps.panes.get(paneId)) this.feeds.delete(paneId);
      }
      // What the settings leave out (search.leaveOut) is read, its files' cursors moved on, and not indexed.
      const leaveOut = this.settings.leaveOut;
      const entries = leaveOut.length === 0 ? this.pending : this.pending.filter((e) => !leaveOut.includes(SOURCE_OF_KIND[e.kind]));
      this.pending = [];
      if (this.pendingCursors.size > 0) {
        for (const [k, v] of cursors ?? []) this.pendingCursors.set(k, v);
        cursors = this.pendingCursors;
        this.pendingCursors = new Map();
      }
      // A pane's block not yet full is held (at most HOLD_MS) for its next lines; a query writes it first.
      this.index.add(entries, cursors, true);
      if (this.index.holding && !this.holdTimer && !this.disposed) {
        this.holdTimer = setTimeout(() => {
          this.holdTimer = undefined;
          try {
            this.index.flush();
          } catch (e) {
            this.deps.log?.(`search: could not write to the index: ${(e as Error).message}`);
          }
        }, HOLD_MS);
        this.holdTimer.unref?.();
      }
    } catch (e) {
      this.deps.log?.(`search: could not write to the index: ${(e as Error).message}`);
    } finally {
      this.flushing = false;
    }
    return left;
  }

  /**
   * At the end: what is waiting, and the queued output a slice at a time (each slice's entries
   * let go before the next), up to DISPOSE_CHARS and DISPOSE_LINES in all; a flood's rest is
   * let go (said in the log), as MAX_QUEUED_CHARS lets go what the index outruns. Written at
   * once, 16 `yes` floods' queues (up to 64 MiB, millions of lines) took the service to 2.7 GiB
   * and past its stop's 15 s (issue 38).
   */
  private flushQueued(): void {
    const queued = () => {
      let n = 0;
      for (const f of this.feeds.values()) n += f.queued;
      return n;
    };
    let chars = DISPOSE_CHARS;
    let lines = DISPOSE_LINES;
    for (;;) {
      const before = queued();
      const more = this.write(Math.min(SLICE_CHARS, chars), undefined, Math.min(DISPOSE_SLICE_LINES, lines));
      const took = before - queued();
      chars -= took;
      lines -= Math.min(DISPOSE_SLICE_LINES, lines);
      if (!more || took === 0 || chars <= 0 || lines <= 0) break;
    }
    const left = queued();
    if (left > 0) this.deps.log?.(`search: ${left} characters of output still queued at the end were not indexed (a flood's rest)`);
  }

  dispose(): void {
    if (this.disposed) return;
    for (const off of this.offs.splice(0)) off();
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    clearInterval(this.filesTimer);
    clearInterval(this.pruneTimer);
    clearTimeout(this.firstPrune);
    clearTimeout(this.checkTimer);
    clearTimeout(this.mendTimer);
    this.flushQueued();
    this.disposed = true;
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    // (Writes the lines held back.)
    this.index.close();
  }
}

export function installSearch(deps: SearchDeps): SearchService {
  const service = new SearchService(deps);
  service.start();
  installTranscript(deps.core, deps.paths.surfaces);
  deps.core.onDispose(() => service.dispose());
  return service;
}
