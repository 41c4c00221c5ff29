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
 * OpenCode keeps its sessions as JSON files per message: not read yet (its panes show no usage).
 */

/** Tokens of one model in a session. */
export interface ModelTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export type TokensByModel = Map<string, ModelTokens>;

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

export interface TranscriptReader {
  /** Whole lines of the transcript, in order (a line cut by a write in progress waits for its end). */
  feed(lines: string[]): void;
  /** What the session used so far, by model. */
  tokens(): TokensByModel;
}

function add(into: TokensByModel, model: string, t: ModelTokens): void {
  const cur = into.get(model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  into.set(model, { input: cur.input + t.input, output: cur.output + t.output, cacheRead: cur.cacheRead + t.cacheRead, cacheWrite: cur.cacheWrite + t.cacheWrite });
}

export function claudeReader(): TranscriptReader {
  const seen = new Set<string>();
  const total: TokensByModel = new Map();
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
        add(total, model, { input: num(usage.input_tokens), output: num(usage.output_tokens), cacheRead: num(usage.cache_read_input_tokens), cacheWrite: num(usage.cache_creation_input_tokens) });
      }
    },
    tokens: () => new Map(total),
  };
}

export function codexReader(): TranscriptReader {
  let model = 'unknown';
  /** The running total at the start of the current model's stretch, and the last total seen. */
  let last: ModelTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let base: ModelTokens = last;
  const done: TokensByModel = new Map();
  const diff = (a: ModelTokens, b: ModelTokens): ModelTokens => ({ input: a.input - b.input, output: a.output - b.output, cacheRead: a.cacheRead - b.cacheRead, cacheWrite: 0 });
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
        if (v.type === 'turn_context' && typeof p.model === 'string' && p.model !== model) {
          // A new model from here: what the old one used so far is its own.
          if (last !== base) add(done, model, diff(last, base));
          base = last;
          model = p.model;
        } else if (v.type === 'event_msg' && p.type === 'token_count') {
          const t = obj(obj(p.info)?.total_token_usage);
          if (!t) continue;
          const cached = num(t.cached_input_tokens);
          last = { input: Math.max(0, num(t.input_tokens) - cached), output: num(t.output_tokens), cacheRead: cached, cacheWrite: 0 };
        }
      }
    },
    tokens() {
      const out: TokensByModel = new Map(done);
      if (last !== base) add(out, model, diff(last, base));
      return out;
    },
  };
}

export function geminiReader(): TranscriptReader {
  const byId = new Map<string, { model: string; t: ModelTokens }>();
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
          t: { input: Math.max(0, num(t.input) - cached), output: num(t.output) + num(t.thoughts), cacheRead: cached, cacheWrite: 0 },
        });
      }
    },
    tokens() {
      const out: TokensByModel = new Map();
      for (const { model, t } of byId.values()) add(out, model, t);
      return out;
    },
  };
}
