/**
 * `terminal-delight tick ...`: Ticks from the command line.
 *   tick check [--safe] [--watch MS] [--call TOOL JSON]... -- <command…>
 *   tick check [--safe] [--watch MS] [--call TOOL JSON]... PATH|NAME
 * runs the Tick under the host's session engine and checks every Tick-side MUST the host
 * can observe, one PASS/FAIL line per rule (a package's Skill and launch first); exit
 * status 1 on any failure, 2 on misuse.
 *   tick install [--project DIR] [--link] [--uninstall] PATH|NAME
 *   tick list [--project DIR]
 * install, take out and list Tick packages (main/tick-packages).
 */
import { checkPackage } from '../tick-packages/check.ts';
import { runInstall, runList } from '../tick-packages/cli.ts';
import { checkTick, formatResults } from './check.ts';

const USAGE = `Usage: terminal-delight tick check [--safe] [--watch MS] [--call TOOL JSON]... -- <command…>
       terminal-delight tick check [--safe] [--watch MS] [--call TOOL JSON]... PATH|NAME
       terminal-delight tick install [--project DIR] [--link] [--uninstall] PATH|NAME
       terminal-delight tick list [--project DIR]

  check  Runs the Tick (Tick protocol 3) without a view and checks what a host can
         observe: framing, one response per id, no id: null, a valid descriptor,
         side-effect-free and prompt describe and read, seq rules, -32004 on a stale
         revision, -32602 on an unknown tool or bad arguments, updates, nothing but
         protocol on stdout, exit on stdin EOF and on SIGTERM. It sends deliberately
         invalid calls; --safe keeps them off mutating tools. --call TOOL JSON: make
         this valid call (repeatable; mutating tools too), so updates that only follow
         a call are checked; without it, one call of a non-mutating tool with arguments
         built from its schema is made when there is such a tool. --watch MS: how long
         to watch for updates (default 1000). Given a package (its folder, or an
         installed package's or a sample's name) instead of a command, it checks the
         package's Skill, launch command and prerequisites first, then the Tick its
         launch starts.
  install  Copies a Tick package (a folder holding its Tick and a SKILL.md; or a
         sample: counter, note, ticker) into your Ticks folder, or --link links it,
         and puts its Skill where Claude Code and Codex read Skills; --project DIR
         does it for one project (DIR/.terminal-delight/ticks, DIR/.claude/skills,
         DIR/.agents/skills). --uninstall takes out exactly what it put in.
  list   Lists installed packages, with whether their prerequisites look met.
`;

/** Options before "--" (or before the first word that is not one), and the Tick's command after. */
export function parseCheckArgs(args: string[]): { help: true } | { error: string } | { safe: boolean; watchMs: number; calls: Array<{ tool: string; args: unknown }>; command: string[]; dashed: boolean } {
  let safe = false;
  let dashed = false;
  let watchMs = 1000;
  const calls: Array<{ tool: string; args: unknown }> = [];
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      dashed = true;
      break;
    }
    if (a === '--help' || a === '-h') return { help: true };
    if (a === '--safe') safe = true;
    else if (a === '--watch') {
      if (!/^\d+$/.test(args[i + 1] ?? '')) return { error: '--watch needs a whole number of milliseconds, for example --watch 2000' };
      watchMs = Number(args[++i]);
    } else if (a === '--call') {
      const tool = args[i + 1];
      const json = args[i + 2];
      if (!tool || json === undefined) return { error: '--call needs a tool name and its arguments as JSON, for example --call set_note \'{"text":"hi"}\'' };
      let parsed: unknown;
      try {
        parsed = JSON.parse(json);
      } catch {
        return { error: `the arguments of --call ${tool} are not JSON (${JSON.stringify(json)}): give an object such as '{"text":"hi"}'` };
      }
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return { error: `the arguments of --call ${tool} must be a JSON object ({} when it takes none)` };
      calls.push({ tool, args: parsed });
      i += 2;
    } else if (a.startsWith('-')) return { error: `"${a}" is not an option; use --safe, --watch MS or --call TOOL JSON before "--"` };
    else break;
  }
  const command = args.slice(i);
  if (command.length === 0) return { error: 'give the Tick\'s command after "--", for example: terminal-delight tick check -- python3 note.py, or a package: terminal-delight tick check counter' };
  return { safe, watchMs, calls, command, dashed };
}

export async function run(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const [sub, ...rest] = argv;
  const err = (s: string) => process.stderr.write(s);
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    out(USAGE);
    return sub === undefined ? 2 : 0;
  }
  if ((sub === 'install' || sub === 'list') && (rest.includes('--help') || rest.includes('-h'))) {
    out(USAGE);
    return 0;
  }
  if (sub === 'install') return runInstall(rest, process.env, process.cwd(), out, err);
  if (sub === 'list') return runList(rest, process.env, process.cwd(), out, err);
  if (sub !== 'check') {
    err(`terminal-delight tick: "${sub}" is not a tick command; use check, install or list (terminal-delight tick help says more).\n`);
    return 2;
  }
  const parsed = parseCheckArgs(rest);
  if ('help' in parsed) {
    out(USAGE);
    return 0;
  }
  if ('error' in parsed) {
    err(`terminal-delight tick check: ${parsed.error}.\n`);
    return 2;
  }
  const opts = { safe: parsed.safe, watchMs: parsed.watchMs, calls: parsed.calls };
  // One word without "--" names a package (a folder, an installed package, a sample).
  const results = !parsed.dashed && parsed.command.length === 1
    ? await checkPackage(parsed.command[0]!, { ...opts, env: process.env, cwd: process.cwd() })
    : await checkTick(parsed.command, opts);
  out(formatResults(results) + '\n');
  const failed = results.filter((r) => r.status === 'fail').length;
  const passed = results.filter((r) => r.status === 'pass').length;
  out(`${failed ? 'FAILED' : 'OK'}: ${passed} passed, ${failed} failed\n`);
  return failed ? 1 : 0;
}
