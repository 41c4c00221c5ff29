/**
 * The palette's results, pure: hits grouped by pane (the pane's newest hit first), each
 * group named by its pane and agent, and a hit's text cut into plain and matched parts.
 */
import { SEARCH_PREFIX_MIN, type SearchHit } from '../../preload/contract.ts';

/** Whether a query's last word is too short to match as a prefix (it matches whole words only; main/search/index.ts). */
export function shortLast(query: string): boolean {
  const last = query.match(/[\p{L}\p{N}\p{M}_]+/gu)?.at(-1);
  return last !== undefined && [...last].length < SEARCH_PREFIX_MIN;
}

export interface HitGroup {
  paneId: string;
  agent?: string;
  hits: SearchHit[];
}

/** Hits (newest first) in groups by pane, in the order of each pane's newest hit. */
export function groupHits(hits: readonly SearchHit[]): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const h of hits) {
    let g = groups.get(h.paneId);
    if (!g) {
      g = { paneId: h.paneId, hits: [] };
      groups.set(h.paneId, g);
    }
    if (!g.agent && h.agent) g.agent = h.agent;
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
