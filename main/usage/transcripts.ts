/**
 * Token counts in agents' transcripts (issue 36, usage and cost), pure: each reader takes
 * the transcript's text as it grows and keeps what it has counted.
 *
 * - Claude Code (`~/.claude/projects/<project>/<session>.jsonl`): an assistant line's
 *   `message.usage` (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
 *   `cache_creation_input_tokens`) and `message.model`; a message is written as several lines
 *   (one a content block), each with the usage as it stood, an early one perhaps with a
 *   placeholder output count (the API's `message_start` says ~1, its `message_delta` the
 *   real count): counted once by `message.id`, the largest of each figure; a message met
 *   again later (a resumed session's file has its earlier messages written into it again,
 *   same ids) is not counted again: every settled id is kept, as a short hash, with the
 *   counts. A subagent's
 *   (the Task tool's) messages are in files of their own, read into the same reader
 *   (service.ts), or in the main file marked `isSidechain`: counted alike.
 * - Codex (`~/.codex/sessions/…/rollout-*.jsonl`): `event_msg` lines of type `token_count`
 *   carry the session's running `total_token_usage` (`input_tokens` including
 *   `cached_input_tokens`, `output_tokens`); the last one is the session's. The model is in
 *   `turn_context` lines.
 * - Gemini CLI (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`): one record a
 *   line, a message written again as it changes; a `gemini` message's `tokens` (`input`
 *   including `cached`, `output`, `thoughts`: billed as output) and `model`, the last
 *   record of each message id counted (once: a settled id, kept as for Claude Code, is not
 *   counted again).
 * OpenCode keeps its sessions in a database: opencode.ts.
 */

import crypto from 'node:crypto';

/** Tokens of one model in a session. */
export interface ModelTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type TokensByModel = Map<string, ModelTokens>;
/** Tokens by the local day they were used on (`YYYY-MM-DD`, from each line's `timestamp`), then by model. */
export type TokensByDay = Map<string, TokensByModel>;

