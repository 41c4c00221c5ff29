/**
 * OpenCode's usage (issue 36): OpenCode (1.x) keeps its sessions in a SQLite database in its
 * data folder (`$XDG_DATA_HOME/opencode/opencode.db`, or `opencode-<channel>.db`), table
 * `message` (`id`, `session_id`, `time_created`, `time_updated`, `data`: the message as
 * JSON). An assistant message's `tokens` (`input` not cached, `output`, `reasoning`: billed
 * as output, `cache.read`, `cache.write`) and `modelID`; its `time.created` gives the day.
 * Read with Node's `node:sqlite`, read-only, when the database (or its WAL) changed.
 *
 * A message's row is written again as it streams (OpenCode 1.18: an upsert of `data`, which
 * sets `time_updated` to the time of the write), and a message can be removed (a revert). So
 * a reader keeps what each message counts, by id, and when the database changed reads only
 * the session's rows written since the newest `time_updated` it read (less UPDATED_SLACK_MS,
 * for a write whose time was taken before a later one's but committed after it); when the
 * session's row count is not the count it knows (a message removed, one written with an
 * older time), or the database is another file, it reads the session whole again. Its
 * figures are those of a whole read (messages summed in `time_created` order).
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

/** What a message counts: its day, model and tokens; undefined for one that counts nothing (not an assistant's, no tokens, bad JSON). */
export function messageTokens(data: string): { day: string; model: string; tok: ModelTokens } | undefined {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const t = m.tokens as Record<string, unknown> | undefined;
  if (m.role !== 'assistant' || !t || typeof t !== 'object') return undefined;
  const cache = (t.cache ?? {}) as Record<string, unknown>;
  const tok: ModelTokens = { input: num(t.input), output: num(t.output) + num(t.reasoning), cacheRead: num(cache.read), cacheWrite: num(cache.write) };
  if (!tok.input && !tok.output && !tok.cacheRead && !tok.cacheWrite) return undefined;
  const model = typeof m.modelID === 'string' && m.modelID ? m.modelID : 'unknown';
  const day = dayOf((m.time as Record<string, unknown> | undefined)?.created);
  return { day, model, tok };
}

function addTo(out: TokensByDay, c: { day: string; model: string; tok: ModelTokens }): void {
  let models = out.get(c.day);
  if (!models) out.set(c.day, (models = new Map()));
  const cur = models.get(c.model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  models.set(c.model, { input: cur.input + c.tok.input, output: cur.output + c.tok.output, cacheRead: cur.cacheRead + c.tok.cacheRead, cacheWrite: cur.cacheWrite + c.tok.cacheWrite });
}

/** A session's tokens by day and model, from the `data` of its messages. */
export function opencodeTokens(messages: Iterable<string>): TokensByDay {
  const out: TokensByDay = new Map();
  for (const data of messages) {
    const c = messageTokens(data);
    if (c) addTo(out, c);
  }
  return out;
}

/** Rows of OpenCode's `message` table whose `data` the readers read, since the service started (a summary with nothing new reads none). */
export const opencodeRead = { rows: 0 };

/** How far before the newest `time_updated` read a read on goes back: a write that waited for OpenCode's lock (its busy timeout is 5 s) may carry a time older than one committed before it. */
export const UPDATED_SLACK_MS = 10_000;

interface Message {
  /** Its `time_created`: messages are summed in its order (then by id), as a whole read's `ORDER BY time_created` gives them. */
  created: number;
  counted?: { day: string; model: string; tok: ModelTokens };
}

interface Row { id: string; time_created: number; time_updated: number; data: string }

/** A reader of one OpenCode session in a database: `refresh()` reads on when the database changed (what it read last is kept while the database cannot be read). */
export function opencodeReader(db: string, sessionId: string, saved?: unknown): TranscriptReader & { refresh(): void } {
  let days: TokensByDay = daysOfState(saved);
  let seen = '';
  /** The session's messages by id, as last read; undefined: not read whole yet (a new reader, another database file, one without `time_updated`). */
  let messages: Map<string, Message> | undefined;
  /** The newest `time_updated` read, and the database file it was read from. */
  let newest = 0;
  /** The database file read whole last (device, inode, birth time: a file put in its place can take the inode just freed). */
  let file = '';
  const take = (rows: Row[]): void => {
    opencodeRead.rows += rows.length;
    for (const r of rows) {
      const counted = messageTokens(r.data);
      messages!.set(r.id, { created: Number(r.time_created), ...(counted ? { counted } : {}) });
      if (Number(r.time_updated) > newest) newest = Number(r.time_updated);
    }
  };
  const sum = (): TokensByDay => {
    const out: TokensByDay = new Map();
    const list = [...messages!].sort(([a, x], [b, y]) => x.created - y.created || (a < b ? -1 : a > b ? 1 : 0));
    for (const [, m] of list) if (m.counted) addTo(out, m.counted);
    return out;
  };
  return {
    feed() {},
    refresh() {
      const stats = [db, `${db}-wal`].map((f) => fs.statSync(f, { throwIfNoEntry: false }));
      const stamp = stats.map((s) => (s ? `${s.ino}:${s.mtimeMs}:${s.size}` : '-')).join('|');
      if (stamp === seen) return;
      const { DatabaseSync } = sqlite();
      const conn = new DatabaseSync(db, { readOnly: true });
      try {
        conn.exec('PRAGMA busy_timeout = 1000');
        const updated = (conn.prepare('PRAGMA table_info(message)').all() as Array<{ name: string }>).some((c) => c.name === 'time_updated');
        const id = stats[0] ? `${stats[0].dev}:${stats[0].ino}:${stats[0].birthtimeMs}` : '';
        if (!updated || id !== file) messages = undefined;
        if (messages) {
          // Read on: the rows written since the newest read, then the count, to see none was removed or missed.
          take(conn.prepare('SELECT id, time_created, time_updated, data FROM message WHERE session_id = ? AND time_updated >= ?').all(sessionId, newest - UPDATED_SLACK_MS) as unknown as Row[]);
          const { n } = conn.prepare('SELECT count(*) AS n FROM message WHERE session_id = ?').get(sessionId) as { n: number };
          if (Number(n) !== messages.size) messages = undefined;
        }
        if (!messages) {
          messages = new Map();
          newest = 0;
          take(conn.prepare(`SELECT id, time_created, ${updated ? 'time_updated' : '0 AS time_updated'}, data FROM message WHERE session_id = ? ORDER BY time_created`).all(sessionId) as unknown as Row[]);
          file = id;
        }
        days = sum();
        if (!updated) messages = undefined;
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
