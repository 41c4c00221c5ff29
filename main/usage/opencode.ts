/**
 * OpenCode's usage (issue 36): OpenCode (1.x) keeps its sessions in a SQLite database in its
 * data folder (`$XDG_DATA_HOME/opencode/opencode.db`, or `opencode-<channel>.db`), table
 * `message` (`id`, `session_id`, `time_created`, `data`: the message as JSON). An assistant
 * message's `tokens` (`input` not cached, `output`, `reasoning`: billed as output,
 * `cache.read`, `cache.write`) and `modelID`; its `time.created` gives the day. Read with
 * Node's `node:sqlite`, read-only, again whenever the database (or its WAL) changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sqlite } from '../search/index.ts';
import { dayOf, daysOfState, daysState, sumDays, type ModelTokens, type TokensByDay, type TranscriptReader } from './transcripts.ts';

/** OpenCode's databases in its data folder, newest first. */
export function opencodeDatabases(env: NodeJS.ProcessEnv = process.env): string[] {
  const data = env.XDG_DATA_HOME || path.join(env.HOME ?? '', '.local', 'share');
  const dir = path.join(data, 'opencode');
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => /^opencode(-[\w.-]+)?\.db$/.test(n));
  } catch {
    return [];
  }
  return names.map((n) => path.join(dir, n)).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs);
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** A session's tokens by day and model, from the `data` of its messages. */
export function opencodeTokens(messages: Iterable<string>): TokensByDay {
  const out: TokensByDay = new Map();
  for (const data of messages) {
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(data) as Record<string, unknown>;
    } catch {
      continue;
    }
    const t = m.tokens as Record<string, unknown> | undefined;
    if (m.role !== 'assistant' || !t || typeof t !== 'object') continue;
    const cache = (t.cache ?? {}) as Record<string, unknown>;
    const tok: ModelTokens = { input: num(t.input), output: num(t.output) + num(t.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write) };
    if (!tok.input && !tok.output && !tok.cacheRead && !tok.cacheWrite) continue;
    const model = typeof m.modelID === 'string' && m.modelID ? m.modelID : 'unknown';
    const day = dayOf((m.time as Record<string, unknown> | undefined)?.created);
    let models = out.get(day);
    if (!models) out.set(day, (models = new Map()));
    const cur = models.get(model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    models.set(model, { input: cur.input + tok.input, output: cur.output + tok.output, cacheRead: cur.cacheRead + tok.cacheRead, cacheWrite: cur.cacheWrite + tok.cacheWrite });
  }
  return out;
}

/** A reader of one OpenCode session in a database: `refresh()` reads it again when the database changed (what it read last is kept while the database cannot be read). */
export function opencodeReader(db: string, sessionId: string, saved?: unknown): TranscriptReader & { refresh(): void } {
  let days: TokensByDay = daysOfState(saved);
  let seen = '';
  return {
    feed() {},
    refresh() {
      const stamp = [db, `${db}-wal`].map((f) => { const s = fs.statSync(f, { throwIfNoEntry: false }); return s ? `${s.mtimeMs}:${s.size}` : '-'; }).join('|');
      if (stamp === seen) return;
      const { DatabaseSync } = sqlite();
      const conn = new DatabaseSync(db, { readOnly: true });
      try {
        conn.exec('PRAGMA busy_timeout = 1000');
        const rows = conn.prepare('SELECT data FROM message WHERE session_id = ? ORDER BY time_created').all(sessionId) as Array<{ data: string }>;
        days = opencodeTokens(rows.map((r) => r.data));
        seen = stamp;
      } finally {
        conn.close();
      }
    },
    tokens: () => sumDays(days),
    byDay: () => days,
    save: () => daysState(days),
  };
}
