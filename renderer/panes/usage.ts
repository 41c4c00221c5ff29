/** The pane header's usage badge, pure: a session's tokens and cost in a few characters, the detail as its tooltip. */
import type { SessionUsage } from '../../preload/contract.ts';
import { money, tokens } from '../../common/usage.ts';

export { money, tokens };

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
