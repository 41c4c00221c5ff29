/**
 * `terminal-delight agent new [--worktree [--repo DIR] [--base BRANCH] [--name NAME]
 * [--prompt TEXT]] [-- agent argv…]`: start an agent pane in the running app (the
 * service, started on demand), in a worktree of its own with `--worktree`. The
 * repository defaults to the current folder; from inside a pane the new pane goes
 * beside it.
 */
import path from 'node:path';
import { throughService, type Request } from '../cli/through-service.ts';

export type { Request };

export const USAGE = 'usage: terminal-delight agent new [--worktree [--repo DIR] [--base BRANCH] [--name NAME] [--prompt TEXT]] [-- agent command…]';

export interface AgentArgs {
  worktree: boolean;
  repo?: string;
  base?: string;
  name?: string;
  prompt?: string;
  command?: string[];
}

/** Parse the arguments after `agent new`; a string is the one-sentence refusal. */
export function parseAgentArgs(argv: string[]): AgentArgs | string {
  const out: AgentArgs = { worktree: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      const command = argv.slice(i + 1);
      if (command.length === 0 || !command[0]) return 'nothing follows "--": give the agent\'s command after it, or leave "--" out for the configured agent';
      out.command = command;
      break;
    }
    if (a === '--worktree') {
      out.worktree = true;
      continue;
    }
    const m = /^--(repo|base|name|prompt)(?:=(.*))?$/s.exec(a);
    if (!m) return `"${a}" is not an option of agent new: ${USAGE.slice(7)}`;
    const value = m[2] ?? argv[++i];
    if (value === undefined || value === '') return `--${m[1]} needs a value: for example --${m[1]} ${m[1] === 'repo' ? '~/src/app' : m[1] === 'base' ? 'main' : m[1] === 'name' ? 'fix-login' : '"Fix the login bug"'}`;
    out[m[1] as 'repo' | 'base' | 'name' | 'prompt'] = value;
  }
  if (!out.worktree && (out.repo || out.base || out.name || out.prompt)) return '--repo, --base, --name and --prompt go with --worktree: add --worktree, or leave them out';
  return out;
}

/** Whether `agent …` asks for its usage (`agent --help`, `agent help`, `agent new --help`; not an agent's own --help after "--"). */
export function asksHelp(argv: string[]): boolean {
  const own = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return argv[0] === 'help' || own.includes('--help') || own.includes('-h');
}

/** Run `agent …` with the given way of reaching the core; returns the exit code. */
export async function runAgent(argv: string[], request: Request, io: { out(s: string): void; err(s: string): void; cwd: string; paneId?: string }): Promise<number> {
  const [sub, ...rest] = argv;
  if (asksHelp(argv)) {
    io.out(`${USAGE}\n`);
    return 0;
  }
  if (sub !== 'new') {
    io.err(sub === undefined ? `${USAGE}\n` : `terminal-delight agent: "${sub}" is not a subcommand: ${USAGE.slice(7)}\n`);
    return 2;
  }
  const args = parseAgentArgs(rest);
  if (typeof args === 'string') {
    io.err(`terminal-delight agent: ${args}\n`);
    return 2;
  }
  const place = io.paneId ? { splitOf: io.paneId } : {};
  if (!args.worktree) {
    const pane = await request('agent.new', { ...(args.command ? { command: args.command } : {}), cwd: io.cwd, ...place });
    io.out(`started ${pane.command.join(' ')} in pane ${pane.id} (${pane.cwd})\n`);
    return 0;
  }
  const res = await request('worktree.new', {
    repo: path.resolve(io.cwd, args.repo ?? '.'),
    ...(args.base ? { base: args.base } : {}),
    ...(args.name ? { name: args.name } : {}),
    ...(args.prompt ? { prompt: args.prompt } : {}),
    ...(args.command ? { command: args.command } : {}),
    ...place,
  });
  if (!res.ok) {
    io.err(`terminal-delight agent: ${res.error}\n`);
    return 1;
  }
  const w = res.worktree;
  io.out(`started ${res.pane.command[0]} in pane ${res.pane.id}: worktree ${w.path} on branch ${w.branch} (from ${w.base})\n`);
  return 0;
}

export async function run(argv: string[]): Promise<number> {
  const io = { out: (s: string) => void process.stdout.write(s), err: (s: string) => void process.stderr.write(s), cwd: process.cwd(), paneId: process.env.TD_PANE_ID || undefined };
  if (argv[0] !== 'new' || asksHelp(argv)) return runAgent(argv, () => Promise.reject(new Error('unused')), io);
  return throughService('agent', io.cwd, (request) => runAgent(argv, request, io));
}
