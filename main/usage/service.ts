/**
 * Usage and cost of each pane's agent session (issue 36): the session's transcript, as the
 * agent's `session` event in the pane's inbound.jsonl names it, read on as it grows
 * (transcripts.ts), its tokens priced at the newest dated price file (prices.ts), and the
 * result put on the pane (`PaneInfo.usage`, which its header shows). Looked at every
 * `everyMs` for panes that run an agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PaneInfo, SessionUsage, UsageRow, UsageSummary } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { PaneServiceApi } from '../services.ts';
import { parseEvent } from '../agent-channel/events.ts';
import { readTail } from '../surfaces/transcript.ts';
import { titleName } from '../../common/visible.ts';
import { loadPrices, priceOf, sessionUsage, type PriceFile } from './prices.ts';
import { opencodeDatabases, opencodeReader } from './opencode.ts';
import { claudeReader, codexReader, dayOf, geminiReader, type TranscriptReader } from './transcripts.ts';

const INBOUND_TAIL = 512 * 1024;
const READ_MAX = 4 * 1024 * 1024;

interface Tracked {
  transcript: string;
  agent: string;
  /** The pane as last seen (kept for the summary when the pane is gone). */
  pane: PaneInfo;
  offset: number;
  rest: string;
  reader: TranscriptReader;
  last?: string;
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

/**
 * The transcript the pane's agent named last (Gemini CLI's: found by its session id;
 * OpenCode's: its database, `<db>#<session id>`), and which agent wrote it.
 */
export function sessionTranscript(folder: string, home = process.env.HOME ?? '', env: NodeJS.ProcessEnv = process.env): { path: string; agent: string } | undefined {
  let text: string;
  try {
    text = readTail(path.join(folder, 'inbound.jsonl'), INBOUND_TAIL);
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i]!.includes('"session"')) continue;
    const e = parseEvent(lines[i]!);
    if (e?.type !== 'session') continue;
    if (e.transcript_path && path.isAbsolute(e.transcript_path)) return { path: e.transcript_path, agent: e.agent ?? 'claude' };
    if (e.agent === 'gemini' && e.session_id && home) {
      const file = geminiChatFile(home, e.session_id);
      return file ? { path: file, agent: 'gemini' } : undefined;
    }
    if (e.agent === 'opencode' && e.session_id) {
      const db = opencodeDatabases({ ...env, HOME: home })[0];
      return db ? { path: `${db}#${e.session_id}`, agent: 'opencode' } : undefined;
    }
  }
  return undefined;
}

export class UsageService {
  private readonly panes: PaneServiceApi;
  private readonly tracked = new Map<string, Tracked>();
  /** Every session read since the service started, by transcript (a pane's earlier sessions too). */
  private readonly sessions = new Map<string, Tracked>();
  private readonly prices: PriceFile;
  private timer: NodeJS.Timeout | undefined;

  constructor(panes: PaneServiceApi, prices: PriceFile = loadPrices()) {
    this.panes = panes;
    this.prices = prices;
  }

  start(everyMs = 2000): void {
    this.timer = setInterval(() => this.scan(), everyMs);
    this.timer.unref?.();
  }

  /** Look at every pane that runs an agent now. */
  scan(): void {
    for (const p of this.panes.list()) {
      if (!p.agentCli && !p.usage) continue;
      try {
        this.update(p);
      } catch {
        // a transcript that cannot be read now is read next time
      }
    }
  }

  /** The pane's session usage as it stands (read on first). */
  update(p: PaneInfo): SessionUsage | undefined {
    const named = sessionTranscript(this.panes.folder(p.id));
    if (!named) return undefined;
    let t = this.tracked.get(p.id);
    if (!t || t.transcript !== named.path) {
      t = this.sessions.get(named.path);
      if (!t) {
        const hash = named.path.lastIndexOf('#');
        const reader = named.agent === 'codex' ? codexReader() : named.agent === 'claude' ? claudeReader() : named.agent === 'gemini' ? geminiReader()
          : named.agent === 'opencode' ? opencodeReader(named.path.slice(0, hash), named.path.slice(hash + 1)) : undefined;
        if (!reader) return undefined;
        t = { transcript: named.path, agent: named.agent, pane: p, offset: 0, rest: '', reader };
        this.sessions.set(named.path, t);
      }
      this.tracked.set(p.id, t);
    }
    t.pane = p;
    const size = t.reader.refresh ? 0 : fs.statSync(t.transcript, { throwIfNoEntry: false })?.size ?? 0;
    t.reader.refresh?.();
    if (size > t.offset) {
      const fd = fs.openSync(t.transcript, 'r');
      try {
        const len = Math.min(size - t.offset, READ_MAX);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, t.offset);
        t.offset += len;
        const lines = (t.rest + buf.toString('utf8')).split('\n');
        t.rest = lines.pop() ?? '';
        t.reader.feed(lines);
      } finally {
        fs.closeSync(fd);
      }
    }
    const usage = sessionUsage(t.reader.tokens(), this.prices);
    const key = JSON.stringify(usage);
    if (key !== t.last && (usage.input || usage.output || usage.cacheRead || usage.cacheWrite)) {
      t.last = key;
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
    const rows: UsageRow[] = [];
    for (const t of this.sessions.values()) {
      const p = t.pane;
      for (const [day, models] of t.reader.byDay()) {
        if (day < from) continue;
        for (const [model, tok] of models) {
          const price = priceOf(this.prices, model);
          rows.push({
            day, paneId: p.id, paneTitle: titleName(p.title), agent: t.agent, transcript: t.transcript, folder: p.cwd, model, ...tok,
            ...(p.agentCli?.sessionId ? { sessionId: p.agentCli.sessionId } : {}),
            ...(p.worktree ? { worktree: { branch: p.worktree.branch, path: p.worktree.path } } : {}),
            ...(price ? { cost: (tok.input * price.input + tok.output * price.output + tok.cacheRead * price.cacheRead + tok.cacheWrite * price.cacheWrite) / 1_000_000 } : {}),
          });
        }
      }
    }
    rows.sort((a, b) => a.day.localeCompare(b.day) || a.paneId.localeCompare(b.paneId) || a.model.localeCompare(b.model));
    return { ok: true, summary: { currency: this.prices.currency, pricesDate: this.prices.date, rows } };
  }

  dispose(): void {
    clearInterval(this.timer);
  }
}

export function installUsage(core: Pick<Core, 'onDispose' | 'handle'>, panes: PaneServiceApi): UsageService {
  const service = new UsageService(panes);
  service.start();
  core.handle('usage.summary', (req) => service.summary(req?.since));
  core.onDispose(() => service.dispose());
  return service;
}
