import { describe, expect, it } from 'vitest';
import { money, tokens, usageBadge } from './usage.ts';

describe('the usage badge', () => {
  it('says tokens and cost in a few characters', () => {
    expect(tokens(950)).toBe('950');
    expect(tokens(12_345)).toBe('12k');
    expect(tokens(5_432)).toBe('5.4k');
    expect(tokens(1_250_000)).toBe('1.25M');
    expect(money(0.04213, 'USD')).toBe('$0.042');
    expect(money(12.5, 'EUR')).toBe('EUR 12.50');
    const u = { model: 'claude-sonnet-4-5', input: 1200, output: 800, cacheRead: 50_000, cacheWrite: 4_000, cost: 0.0456, currency: 'USD', pricesDate: '2026-12-01' };
    expect(usageBadge(u)).toEqual({
      text: '56k tok · $0.046',
      title: 'This session (claude-sonnet-4-5): 1,200 in, 800 out, 50,000 read from the cache, 4,000 written to it.\nCost $0.046 at the prices of 2026-12-01.',
    });
  });
  it('says tokens only, and why, for a model without a price', () => {
    const b = usageBadge({ model: 'local-llama', input: 10, output: 5, cacheRead: 0, cacheWrite: 0, currency: 'USD', pricesDate: '2026-12-01', unpriced: ['local-llama'] });
    expect(b.text).toBe('15 tok');
    expect(b.title.split('\n')[1]).toBe('No cost: the price file of 2026-12-01 has no price for local-llama; tokens only.');
  });
});
