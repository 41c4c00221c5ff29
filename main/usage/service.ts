/**
 * Usage and cost of every agent session the app has seen (issue 36): each pane folder's
 * inbound.jsonl (surfaces/<session>/<pane>/, panes running and ended, this service's and
 * earlier ones') read on from a cursor for the agents' `session` events; the transcript each
 * names read on as it grows (transcripts.ts; Claude Code's subagents' files beside it too),
 * its tokens priced at the newest dated price file (prices.ts), and a running pane's
 * current session's put on the pane (`PaneInfo.usage`, which its header shows). Looked at
 * every `everyMs` for panes that run an agent; every session at start and for a summary.
 *
 * What was read is kept in the state folder (`usage/`: a file a pane folder, its cursor and
 * the sessions its events named; a file a session, its files' cursors and what its reader
 * counted), so a new service reads on from there: nothing read is read again, nothing seen
 * is lost. A file there that cannot be used is read again from the transcript.
 *
 * Files are read whole lines at a time (agent-channel/tail.ts: a line still being written
 * waits, what was read of it held and read on from its end at the next look; one longer than
 * TRANSCRIPT_LINE_MAX, or than tail.ts's MAX_LINE in an inbound.jsonl, is skipped to its
 * newline, never held). A transcript's cursor keeps its inode: a file replaced (another
 * inode) or cut short (smaller than its cursor) is counted again from the start by a new
 * reader, its old counts dropped. A look reads at most LOOK_MAX bytes over every file, the
 * running panes' first; what is left is read on at the next looks.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PaneInfo, SessionUsage, UsageRow, UsageSummary } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { PaneServiceApi } from '../services.ts';
import { paneFolder, paneFolders, type Paths } from '../paths.ts';
import { parseEvent } from '../agent-channel/events.ts';
import { heldBytes, readNewLines, type Unfinished } from '../agent-channel/tail.ts';
import { titleName } from '../../common/visible.ts';
import { loadPrices, priceOf, sessionUsage, type PriceFile } from './prices.ts';
import { opencodeDatabases, opencodeReader } from './opencode.ts';
import { claudeReader, codexReader, dayOf, geminiReader, type TranscriptReader } from './transcripts.ts';

/** Most bytes read in one look, over every file (a slice may pass it): the rest waits for the next looks. */
export const LOOK_MAX = 8 * 1024 * 1024;
/** A transcript's line longer than this is dropped unread (a tool's output or an image can make a line of a few MB; a file with no newline cannot grow a line without end). */
export const TRANSCRIPT_LINE_MAX = 16 * 1024 * 1024;
const INBOUND = 'inbound.jsonl';

/** An agent's `session` event: which session a pane's agent runs (the last one, now). */
interface Ref {
  agent: string;
  transcript?: string;
  sessionId?: string;
  cwd?: string;
  /** The session it names (`Known.key`), once found. */
  key?: string;
}

/** A pane folder's inbound.jsonl as read so far. */
interface Inbound {
  file: string;
  paneId: string;
  /** Where its next line starts. */
  offset: number;
  /** The line at `offset` read so far, with no newline yet (not kept on disk: read again after a restart). */
  unfinished?: Unfinished;
  /** More to read than the look's bytes allowed: read on at the next look. */
  behind?: boolean;
  /** The sessions its events named, oldest first (one named again moves last). */
  refs: Ref[];
  dirty: boolean;
}

/** The pane a session ran in, as last seen (kept for the summary once the pane is gone). */
interface PaneSeen {
  id: string;
  title: string;
  cwd: string;
  worktree?: { branch: string; path: string };
}

/** One agent session. */
interface Known {
  /** The transcript's path (OpenCode: `<database>#<session id>`). */
  key: string;
  agent: string;
  sessionId?: string;
  pane: PaneSeen;
  /** Each file read (the transcript; Claude Code's subagents' too): where its next line starts, and the file's inode (0: not known yet). */
  files: Map<string, Cursor>;
  reader: TranscriptReader;
  dirty: boolean;
  /** A file had more than the look's bytes allowed (LOOK_MAX): read on at the next look, pane or not. */
  behind?: boolean;
}

interface Cursor {
  offset: number;
  ino: number;
  /** The line at `offset` read so far, with no newline yet (not kept on disk: read again after a restart). */
  unfinished?: Unfinished;
}

