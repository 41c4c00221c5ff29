/**
 * Usage rows (one agent session, one day, one model: main/usage) summed the ways the Usage
 * view and `terminal-delight usage` show them: by day, agent, pane, worktree or session, and
 * as a chart's stacked bars (a bar a day, a stack an agent). Pure. A model the price file
 * does not list adds its tokens and no cost, and the group names it.
 */
import type { UsageRow } from '../preload/contract.ts';
import { titleName } from './visible.ts';

export type UsageBy = 'day' | 'agent' | 'pane' | 'worktree' | 'session';
export const USAGE_BY: readonly UsageBy[] = ['day', 'agent', 'pane', 'worktree', 'session'];

export interface UsageGroup {
  key: string;
  /** What the group is called (the day, the agent, the pane's title, the branch, the session). */
  label: string;
  /** The agents in it. */
  agents: string[];
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** The cost of its priced tokens; absent when none is priced. */
  cost?: number;
  /** Models with no price whose tokens it holds (counted, not priced). */
  unpriced: string[];
}

function keyOf(r: UsageRow, by: UsageBy): [string, string] {
  switch (by) {
    case 'day': return [r.day, r.day];
    case 'agent': return [r.agent, r.agent];
    case 'pane': return [r.paneId, `${titleName(r.paneTitle)} (${r.paneId})`];
    case 'worktree': return r.worktree ? [r.worktree.path, `${r.worktree.branch} (${r.worktree.path})`] : ['', `no worktree (${r.folder})`];
    case 'session': return [r.transcript, `${r.agent} ${r.sessionId ? r.sessionId.slice(0, 8) : r.transcript.split('/').pop()} in ${titleName(r.paneTitle)} (${r.paneId})`];
  }
}

/** The rows summed by `by`: days oldest first, the rest by cost (then tokens), largest first. */
export function groupUsage(rows: readonly UsageRow[], by: UsageBy): UsageGroup[] {
  const groups = new Map<string, UsageGroup>();
  for (const r of rows) {
    const [key, label] = keyOf(r, by);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { key, label, agents: [], input: 0, output: 0, cacheRead: 0, cacheWrite: 0, unpriced: [] }));
    if (!g.agents.includes(r.agent)) g.agents.push(r.agent);
    g.input += r.input;
    g.output += r.output;
    g.cacheRead += r.cacheRead;
    g.cacheWrite += r.cacheWrite;
    if (r.cost !== undefined) g.cost = (g.cost ?? 0) + r.cost;
    else if (!g.unpriced.includes(r.model)) g.unpriced.push(r.model);
  }
  const out = [...groups.values()];
  if (by === 'day') return out.sort((a, b) => a.key.localeCompare(b.key));
  return out.sort((a, b) => (b.cost ?? 0) - (a.cost ?? 0) || totalTokens(b) - totalTokens(a) || a.label.localeCompare(b.label));
}

export const totalTokens = (t: { input: number; output: number; cacheRead: number; cacheWrite: number }): number => t.input + t.output + t.cacheRead + t.cacheWrite;

export interface UsageBars {
  days: string[];
  /** One stack an agent: its value each day (cost, or tokens). */
  stacks: Array<{ agent: string; values: number[] }>;
}

/** Stacked bars by day, one stack an agent, of cost (priced tokens only) or of all tokens. */
export function usageBars(rows: readonly UsageRow[], measure: 'cost' | 'tokens'): UsageBars {
  const days = [...new Set(rows.map((r) => r.day))].sort();
  const agents = [...new Set(rows.map((r) => r.agent))].sort();
  const stacks = agents.map((agent) => ({ agent, values: days.map(() => 0) }));
  for (const r of rows) {
    const s = stacks[agents.indexOf(r.agent)]!;
    const i = days.indexOf(r.day);
    s.values[i] = (s.values[i] ?? 0) + (measure === 'cost' ? (r.cost ?? 0) : totalTokens(r));
  }
  return { days, stacks };
}

/** A count of tokens, short: 950, 12.3k, 1.25M (the pane header's badge and the Usage view). */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** $0.042, $1.24, $312 (US dollars; another currency by its code). */
export function money(v: number, currency: string): string {
  const sign = currency === 'USD' ? '$' : `${currency} `;
  return `${sign}${v < 1 ? v.toFixed(3) : v < 100 ? v.toFixed(2) : v.toFixed(0)}`;
}
