/**
 * An agent's transcript as the agent channel recorded it in the pane's `inbound.jsonl`
 * (prompts, replies, tool runs), for Enter on a prompt or reply hit of the search palette:
 * `search.transcript {paneId, session, ref}` answers the entries of the agent session the
 * event `ref` belongs to, and which of them it is. The same text the index holds for each
 * event (`agentEntry`, its secrets redacted), so the viewer shows what was found.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SearchTranscript, SearchTranscriptEntry } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import { atMs, parseEvent, type TdacEvent } from '../agent-channel/events.ts';
import { redact } from './secrets.ts';

/** Entries around the asked one, at most (a long session is cut before and after it). */
const MAX_ENTRIES = 400;
/** An inbound.jsonl longer than this is read from its last part only. */
const MAX_READ = 32 * 1024 * 1024;
const ID = /^[A-Za-z0-9_-]{1,64}$/;

export const short = (v: unknown, max = 2000): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? '';
  return s.length > max ? `${s.slice(0, max)}…` : s;
};

/** An agent event as the index and the transcript hold it: a prompt, a reply or a tool run; else undefined. */
export function agentEntry(e: TdacEvent): SearchTranscriptEntry | undefined {
  const at = atMs(e.at) || Date.now();
  const agent = e.agent ?? 'claude';
  if (e.type === 'prompt' || e.type === 'reply') return { kind: e.type, at, ref: e.id, text: e.text, agent };
  // A tool run: its name and input, then what it gave back (tool_output), as the agent saw it.
  if (e.type === 'tool') return { kind: 'tool', at, ref: e.id, text: `${e.tool_name}${e.failed ? ' (failed)' : ''} ${short(e.tool_input)}${e.tool_output ? `\n${e.tool_output}` : ''}`, agent };
  return undefined;
}

/**
 * The transcript holding event `ref`, from the lines of an inbound.jsonl: the events of its
 * agent session (the `session_id` the events carry; all of them when they carry none), at
 * most MAX_ENTRIES around it. A string says why there is none.
 */
export function transcriptOf(lines: readonly string[], ref: string): SearchTranscript | string {
  const events: TdacEvent[] = [];
  for (const line of lines) {
    const e = parseEvent(line);
    if (e) events.push(e);
  }
  const hit = events.find((e) => e.id === ref);
  if (!hit) return `the agent event ${ref.slice(0, 80)} is no longer in the pane's record`;
  const sid = hit.session_id;
  let path_: string | undefined;
  const entries: SearchTranscriptEntry[] = [];
  for (const e of events) {
    if (e.session_id !== sid) continue;
    if (e.type === 'session' && e.transcript_path) path_ = e.transcript_path;
    const entry = agentEntry(e);
    // Its secrets redacted, as the index holds it (a reply that printed a key shows [redacted]).
    if (entry) entries.push({ ...entry, text: redact(entry.text) });
  }
  let index = entries.findIndex((x) => x.ref === ref);
  let from = 0;
  if (entries.length > MAX_ENTRIES) from = Math.min(Math.max(0, index - MAX_ENTRIES / 2), entries.length - MAX_ENTRIES);
  const kept = entries.slice(from, from + MAX_ENTRIES);
  index -= from;
  return { ...(hit.agent ? { agent: hit.agent } : {}), ...(sid ? { sessionId: sid } : {}), ...(path_ ? { path: path_ } : {}), entries: kept, index, cut: { before: from, after: entries.length - from - kept.length } };
}

/** `search.transcript`: read the pane folder's inbound.jsonl (`surfaces/<session>/<pane>/`). */
export function installTranscript(core: Pick<Core, 'handle'>, surfacesRoot: string): void {
  core.handle('search.transcript', async (req) => {
    if (!req || typeof req.paneId !== 'string' || !ID.test(req.paneId) || typeof req.session !== 'string' || !ID.test(req.session) || typeof req.ref !== 'string' || !req.ref) {
      return { ok: false as const, error: 'search.transcript needs the hit\'s paneId, session and ref (an agent event\'s id).' };
    }
    const file = path.join(surfacesRoot, req.session, req.paneId, 'inbound.jsonl');
    let text: string;
    try {
      const fh = await fs.promises.open(file, 'r');
      try {
        const { size } = await fh.stat();
        const len = Math.min(size, MAX_READ);
        const buf = Buffer.alloc(len);
        await fh.read(buf, 0, len, size - len);
        text = buf.toString('utf8');
      } finally {
        await fh.close();
      }
    } catch {
      return { ok: false as const, error: `pane ${req.paneId} has no agent record any more (its folder was removed).` };
    }
    const t = transcriptOf(text.split('\n'), req.ref);
    return typeof t === 'string' ? { ok: false as const, error: `${t[0]!.toUpperCase()}${t.slice(1)}.` } : { ok: true as const, transcript: t };
  });
}
