/**
 * The palette's results, pure: hits grouped by pane, agent or day (the group with the newest
 * hit first), and a hit's text cut into plain and matched parts.
 */
import { SEARCH_PREFIX_MIN, type SearchHit } from '../../preload/contract.ts';

/** Whether a query's last word is too short to match as a prefix (it matches whole words only; main/search/index.ts). */
export function shortLast(query: string): boolean {
  const last = query.match(/[\p{L}\p{N}\p{M}_]+/gu)?.at(-1);
  return last !== undefined && [...last].length < SEARCH_PREFIX_MIN;
}

/** How the palette groups its results: by pane, by agent, or by day. */
export type GroupBy = 'pane' | 'agent' | 'day';

export interface HitGroup {
  /** The group's key: a pane's id, an agent's short name ('' for none), a day (YYYY-MM-DD, local). */
  key: string;
  /** By pane: the pane's id. */
  paneId?: string;
  /** By pane: the pane's agent (its first hit's that names one); by agent: the agent ('' none). */
  agent?: string;
  /** By day: the day's name ("Today", "Yesterday", "Tue Dec 1"). */
  day?: string;
  hits: SearchHit[];
}

/** A time's day, local: YYYY-MM-DD. */
function dayKey(at: number): string {
  const d = new Date(at);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** "Today", "Yesterday", else "Tue Dec 1" (with the year when it is not this one). */
export function dayName(at: number, now = Date.now()): string {
  if (dayKey(at) === dayKey(now)) return 'Today';
  const y = new Date(now);
  y.setDate(y.getDate() - 1);
  if (dayKey(at) === dayKey(y.getTime())) return 'Yesterday';
  const d = new Date(at);
  const name = `${d.toLocaleString('en', { weekday: 'short' })} ${d.toLocaleString('en', { month: 'short' })} ${d.getDate()}`;
  return d.getFullYear() === new Date(now).getFullYear() ? name : `${name} ${d.getFullYear()}`;
}

/**
 * Hits (newest first) in groups, in the order of each group's newest hit: by pane (each named by
 * its pane and agent), by agent (hits with none together, as "No agent"), or by day (local).
 */
export function groupHits(hits: readonly SearchHit[], by: GroupBy = 'pane', now = Date.now()): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const h of hits) {
    const key = by === 'pane' ? h.paneId : by === 'agent' ? (h.agent ?? '') : dayKey(h.at);
    let g = groups.get(key);
    if (!g) {
      g = by === 'pane' ? { key, paneId: h.paneId, hits: [] } : by === 'agent' ? { key, agent: key, hits: [] } : { key, day: dayName(h.at, now), hits: [] };
      groups.set(key, g);
    }
    if (by === 'pane' && !g.agent && h.agent) g.agent = h.agent;
    g.hits.push(h);
  }
  return [...groups.values()];
}

/** A hit's marked text (matches between U+0001 and U+0002) as parts, `match` true for the matched ones. */
export function markedParts(marked: string, max = 240): Array<{ text: string; match: boolean }> {
  const out: Array<{ text: string; match: boolean }> = [];
  // Start a long line a little before its first match, so the match shows.
  const first = marked.indexOf('\u0001');
  let s = marked;
  if (first > 60 && marked.length > max) s = `…${marked.slice(first - 40)}`;
  let match = false;
  let used = 0;
  for (const piece of s.split(/([\u0001\u0002])/)) {
    if (piece === '\u0001') match = true;
    else if (piece === '\u0002') match = false;
    else if (piece) {
      const room = max - used;
      if (room <= 0) break;
      const text = piece.length > room ? `${piece.slice(0, room)}…` : piece;
      out.push({ text, match });
      used += text.length;
    }
  }
  return out;
}

/**
 * A card's or a reply's marked text without Markdown's strong and code marks (`**`, backticks),
 * which the palette's one-line rows would show as they are (`__` stays: `__init__` is a name);
 * the match marks stay.
 */
export function withoutMarkdown(hit: Pick<SearchHit, 'kind' | 'marked'>): string {
  return hit.kind === 'surface' || hit.kind === 'reply' ? hit.marked.replace(/\*\*|`/g, '') : hit.marked;
}

/** "14:03" today, "Dec 2 14:03" before, for the palette's rows. */
export function when(at: number, now = Date.now()): string {
  const d = new Date(at);
  const time = `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
  const n = new Date(now);
  if (d.getFullYear() === n.getFullYear() && d.getMonth() === n.getMonth() && d.getDate() === n.getDate()) return time;
  return `${d.toLocaleString('en', { month: 'short' })} ${d.getDate()} ${time}`;
}
