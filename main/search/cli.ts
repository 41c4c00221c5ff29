/**
 * `terminal-delight search QUERY [--agent A] [--pane P] [--machine M] [--folder F] [--kind K]
 * [--since DATE] [--limit N] [--json]`: search everything the panes, agents, surfaces and Ticks did, through
 * the service (started on demand), as the window's palette does.
 */
import path from 'node:path';
import type { SearchHit, SearchQuery } from '../../preload/contract.ts';
import { throughService, type Request } from '../cli/through-service.ts';
import { sinceTime } from '../../common/since.ts';

export const USAGE = 'usage: terminal-delight search QUERY [--agent A] [--pane P] [--machine NAME|\'*\'] [--folder F] [--kind command|output|prompt|reply|tool|surface|decision|tick|failed] [--since DATE] [--limit N] [--json]';
const KINDS = ['command', 'output', 'prompt', 'reply', 'tool', 'surface', 'decision', 'tick', 'failed'];

export interface SearchArgs {
  q: SearchQuery;
  json: boolean;
}

/** Parse the arguments after `search`; a string is the one-sentence refusal. */
export function parseSearchArgs(argv: string[], cwd: string): SearchArgs | string {
  const words: string[] = [];
  const q: SearchQuery = { query: '' };
  let json = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') {
      json = true;
      continue;
    }
    if (a === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    const m = /^--(agent|pane|machine|folder|kind|since|limit)(?:=(.*))?$/s.exec(a);
    if (!m) {
      if (a.startsWith('--')) return `"${a}" is not an option of search: ${USAGE.slice(7)}`;
      words.push(a);
      continue;
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') return `--${m[1]} needs a value: for example --${m[1]} ${({ agent: 'claude', pane: 'pabc123', machine: 'build-box', folder: '~/src/app', kind: 'failed', since: '2026-12-01', limit: '20' } as Record<string, string>)[m[1]!]}`;
    if (m[1] === 'kind') {
      if (!KINDS.includes(value)) return `--kind ${value} is not a kind: use one of ${KINDS.join(', ')}`;
      q.kind = value as SearchQuery['kind'];
    } else if (m[1] === 'limit') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 1 || n > 500) return `--limit ${value} is out of range: give a whole number from 1 to 500`;
      q.limit = n;
    } else if (m[1] === 'since') {
      const t = sinceTime(value);
      if (Number.isNaN(t)) return `--since ${value} is not a date: give one like 2026-12-01 or 2026-12-01T09:30`;
      // (As a time: a date alone is its start here, also for a machine elsewhere in another zone.)
      q.since = new Date(t).toISOString();
    } else if (m[1] === 'folder') q.folder = path.resolve(cwd, value.replace(/^~(?=$|\/)/, process.env.HOME ?? '~'));
    else q[m[1] as 'agent' | 'pane' | 'machine'] = value;
  }
  q.query = words.join(' ').trim();
  if (!q.query) return `give something to look for: ${USAGE.slice(7)}`;
  return { q, json };
}

/** One hit as a line: when, where, what, the text with its matches marked (bold on a terminal). */
export function hitLine(h: SearchHit, tty: boolean): string {
  const when = new Date(h.at).toISOString().replace('T', ' ').slice(0, 19);
  const where = [`pane ${h.paneId}`, h.agent, h.line !== undefined ? `line ${h.line}` : undefined].filter(Boolean).join(' ');
  const kind = h.kind === 'command' && h.exitCode !== undefined ? `command (exit ${h.exitCode})` : h.kind;
  const text = h.marked.replace(/[\u0001\u0002]/g, (c) => (tty ? (c === '\u0001' ? '\x1b[1m' : '\x1b[22m') : '')).replace(/[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f]/g, ' ');
  return `${when}  ${where}  ${kind}${h.folder ? `  ${h.folder}` : ''}\n    ${text.replace(/\n/g, '\n    ')}\n`;
}

/** Run `search …` with a way of reaching the core; returns the exit code. */
export async function runSearch(argv: string[], request: Request, io: { out(s: string): void; err(s: string): void; cwd: string; tty: boolean }): Promise<number> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const args = parseSearchArgs(argv, io.cwd);
  if (typeof args === 'string') {
    io.err(`terminal-delight search: ${args}\n`);
    return 2;
  }
  const res = await request('search.query', args.q);
  if (!res.ok) {
    io.err(`terminal-delight search: ${res.error}\n`);
    return 2;
  }
  if (args.json) io.out(`${JSON.stringify({ hits: res.hits.map(({ marked: _m, ...h }) => ({ ...h, at: new Date(h.at).toISOString() })) }, null, 2)}\n`);
  else if (res.hits.length === 0) io.err(`nothing found for "${args.q.query}"\n`);
  else for (const h of res.hits) io.out(hitLine(h, io.tty));
  return res.hits.length > 0 ? 0 : 1;
}

export async function run(argv: string[]): Promise<number> {
  const io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s), cwd: process.cwd(), tty: process.stdout.isTTY === true };
  const parsed = parseSearchArgs(argv, io.cwd);
  if (typeof parsed === 'string' || argv[0] === '--help' || argv[0] === '-h') return runSearch(argv, () => Promise.reject(new Error('unused')), io);
  return throughService('search', io.cwd, (request) => runSearch(argv, request, io));
}
