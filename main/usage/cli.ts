/**
 * `terminal-delight usage [--by day|agent|pane|worktree|session] [--since DATE] [--json]`:
 * tokens in, out and cached, and cost, of every agent session the app has seen (kept across restarts), summed
 * as asked (through the service, started on demand), as the window's Usage view shows them.
 */
import { groupUsage, money, USAGE_BY, type UsageBy } from '../../common/usage.ts';
import { throughService, type Request } from '../cli/through-service.ts';

export const USAGE = 'usage: terminal-delight usage [--by day|agent|pane|worktree|session] [--since DATE] [--json]';

export interface UsageArgs {
  by: UsageBy;
  since?: string;
  json: boolean;
}

/** Parse the arguments after `usage`; a string is the one-sentence refusal. */
export function parseUsageArgs(argv: string[]): UsageArgs | string {
  const out: UsageArgs = { by: 'day', json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') {
      out.json = true;
      continue;
    }
    const m = /^--(by|since)(?:=(.*))?$/s.exec(a);
    if (!m) return `"${a}" is not an option of usage: ${USAGE.slice(7)}`;
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') return `--${m[1]} needs a value: for example --${m[1]} ${m[1] === 'by' ? 'agent' : '2026-12-01'}`;
    if (m[1] === 'by') {
      if (!USAGE_BY.includes(value as UsageBy)) return `--by ${value} is not a way to sum: use one of ${USAGE_BY.join(', ')}`;
      out.by = value as UsageBy;
    } else {
      if (Number.isNaN(Date.parse(value))) return `--since ${value} is not a date: give one like 2026-12-01`;
      out.since = value;
    }
  }
  return out;
}

/** Run `usage …` with a way of reaching the core; returns the exit code. */
export async function runUsage(argv: string[], request: Request, io: { out(s: string): void; err(s: string): void }): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const args = parseUsageArgs(argv);
  if (typeof args === 'string') {
    io.err(`terminal-delight usage: ${args}\n`);
    return 2;
  }
  const res = await request('usage.summary', args.since ? { since: args.since } : {});
  if (!res.ok) {
    io.err(`terminal-delight usage: ${res.error}\n`);
    return 2;
  }
  const { currency, pricesDate, rows } = res.summary;
  const groups = groupUsage(rows, args.by);
  if (args.json) {
    io.out(`${JSON.stringify({ by: args.by, currency, pricesDate, groups }, null, 2)}\n`);
    return 0;
  }
  if (groups.length === 0) {
    io.out('No agent usage read yet (agents\' sessions in panes are read as they run).\n');
    return 0;
  }
  const head = [args.by, 'input', 'output', 'cache read', 'cache write', 'cost'];
  const table = groups.map((g) => [g.label, String(g.input), String(g.output), String(g.cacheRead), String(g.cacheWrite),
    g.cost !== undefined ? `${money(g.cost, currency)}${g.unpriced.length ? ` + tokens only: ${g.unpriced.join(', ')}` : ''}` : `tokens only (${g.unpriced.join(', ')}: no price)`]);
  const widths = head.map((h, i) => Math.max(h.length, ...table.map((r) => r[i]!.length)));
  const line = (r: string[]): string => r.map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  io.out(`${[line(head), ...table.map(line)].join('\n')}\nPrices of ${pricesDate} (assets/prices), ${currency}; a model the file does not list is counted in tokens only.\n`);
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  const io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s) };
  const parsed = parseUsageArgs(argv);
  if (typeof parsed === 'string' || argv[0] === '--help' || argv[0] === '-h') return runUsage(argv, () => Promise.reject(new Error('unused')), io);
  return throughService('usage', process.cwd(), (request) => runUsage(argv, request, io));
}
