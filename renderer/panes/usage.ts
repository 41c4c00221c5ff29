/** The pane header's usage badge, pure: a session's tokens and cost in a few characters, the detail as its tooltip. */
import type { SessionUsage } from '../../preload/contract.ts';

/** 950, 12.3k, 1.25M. */
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

export function usageBadge(u: SessionUsage): { text: string; title: string } {
  const all = u.input + u.output + u.cacheRead + u.cacheWrite;
  const text = u.cost !== undefined ? `${tokens(all)} tok · ${money(u.cost, u.currency)}` : `${tokens(all)} tok`;
  const lines = [
    `This session${u.model ? ` (${u.model})` : ''}: ${u.input.toLocaleString('en')} in, ${u.output.toLocaleString('en')} out, ${u.cacheRead.toLocaleString('en')} read from the cache, ${u.cacheWrite.toLocaleString('en')} written to it.`,
    u.cost !== undefined
      ? `Cost ${money(u.cost, u.currency)} at the prices of ${u.pricesDate}.`
      : `No cost: the price file of ${u.pricesDate} has no price for ${(u.unpriced ?? []).join(', ')}; tokens only.`,
  ];
  return { text, title: lines.join('\n') };
}
