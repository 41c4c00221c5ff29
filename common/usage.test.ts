import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../preload/contract.ts';
import { groupUsage, money, tokens, usageBars } from './usage.ts';
import { parseUsageArgs } from '../main/usage/cli.ts';

const row = (day: string, paneId: string, agent: string, model: string, tokens: number, cost?: number, worktree?: string): UsageRow => ({
  day, paneId, paneTitle: `title ${paneId}`, agent, transcript: `/t/${paneId}-${agent}.jsonl`, folder: '/src/app', model,
  input: tokens, output: tokens * 2, cacheRead: tokens * 3, cacheWrite: 0, ...(cost !== undefined ? { cost } : {}), ...(worktree ? { worktree: { branch: worktree, path: `/wt/${worktree}` } } : {}),
});

const rows = [
  row('2026-12-02', 'p1', 'claude', 'claude-sonnet-4-5', 100, 0.5, 'fix'),
  row('2026-12-01', 'p1', 'claude', 'claude-sonnet-4-5', 10, 0.05, 'fix'),
  row('2026-12-02', 'p2', 'codex', 'scripted', 1000),
  row('2026-12-02', 'p3', 'gemini', 'gemini-2.5-flash', 50, 0.01),
  row('2026-12-02', 'p3', 'gemini', 'local-model', 5),
];

describe('usage summed for the Usage view', () => {
  it('by day oldest first, by agent/pane/worktree costliest first; unpriced models counted in tokens and named', () => {
    expect(groupUsage(rows, 'day').map((g) => [g.key, g.input, g.cost, g.unpriced])).toEqual([
      ['2026-12-01', 10, 0.05, []],
      ['2026-12-02', 1155, 0.51, ['scripted', 'local-model']],
    ]);
    expect(groupUsage(rows, 'agent').map((g) => [g.label, g.output, g.cost, g.unpriced])).toEqual([
      ['claude', 220, 0.55, []], ['gemini', 110, 0.01, ['local-model']], ['codex', 2000, undefined, ['scripted']],
    ]);
    expect(groupUsage(rows, 'worktree').map((g) => g.label)).toEqual(['fix (/wt/fix)', 'no worktree (/src/app)']);
    expect(groupUsage(rows, 'pane').map((g) => g.label)).toEqual(['title p1 (p1)', 'title p3 (p3)', 'title p2 (p2)']);
    expect(groupUsage(rows, 'session')).toHaveLength(3);
  });

  it('names a pane by its title without the spinner glyph of an agent', () => {
    const spun = { ...rows[0], paneTitle: '✳ Fix the cache' };
    expect(groupUsage([spun], 'pane').map((g) => g.label)).toEqual(['Fix the cache (p1)']);
    expect(groupUsage([spun], 'session').map((g) => g.label)).toEqual(['claude p1-claude.jsonl in Fix the cache (p1)']);
  });

  it('stacks a bar a day, an agent a stack, of cost or tokens', () => {
    expect(usageBars(rows, 'cost')).toEqual({ days: ['2026-12-01', '2026-12-02'], stacks: [
      { agent: 'claude', values: [0.05, 0.5] }, { agent: 'codex', values: [0, 0] }, { agent: 'gemini', values: [0, 0.01] },
    ] });
    expect(usageBars(rows, 'tokens').stacks[1]).toEqual({ agent: 'codex', values: [0, 6000] });
  });

  it('writes tokens and money short', () => {
    expect([tokens(950), tokens(1234), tokens(56_789), tokens(4_560_000)]).toEqual(['950', '1.2k', '57k', '4.56M']);
    expect([money(0.04213, 'USD'), money(12.345, 'USD'), money(3, 'EUR')]).toEqual(['$0.042', '$12.35', 'EUR 3.00']);
  });

  it('terminal-delight usage refuses bad options in one sentence', () => {
    expect(parseUsageArgs(['--by', 'agent', '--since=2026-12-01', '--json'])).toEqual({ by: 'agent', since: '2026-12-01', json: true });
    expect(parseUsageArgs(['--by', 'moon'])).toBe('--by moon is not a way to sum: use one of day, agent, pane, worktree, session');
    expect(parseUsageArgs(['--since', 'soon'])).toBe('--since soon is not a date: give one like 2026-12-01');
    expect(parseUsageArgs(['--colour'])).toBe('"--colour" is not an option of usage: terminal-delight usage [--by day|agent|pane|worktree|session] [--since DATE] [--json]');
    expect(parseUsageArgs(['--by'])).toBe('--by needs a value: for example --by agent');
  });
});