/** The local day (`YYYY-MM-DD`) of a time; a line without one counts on the day it was read. */
export function dayOf(at: unknown, now = Date.now()): string {
  const t = typeof at === 'string' || typeof at === 'number' ? new Date(at).getTime() : NaN;
  const d = new Date(Number.isFinite(t) ? t : now);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export interface TranscriptReader {
  /** Whole lines of the transcript, in order (a line cut by a write in progress waits for its end). */
  feed(lines: string[]): void;
  /** What the session used so far, by model. */
  tokens(): TokensByModel;
  /** What the session used so far, by day and model. */
  byDay(): TokensByDay;
  /** For a session kept in a database (OpenCode): read it again (instead of lines fed). */
  refresh?(): void;
  /** What it has counted, as JSON, to be given back to a new reader of the same session (which reads on from where this one stopped). */
  save(): unknown;
}

/** Tokens by day as JSON: `[[day, [[model, [input, output, cacheRead, cacheWrite]]]]]`. */
export function daysState(days: TokensByDay): unknown {
  return [...days].map(([d, m]) => [d, [...m].map(([model, t]) => [model, [t.input, t.output, t.cacheRead, t.cacheWrite]])]);
}

const tokensOf = (v: unknown): ModelTokens | undefined => (Array.isArray(v) && v.length === 4 ? { input: num(v[0]), output: num(v[1]), cacheRead: num(v[2]), cacheWrite: num(v[3]) } : undefined);

/** Tokens by day from `daysState`'s JSON (anything else in it left out). */
export function daysOfState(v: unknown): TokensByDay {
  const out: TokensByDay = new Map();
  if (!Array.isArray(v)) return out;
  for (const e of v) {
    if (!Array.isArray(e) || typeof e[0] !== 'string' || !Array.isArray(e[1])) continue;
    for (const m of e[1] as unknown[]) {
      const t = Array.isArray(m) && typeof m[0] === 'string' ? tokensOf(m[1]) : undefined;
      if (t) addDay(out, e[0], (m as string[])[0]!, t);
    }
  }
  return out;
}

const openState = (open: Open): unknown => [...open].map(([id, m]) => [id, m.day, m.model, [m.t.input, m.t.output, m.t.cacheRead, m.t.cacheWrite]]);

function openOfState(v: unknown): Open {
  const out: Open = new Map();
  if (!Array.isArray(v)) return out;
  for (const e of v) {
    const t = Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'string' && typeof e[2] === 'string' ? tokensOf(e[3]) : undefined;
    if (t) out.set((e as string[])[0]!, { day: (e as string[])[1]!, model: (e as string[])[2]!, t });
  }
  return out;
}

/** Tokens by model, summed over the days. */
export function sumDays(days: TokensByDay): TokensByModel {
  const out: TokensByModel = new Map();
  for (const models of days.values()) for (const [model, t] of models) add(out, model, t);
  return out;
}

function addDay(into: TokensByDay, day: string, model: string, t: ModelTokens): void {
  let m = into.get(day);
  if (!m) into.set(day, (m = new Map()));
  add(m, model, t);
}

const copyDays = (days: TokensByDay): TokensByDay => new Map([...days].map(([d, m]) => [d, new Map(m)]));

function add(into: TokensByModel, model: string, t: ModelTokens): void {
  const cur = into.get(model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  into.set(model, { input: cur.input + t.input, output: cur.output + t.output, cacheRead: cur.cacheRead + t.cacheRead, cacheWrite: cur.cacheWrite + t.cacheWrite });
}

/**
 * The last messages' tokens, by message id, while more lines of theirs may come (a
 * message's lines are written close together); the oldest is settled into the totals once
 * more than `KEEP_OPEN` are open, and its id's short hash kept (`Settled`) so that the same
 * message met again later (Claude Code writes a session's earlier messages into its file
 * again when it is resumed) is not counted again.
 */
const KEEP_OPEN = 64;
type Open = Map<string, { day: string; model: string; t: ModelTokens }>;

/** A message id's short hash (66 bits, 11 base64url characters): a settled message's mark. */
const HASH_LEN = 11;
export const idHash = (id: string): string => crypto.createHash('sha256').update(id).digest('base64url').slice(0, HASH_LEN);

/** The short hashes of every settled message id; as JSON, one string of them end to end. */
type Settled = Set<string>;
const settledIdsOfState = (v: unknown): Settled => {
  const out: Settled = new Set();
  if (typeof v !== 'string' || v.length % HASH_LEN !== 0) return out;
  for (let at = 0; at < v.length; at += HASH_LEN) out.add(v.slice(at, at + HASH_LEN));
  return out;
};
const settledIdsState = (ids: Settled): string => [...ids].join('');

function settleOldest(open: Open, settled: TokensByDay, ids: Settled, keep = KEEP_OPEN): void {
  while (open.size > keep) {
    const [id, m] = open.entries().next().value!;
    open.delete(id);
    ids.add(idHash(id));
    addDay(settled, m.day, m.model, m.t);
  }
}

function withOpen(settled: TokensByDay, open: Open): TokensByDay {
  const out = copyDays(settled);
  for (const m of open.values()) addDay(out, m.day, m.model, m.t);
  return out;
}

export function claudeReader(saved?: unknown): TranscriptReader {
  const st = obj(saved);
  const settled: TokensByDay = daysOfState(st?.settled);
  const ids: Settled = settledIdsOfState(st?.ids);
  const open: Open = openOfState(st?.open);
  return {
    feed(lines) {
      for (const line of lines) {
        if (!line.includes('"usage"')) continue;
        let v: Record<string, unknown> | undefined;
        try {
          v = obj(JSON.parse(line));
        } catch {
          continue;
        }
        const msg = obj(v?.message);
        const usage = obj(msg?.usage);
        if (!v || v.type !== 'assistant' || !msg || !usage) continue;
        const model = typeof msg.model === 'string' && msg.model ? msg.model : 'unknown';
        // Claude Code writes "<synthetic>" messages (its own, no model call): no tokens.
        if (model === '<synthetic>') continue;
        const t = { input: num(usage.input_tokens), output: num(usage.output_tokens), cacheRead: num(usage.cache_read_input_tokens), cacheWrite: num(usage.cache_creation_input_tokens) };
        const id = typeof msg.id === 'string' ? msg.id : typeof v.uuid === 'string' ? v.uuid : undefined;
        if (!id) {
          addDay(settled, dayOf(v.timestamp), model, t);
          continue;
        }
        // A message's lines (one a content block) each carry its usage, the early ones
        // perhaps a placeholder output count: the largest of each figure is the message's.
        const cur = open.get(id);
        if (cur) {
          cur.t = { input: Math.max(cur.t.input, t.input), output: Math.max(cur.t.output, t.output), cacheRead: Math.max(cur.t.cacheRead, t.cacheRead), cacheWrite: Math.max(cur.t.cacheWrite, t.cacheWrite) };
          continue;
        }
        // Settled already: the same message written again (a resumed session's history).
        if (ids.has(idHash(id))) continue;
        open.set(id, { day: dayOf(v.timestamp), model, t });
        settleOldest(open, settled, ids);
      }
    },
    tokens: () => sumDays(withOpen(settled, open)),
    byDay: () => withOpen(settled, open),
    save: () => ({ settled: daysState(settled), ids: settledIdsState(ids), open: openState(open) }),
  };
}

export function codexReader(saved?: unknown): TranscriptReader {
  const st = obj(saved);
  let model = typeof st?.model === 'string' ? st.model : 'unknown';
  /** The last running total seen: each new one adds what grew since to its day and the model of the turn. */
  let last: ModelTokens = tokensOf(st?.last) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const total: TokensByDay = daysOfState(st?.total);
  return {
    feed(lines) {
      for (const line of lines) {
        if (!line.includes('turn_context') && !line.includes('token_count')) continue;
        let v: Record<string, unknown> | undefined;
        try {
          v = obj(JSON.parse(line));
        } catch {
          continue;
        }
        const p = obj(v?.payload);
        if (!v || !p) continue;
        if (v.type === 'turn_context' && typeof p.model === 'string' && p.model) model = p.model;
        else if (v.type === 'event_msg' && p.type === 'token_count') {
          const t = obj(obj(p.info)?.total_token_usage);
          if (!t) continue;
          const cached = num(t.cached_input_tokens);
          const cur = { input: Math.max(0, num(t.input_tokens) - cached), output: num(t.output_tokens), cacheRead: cached, cacheWrite: 0 };
          const grew = { input: Math.max(0, cur.input - last.input), output: Math.max(0, cur.output - last.output), cacheRead: Math.max(0, cur.cacheRead - last.cacheRead), cacheWrite: 0 };
          last = cur;
          if (grew.input || grew.output || grew.cacheRead) addDay(total, dayOf(v.timestamp), model, grew);
        }
      }
    },
    tokens: () => sumDays(total),
    byDay: () => copyDays(total),
    save: () => ({ model, last: [last.input, last.output, last.cacheRead, last.cacheWrite], total: daysState(total) }),
  };
}

export function geminiReader(saved?: unknown): TranscriptReader {
  const st = obj(saved);
  const settled: TokensByDay = daysOfState(st?.settled);
  const ids: Settled = settledIdsOfState(st?.ids);
  const byId: Open = openOfState(st?.open);
  return {
    feed(lines) {
      for (const line of lines) {
        if (!line.includes('"tokens"')) continue;
        let v: Record<string, unknown> | undefined;
        try {
          v = obj(JSON.parse(line));
        } catch {
          continue;
        }
        const t = obj(v?.tokens);
        if (!v || v.type !== 'gemini' || !t || typeof v.id !== 'string') continue;
        if (!byId.has(v.id) && ids.has(idHash(v.id))) continue; // settled already
        const cached = num(t.cached);
        const day = byId.get(v.id)?.day ?? dayOf(v.timestamp);
        byId.delete(v.id);
        byId.set(v.id, {
          model: typeof v.model === 'string' && v.model ? v.model : 'unknown',
          day,
          t: { input: Math.max(0, num(t.input) - cached), output: num(t.output) + num(t.thoughts), cacheRead: cached, cacheWrite: 0 },
        });
        settleOldest(byId, settled, ids);
      }
    },
    tokens: () => sumDays(withOpen(settled, byId)),
    byDay: () => withOpen(settled, byId),
    save: () => ({ settled: daysState(settled), ids: settledIdsState(ids), open: openState(byId) }),
  };
}
