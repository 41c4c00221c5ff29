/**
 * The transcript route: ```td and ```tdsp blocks in the agent's own replies, read from
 * the last 256 KiB of the pane's transcript (Claude Code JSONL: assistant
 * `message.content[]` text blocks; Codex rollout JSONL: `response_item` assistant
 * messages' `output_text`). Only for a transcript known to be the pane's
 * (watchTranscript). Each block is read once, even as the file grows and is re-read:
 * blocks are keyed by a hash of their message key, position and text.
 */
import fs from 'node:fs';
import { LIMITS } from './registry.ts';
import { checkSurface, notJsonCard, sha256Hex, type Checked } from './validate.ts';

export interface AgentText {
  /** The message's own id (uuid, message id, or a hash of its line). */
  key: string;
  text: string;
}

export interface Block {
  /** Stable across re-reads: hash of message key, index in the message and text. */
  key: string;
  text: string;
}

/** The assistant texts of a Claude Code or Codex JSONL transcript, in order. Lines that are not JSON are skipped. */
export function agentTexts(jsonl: string): AgentText[] {
  const out: AgentText[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (!rec || typeof rec !== 'object') continue;
    // Claude Code: {"type":"assistant","uuid":…,"message":{"id":…,"role":"assistant","content":[{"type":"text","text":…}]}}
    const message = rec.message as Record<string, unknown> | undefined;
    if (rec.type === 'assistant' && message && Array.isArray(message.content)) {
      const key = String(rec.uuid ?? message.id ?? sha256Hex(line));
      const parts = message.content
        .filter((c): c is { type: string; text: string } => !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string')
        .map((c) => c.text);
      if (parts.length) out.push({ key, text: parts.join('\n') });
      continue;
    }
    // Codex rollout: {"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":…}]}}
    // (older rollouts wrote the payload itself as the line).
    const payload = (rec.type === 'message' ? { ...rec, type: 'message' } : rec.payload) as Record<string, unknown> | undefined;
    if ((rec.type === 'response_item' || rec.type === 'message') && payload && payload.type === 'message' && payload.role === 'assistant' && Array.isArray(payload.content)) {
      const key = String(payload.id ?? sha256Hex(line));
      const parts = payload.content
        .filter((c): c is { type: string; text: string } => !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'output_text' && typeof (c as { text?: unknown }).text === 'string')
        .map((c) => c.text);
      if (parts.length) out.push({ key, text: parts.join('\n') });
    }
  }
  return out;
}

const FENCE = /^[ \t]*```[ \t]*(td|tdsp)[ \t]*\r?\n([\s\S]*?)^[ \t]*```[ \t]*$/gm;

/** The bodies of every ```td and ```tdsp fenced block in a text, in order. */
export function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FENCE)) out.push(m[2]!.replace(/\r?\n$/, ''));
  return out;
}

/** Every block of a transcript's text, keyed. */
export function transcriptBlocks(jsonl: string): Block[] {
  const out: Block[] = [];
  for (const msg of agentTexts(jsonl)) {
    fencedBlocks(msg.text).forEach((text, i) => {
      out.push({ key: sha256Hex(`${msg.key}\n${i}\n${text}`).slice(0, 32), text });
    });
  }
  return out;
}

/** What the window would read out of a transcript's text: each block checked leniently, as the transcript route does. */
export function deriveSurfaces(jsonl: string): Checked[] {
  return transcriptBlocks(jsonl).map((b) => {
    const c = checkSurface(b.text, { strict: false });
    return c.type === 'not-json' ? notJsonCard(c.reason, b.text) : c;
  });
}

/** The last `bytes` of a file as text, starting at a whole line when cut. */
export function readTail(file: string, bytes = LIMITS.transcriptTailBytes): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) return '';
    const start = Math.max(0, st.size - bytes);
    const buf = Buffer.alloc(st.size - start);
    let n = 0;
    while (n < buf.length) {
      const got = fs.readSync(fd, buf, n, buf.length - n, start + n);
      if (got === 0) break;
      n += got;
    }
    let text = buf.subarray(0, n).toString('utf8');
    if (start > 0) {
      const nl = text.indexOf('\n');
      text = nl < 0 ? '' : text.slice(nl + 1);
    }
    return text;
  } finally {
    fs.closeSync(fd);
  }
}

export interface TranscriptDeps {
  /** Whether this block (by key) is read for the first time in this pane; marks it read. */
  firstReading(paneId: string, key: string): boolean;
  /** Ingest one block's text leniently (route 'transcript'). */
  ingest(paneId: string, text: string): void;
}

interface Watch {
  file: string;
  sig: string;
}

/** Re-reads each watched transcript's tail when it changes (checked once a second). */
export class TranscriptWatcher {
  private readonly watches = new Map<string, Watch>();
  private readonly deps: TranscriptDeps;
  private readonly intervalMs: number;
  private timer?: NodeJS.Timeout;

  constructor(deps: TranscriptDeps, intervalMs: number = LIMITS.pollMs) {
    this.deps = deps;
    this.intervalMs = intervalMs;
  }

  watch(paneId: string, file: string): void {
    this.watches.set(paneId, { file, sig: '' });
    if (!this.timer) {
      this.timer = setInterval(() => this.checkAll(), this.intervalMs);
      this.timer.unref?.();
    }
    this.check(paneId);
  }

  unwatch(paneId: string): void {
    this.watches.delete(paneId);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.watches.clear();
  }

  checkAll(): void {
    for (const paneId of [...this.watches.keys()]) this.check(paneId);
  }

  check(paneId: string): void {
    const w = this.watches.get(paneId);
    if (!w) return;
    const st = fs.statSync(w.file, { throwIfNoEntry: false });
    if (!st || !st.isFile()) return;
    const sig = `${st.mtimeMs}:${st.size}:${st.ino}`;
    if (sig === w.sig) return;
    w.sig = sig;
    let text: string;
    try {
      text = readTail(w.file);
    } catch {
      return;
    }
    for (const block of transcriptBlocks(text)) {
      if (this.deps.firstReading(paneId, block.key)) this.deps.ingest(paneId, block.text);
    }
  }
}
