/**
 * Usage and cost of each pane's agent session (issue 36): the session's transcript, as the
 * agent's `session` event in the pane's inbound.jsonl names it, read on as it grows
 * (transcripts.ts), its tokens priced at the newest dated price file (prices.ts), and the
 * result put on the pane (`PaneInfo.usage`, which its header shows). Looked at every
 * `everyMs` for panes that run an agent.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PaneInfo, SessionUsage } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import type { PaneServiceApi } from '../services.ts';
import { parseEvent } from '../agent-channel/events.ts';
import { readTail } from '../surfaces/transcript.ts';
import { loadPrices, sessionUsage, type PriceFile } from './prices.ts';
import { claudeReader, codexReader, geminiReader, type TranscriptReader } from './transcripts.ts';

const INBOUND_TAIL = 512 * 1024;
const READ_MAX = 4 * 1024 * 1024;

interface Tracked {
  transcript: string;
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

/** The transcript the pane's agent named last (Gemini CLI's: found by its session id), and which agent wrote it. */
export function sessionTranscript(folder: string, home = process.env.HOME ?? ''): { path: string; agent: string } | undefined {
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
  }
  return undefined;
}

export class UsageService {
  private readonly panes: PaneServiceApi;
  private readonly tracked = new Map<string, Tracked>();
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
      const reader = named.agent === 'codex' ? codexReader() : named.agent === 'claude' ? claudeReader() : named.agent === 'gemini' ? geminiReader() : undefined;
      if (!reader) return undefined;
      t = { transcript: named.path, offset: 0, rest: '', reader };
      this.tracked.set(p.id, t);
    }
    const size = fs.statSync(t.transcript, { throwIfNoEntry: false })?.size ?? 0;
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

  dispose(): void {
    clearInterval(this.timer);
  }
}

export function installUsage(core: Pick<Core, 'onDispose'>, panes: PaneServiceApi): UsageService {
  const service = new UsageService(panes);
  service.start();
  core.onDispose(() => service.dispose());
  return service;
}