const cursorOf = (v: unknown): Cursor | undefined => {
  if (typeof v === 'number') return v >= 0 ? { offset: v, ino: 0 } : undefined; // kept by an earlier version
  const o = Array.isArray(v) ? v : undefined;
  return o && typeof o[0] === 'number' && o[0] >= 0 && typeof o[1] === 'number' ? { offset: o[0], ino: o[1] } : undefined;
};

const refId = (r: Ref): string => `${r.agent}\n${r.transcript ?? ''}\n${r.sessionId ?? ''}`;
const nameOf = (key: string): string => `${crypto.createHash('sha256').update(key).digest('hex').slice(0, 24)}.json`;
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function writeJson(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(value), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readJson(file: string): Record<string, unknown> | undefined {
  try {
    return obj(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return undefined;
  }
}

/** Claude Code's subagents' (the Task tool's) transcripts: `<project>/<session>/subagents/**\/agent-*.jsonl` beside `<project>/<session>.jsonl`. */
export function subagentFiles(transcript: string): string[] {
  if (!transcript.endsWith('.jsonl')) return [];
  const root = path.join(transcript.slice(0, -'.jsonl'.length), 'subagents');
  let names: string[];
  try {
    names = fs.readdirSync(root, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names.filter((n) => /^agent-.*\.jsonl$/.test(path.basename(n))).sort().map((n) => path.join(root, n));
}

/** Gemini CLI's chat record of a session: `~/.gemini/tmp/<project>/chats/session-<time>-<first 8 of the id>.jsonl`, the newest. */
export function geminiChatFile(home: string, sessionId: string): string | undefined {
  const tail = `-${sessionId.slice(0, 8)}.jsonl`;
  const root = path.join(home, '.gemini', 'tmp');
  let best: { file: string; mtime: number } | undefined;
  let projects: string[] = [];
  try {
    projects = fs.readdirSync(root);
  } catch {
    return undefined;
  }
  for (const p of projects) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(root, p, 'chats'));
    } catch {
      continue;
    }
    for (const n of names) {
      if (!n.startsWith('session-') || !n.endsWith(tail)) continue;
      const file = path.join(root, p, 'chats', n);
      const mtime = fs.statSync(file).mtimeMs;
      if (!best || mtime > best.mtime) best = { file, mtime };
    }
  }
  return best?.file;
}

/** The session a `session` event names: its transcript (Gemini CLI's: found by its session id; OpenCode's: its database, `<db>#<session id>`); undefined while it cannot be found. */
export function refTranscript(r: Ref, home = process.env.HOME ?? '', env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (r.transcript && path.isAbsolute(r.transcript)) return r.transcript;
  if (r.agent === 'gemini' && r.sessionId && home) return geminiChatFile(home, r.sessionId);
  if (r.agent === 'opencode' && r.sessionId) {
    const db = opencodeDatabases({ ...env, HOME: home })[0];
    return db ? `${db}#${r.sessionId}` : undefined;
  }
  return undefined;
}

function readerOf(agent: string, key: string, saved?: unknown): TranscriptReader | undefined {
  if (agent === 'claude') return claudeReader(saved);
  if (agent === 'codex') return codexReader(saved);
  if (agent === 'gemini') return geminiReader(saved);
  if (agent === 'opencode') {
    const hash = key.lastIndexOf('#');
    return hash > 0 ? opencodeReader(key.slice(0, hash), key.slice(hash + 1), saved) : undefined;
  }
  return undefined;
}

export interface UsageOptions {
  /** The state folder's paths: pane folders (`surfaces`) are read, `usage/` under `state` is kept. */
  paths: Pick<Paths, 'state' | 'surfaces'>;
  prices?: PriceFile;
  home?: string;
  env?: NodeJS.ProcessEnv;
}

export class UsageService {
  private readonly panes: PaneServiceApi;
  private readonly paths: Pick<Paths, 'state' | 'surfaces'>;
  private readonly home: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly dir: string;
  /** Every pane folder's inbound.jsonl read so far, by file. */
  private readonly inbound = new Map<string, Inbound>();
  /** Every session seen, by key (a pane's earlier sessions, panes gone, earlier services'). */
  private readonly sessions = new Map<string, Known>();
  /** What each pane was last given (`PaneInfo.usage`, as JSON). */
  private readonly shown = new Map<string, string>();
  private readonly prices: PriceFile;
  private timer: NodeJS.Timeout | undefined;
  private readonly offRemoved: () => void;
  /** Every pane folder on disk is read on once, at the first scan. */
  private walked = false;
  /** Bytes this look may still read (LOOK_MAX at each look's start). */
  private budget = LOOK_MAX;

  constructor(panes: PaneServiceApi, opts: UsageOptions) {
    this.panes = panes;
    this.paths = opts.paths;
    this.prices = opts.prices ?? loadPrices();
    this.env = opts.env ?? process.env;
    this.home = opts.home ?? this.env.HOME ?? '';
    this.dir = path.join(opts.paths.state, 'usage');
    this.offRemoved = panes.onRemoved((id) => this.shown.delete(id));
    this.load();
  }

  start(everyMs = 2000): void {
    this.timer = setInterval(() => this.scan(), everyMs);
    this.timer.unref?.();
  }

  /** What earlier services kept: the pane folders' cursors and sessions, and each session's counts. */
  private load(): void {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(this.dir, 'panes'));
    } catch {
      // none yet
    }
    for (const n of names) {
      const v = readJson(path.join(this.dir, 'panes', n));
      const file = str(v?.file);
      if (!v || !file || !Array.isArray(v.refs)) continue;
      const refs: Ref[] = [];
      for (const r of v.refs as unknown[]) {
        const o = obj(r);
        const agent = str(o?.agent);
        if (!o || !agent) continue;
        refs.push({ agent, ...(str(o.transcript) ? { transcript: str(o.transcript) } : {}), ...(str(o.sessionId) ? { sessionId: str(o.sessionId) } : {}), ...(str(o.cwd) ? { cwd: str(o.cwd) } : {}), ...(str(o.key) ? { key: str(o.key) } : {}) });
      }
      this.inbound.set(file, { file, paneId: path.basename(path.dirname(file)), offset: typeof v.offset === 'number' && v.offset >= 0 ? v.offset : 0, refs, dirty: false });
    }
    try {
      names = fs.readdirSync(path.join(this.dir, 'sessions'));
    } catch {
      names = [];
    }
    for (const n of names) {
      const v = readJson(path.join(this.dir, 'sessions', n));
      const key = str(v?.key);
      const agent = str(v?.agent);
      const pane = obj(v?.pane);
      const files = obj(v?.files);
      if (!v || !key || !agent || !pane || !files || nameOf(key) !== n) continue;
      const reader = readerOf(agent, key, v.reader);
      if (!reader) continue;
      const wt = obj(pane.worktree);
      this.sessions.set(key, {
        key, agent, reader, dirty: false,
        ...(str(v.sessionId) ? { sessionId: str(v.sessionId) } : {}),
        pane: { id: str(pane.id) ?? '', title: typeof pane.title === 'string' ? pane.title : '', cwd: typeof pane.cwd === 'string' ? pane.cwd : '', ...(wt && str(wt.branch) && str(wt.path) ? { worktree: { branch: str(wt.branch)!, path: str(wt.path)! } } : {}) },
        files: new Map(Object.entries(files).flatMap(([f, o]) => {
          const c = cursorOf(o);
          return c ? [[f, c] as const] : [];
        })),
      });
    }
  }

  /** Keep what changed since the last save (a file that cannot be written now is written next time). */
  private save(): void {
    for (const i of this.inbound.values()) {
      if (!i.dirty) continue;
      try {
        writeJson(path.join(this.dir, 'panes', nameOf(i.file)), { file: i.file, offset: i.offset, refs: i.refs });
        i.dirty = false;
      } catch {
        // next time
      }
    }
    for (const k of this.sessions.values()) {
      if (!k.dirty) continue;
      // A cursor is at the start of a line, or inside one over the maximum being skipped (a line cut by a write in progress is read on from its start next time), with the file's inode.
      const files = Object.fromEntries([...k.files].map(([f, c]) => [f, [c.offset, c.ino]]));
      try {
        writeJson(path.join(this.dir, 'sessions', nameOf(k.key)), { key: k.key, agent: k.agent, ...(k.sessionId ? { sessionId: k.sessionId } : {}), pane: k.pane, files, reader: k.reader.save() });
        k.dirty = false;
      } catch {
        // next time
      }
    }
  }

  /** Read a pane folder's inbound.jsonl on from its cursor for the agents' `session` events. */
  private readInbound(file: string): Inbound {
    let i = this.inbound.get(file);
    if (!i) this.inbound.set(file, (i = { file, paneId: path.basename(path.dirname(file)), offset: 0, refs: [], dirty: true }));
    // Whole lines from the cursor (a file that shrank, replaced, from its start; an overlong line dropped: not an event of ours).
    if (this.budget <= 0) {
      i.behind = true;
      return i;
    }
    const read = readNewLines(file, i.offset, { maxBytes: this.budget, ...(i.unfinished ? { unfinished: i.unfinished } : {}) });
    this.budget -= read.read;
    i.behind = read.more;
    i.unfinished = read.unfinished;
    for (const line of read.lines) {
      if (!line.includes('"session"')) continue;
      const e = parseEvent(line);
      if (e?.type !== 'session') continue;
      const ref: Ref = { agent: e.agent ?? 'claude', ...(e.transcript_path ? { transcript: e.transcript_path } : {}), ...(e.session_id ? { sessionId: e.session_id } : {}), ...(e.cwd ? { cwd: e.cwd } : {}) };
      const at = i.refs.findIndex((r) => refId(r) === refId(ref));
      const old = at >= 0 ? i.refs.splice(at, 1)[0]! : undefined;
      i.refs.push(old ?? ref);
    }
    if (read.offset !== i.offset) {
      i.offset = read.offset;
      i.dirty = true;
    }
    return i;
  }

  /** The session a ref names (made when first found), or undefined while it cannot be found. */
  private known(ref: Ref, i: Inbound, live?: PaneInfo): Known | undefined {
    if (!ref.key) {
      const key = refTranscript(ref, this.home, this.env);
      if (!key) return undefined;
      ref.key = key;
      i.dirty = true;
    }
    let k = this.sessions.get(ref.key);
    if (!k) {
      const reader = readerOf(ref.agent, ref.key);
      if (!reader) return undefined;
      k = { key: ref.key, agent: ref.agent, reader, files: new Map(), dirty: true, pane: { id: i.paneId, title: '', cwd: ref.cwd ?? '' }, ...(ref.sessionId ? { sessionId: ref.sessionId } : {}) };
      this.sessions.set(ref.key, k);
    }
    if (live) {
      const seen: PaneSeen = { id: live.id, title: titleName(live.title), cwd: live.cwd, ...(live.worktree ? { worktree: { branch: live.worktree.branch, path: live.worktree.path } } : {}) };
      if (JSON.stringify(seen) !== JSON.stringify(k.pane)) {
        k.pane = seen;
        k.dirty = true;
      }
    }
    return k;
  }

  /** Read a session's files on from their cursors. */
  private readOn(k: Known): void {
    if (k.reader.refresh) {
      const before = JSON.stringify(k.reader.save());
      k.reader.refresh();
      if (JSON.stringify(k.reader.save()) !== before) k.dirty = true;
      return;
    }
    const files = [k.key, ...(k.agent === 'claude' ? subagentFiles(k.key) : [])];
    // A file replaced (another inode) or cut short (smaller than its cursor): the session is
    // counted again from the start of its files, by a new reader (what the old one counted is dropped, not added to).
    const stats = files.map((f) => fs.statSync(f, { throwIfNoEntry: false }));
    if (files.some((f, n) => {
      const c = k.files.get(f);
      const st = stats[n];
      return c && st && ((c.ino && c.ino !== st.ino) || st.size < c.offset);
    })) {
      const fresh = readerOf(k.agent, k.key);
      if (!fresh) return;
      k.reader = fresh;
      k.files.clear();
      k.dirty = true;
    }
    k.behind = false;
    files.forEach((file, n) => {
      const st = stats[n];
      if (!st) return;
      let c = k.files.get(file);
      if (!c) k.files.set(file, (c = { offset: 0, ino: st.ino }));
      if (c.ino !== st.ino) {
        c.ino = st.ino;
        k.dirty = true;
      }
      if (st.size <= c.offset + heldBytes(c.unfinished)) return;
      if (this.budget <= 0) {
        k.behind = true;
        return;
      }
      const read = readNewLines(file, c.offset, { maxLine: TRANSCRIPT_LINE_MAX, maxBytes: this.budget, ...(c.unfinished ? { unfinished: c.unfinished } : {}) });
      this.budget -= read.read;
      if (read.more) k.behind = true;
      if (read.offset !== c.offset) k.dirty = true;
      c.offset = read.offset;
      c.unfinished = read.unfinished;
      k.reader.feed(read.lines);
    });
  }

  /** Every pane folder on disk (this service's panes and earlier ones', running and ended): its inbound.jsonl read on. */
  private walk(): void {
    for (const folder of paneFolders(this.paths)) {
      try {
        this.readInbound(path.join(folder, INBOUND));
      } catch {
        // read next start
      }
    }
  }

  /** Every session seen: read on (a pane's earlier sessions, panes gone, earlier services'). */
  private readAll(): void {
    for (const i of this.inbound.values()) {
      for (const r of i.refs) {
        try {
          this.known(r, i);
        } catch {
          // found next time
        }
      }
    }
    for (const k of this.sessions.values()) {
      try {
        this.readOn(k);
      } catch {
        // next time
      }
    }
  }

  /**
   * Look at every pane that runs an agent now, then (the first time) every session seen; at
   * most LOOK_MAX bytes a look over every file, the panes' first: what is left (a first
   * look after an upgrade, with many old sessions) is read on at the next looks.
   */
  scan(): void {
    this.budget = LOOK_MAX;
    for (const p of this.panes.list()) {
      if (!p.agentCli && !p.usage) continue;
      try {
        this.update(p);
      } catch {
        // a transcript that cannot be read now is read next time
      }
    }
    if (!this.walked) {
      this.walked = true;
      this.walk();
      this.readAll();
    }
    // A pane folder's inbound.jsonl or a transcript with more than a look's bytes (a session first seen, its pane gone): read on.
    for (const i of this.inbound.values()) {
      if (!i.behind) continue;
      try {
        this.readInbound(i.file);
        for (const r of i.refs) {
          const k = this.known(r, i);
          if (k) k.behind = true; // read below (a session first found here is read from its start)
        }
      } catch {
        // next time
      }
    }
    for (const k of this.sessions.values()) {
      if (!k.behind) continue;
      try {
        this.readOn(k);
      } catch {
        // next time
      }
    }
    this.save();
  }

  /** The pane's current session's usage as it stands (read on first). */
  update(p: PaneInfo): SessionUsage | undefined {
    const i = this.readInbound(path.join(paneFolder(this.paths, this.panes.session, p.id), INBOUND));
    const ref = i.refs.at(-1);
    const k = ref && this.known(ref, i, p);
    if (!k) return undefined;
    this.readOn(k);
    const usage = sessionUsage(k.reader.tokens(), this.prices);
    const json = JSON.stringify(usage);
    if (json !== this.shown.get(p.id) && (usage.input || usage.output || usage.cacheRead || usage.cacheWrite)) {
      this.shown.set(p.id, json);
      this.panes.patch(p.id, { usage });
    }
    return usage;
  }

  /** Every session's tokens and cost by day and model, read on first; `since` (a date) leaves out earlier days. */
  summary(since?: string): { ok: true; summary: UsageSummary } | { ok: false; error: string } {
    let from = '';
    if (since !== undefined && since !== '') {
      if (Number.isNaN(Date.parse(since))) return { ok: false, error: `"${since}" is not a date: give one like 2026-12-01` };
      from = /^\d{4}-\d{2}-\d{2}$/.test(since) ? since : dayOf(since);
    }
    this.scan();
    this.readAll();
    this.save();
    const rows: UsageRow[] = [];
    for (const k of this.sessions.values()) {
      const p = k.pane;
      for (const [day, models] of k.reader.byDay()) {
        if (day < from) continue;
        for (const [model, tok] of models) {
          const price = priceOf(this.prices, model);
          rows.push({
            day, paneId: p.id, paneTitle: p.title, agent: k.agent, transcript: k.key, folder: p.cwd, model, ...tok,
            ...(k.sessionId ? { sessionId: k.sessionId } : {}),
            ...(p.worktree ? { worktree: p.worktree } : {}),
            ...(price ? { cost: (tok.input * price.input + tok.output * price.output + tok.cacheRead * price.cacheRead + tok.cacheWrite * price.cacheWrite) / 1_000_000 } : {}),
          });
        }
      }
    }
    rows.sort((a, b) => a.day.localeCompare(b.day) || a.paneId.localeCompare(b.paneId) || a.model.localeCompare(b.model) || a.transcript.localeCompare(b.transcript));
    return { ok: true, summary: { currency: this.prices.currency, pricesDate: this.prices.date, rows } };
  }

  dispose(): void {
    clearInterval(this.timer);
    this.offRemoved();
    this.save();
  }
}

export function installUsage(core: Pick<Core, 'onDispose' | 'handle'>, panes: PaneServiceApi, paths: Pick<Paths, 'state' | 'surfaces'>, env: NodeJS.ProcessEnv = process.env): UsageService {
  const service = new UsageService(panes, { paths, env });
  service.start();
  core.handle('usage.summary', (req) => service.summary(req?.since));
  core.onDispose(() => service.dispose());
  return service;
}
