/**
 * Token counts in agents' transcripts (issue 36, usage and cost), pure: each reader takes
 * the transcript's text as it grows and keeps what it has counted.
 *
 * - Claude Code (`~/.claude/projects/<project>/<session>.jsonl`): an assistant line's
 *   `message.usage` (`input_tokens`, `output_tokens`, `cache_read_input_tokens`,
 *   `cache_creation_input_tokens`) and `message.model`; a message written as several lines
 *   (one a content block) carries the same usage on each: counted once by `message.id`.
 * - Codex (`~/.codex/sessions/…/rollout-*.jsonl`): `event_msg` lines of type `token_count`
 *   carry the session's running `total_token_usage` (`input_tokens` including
 *   `cached_input_tokens`, `output_tokens`); the last one is the session's. The model is in
 *   `turn_context` lines.
 * - Gemini CLI (`~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`): one record a
 *   line, a message written again as it changes; a `gemini` message's `tokens` (`input`
 *   including `cached`, `output`, `thoughts`: billed as output) and `model`, the last
 *   record of each message id counted.
 * OpenCode keeps its sessions in a database: opencode.ts.
 */

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

export function claudeReader(): TranscriptReader {
  const seen = new Set<string>();
  const total: TokensByDay = new Map();
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
        const id = typeof msg.id === 'string' ? msg.id : typeof v.uuid === 'string' ? v.uuid : undefined;
        if (id) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        const model = typeof msg.model === 'string' && msg.model ? msg.model : 'unknown';
        // Claude Code writes "<synthetic>" messages (its own, no model call): no tokens.
        if (model === '<synthetic>') continue;
        addDay(total, dayOf(v.timestamp), model, { input: num(usage.input_tokens), output: num(usage.output_tokens), cacheRead: num(usage.cache_read_input_tokens), cacheWrite: num(usage.cache_creation_input_tokens) });
      }
    },
    tokens: () => sumDays(total),
    byDay: () => copyDays(total),
  };
}

export function codexReader(): TranscriptReader {
  let model = 'unknown';
  /** The last running total seen: each new one adds what grew since to its day and the model of the turn. */
  let last: ModelTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  const total: TokensByDay = new Map();
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
  };
}

export function geminiReader(): TranscriptReader {
  const days = (): TokensByDay => {
    const out: TokensByDay = new Map();
    for (const { model, day, t } of byId.values()) addDay(out, day, model, t);
    return out;
  };
  const byId = new Map<string, { model: string; day: string; t: ModelTokens }>();
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
        const cached = num(t.cached);
        byId.set(v.id, {
          model: typeof v.model === 'string' && v.model ? v.model : 'unknown',
          day: byId.get(v.id)?.day ?? dayOf(v.timestamp),
          t: { input: Math.max(0, num(t.input) - cached), output: num(t.output) + num(t.thoughts), cacheRead: cached, cacheWrite: 0 },
        });
      }
    },
    tokens: () => sumDays(days()),
    byDay: () => days(),
  };
}
