/**
 * `terminal-delight tick ...`: Ticks from the command line.
 *   tick check [--safe] [--watch MS] -- <command…>
 *   tick check [--safe] [--watch MS] PATH|NAME
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

const USAGE = `Usage: terminal-delight tick check [--safe] [--watch MS] -- <command…>
       terminal-delight tick check [--safe] [--watch MS] PATH|NAME
       terminal-delight tick install [--project DIR] [--link] [--uninstall] PATH|NAME
       terminal-delight tick list [--project DIR]

  check  Runs the Tick (Tick protocol 3) without a view and checks what a host can
         observe: framing, one response per id, no id: null, a valid descriptor,
         side-effect-free and prompt describe and read, seq rules, -32004 on a stale
         revision, -32602 on an unknown tool or bad arguments, updates, nothing but
         protocol on stdout, exit on stdin EOF and on SIGTERM. It sends deliberately
         invalid calls; --safe keeps them off mutating tools. --watch MS: how long to
         watch for updates (default 1000). Given a package (its folder, or an installed
         package's or a sample's name) instead of a command, it checks the package's
         Skill, launch command and prerequisites first, then the Tick its launch starts.
  install  Copies a Tick package (a folder holding its Tick and a SKILL.md; or a
         sample: counter, note, ticker) into your Ticks folder, or --link links it,
         and puts its Skill where Claude Code and Codex read Skills; --project DIR
         does it for one project (DIR/.terminal-delight/ticks, DIR/.claude/skills,
         DIR/.agents/skills). --uninstall takes out exactly what it put in.
  list   Lists installed packages, with whether their prerequisites look met.
`;

export async function run(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const [sub, ...rest] = argv;
  const err = (s: string) => process.stderr.write(s);
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    out(USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub === 'install') return runInstall(rest, process.env, process.cwd(), out, err);
  if (sub === 'list') return runList(rest, process.env, process.cwd(), out, err);
  if (sub !== 'check') {
    err(`terminal-delight tick: "${sub}" is not a tick command; use check, install or list (terminal-delight tick help says more).\n`);
    return 2;
  }
  const dash = rest.indexOf('--');
  const before = dash >= 0 ? rest.slice(0, dash) : rest;
  let safe = false;
  let watchMs = 1000;
  const words: string[] = [];
  for (let i = 0; i < before.length; i++) {
    if (before[i] === '--safe') safe = true;
    else if (before[i] === '--watch' && /^\d+$/.test(before[i + 1] ?? '')) watchMs = Number(before[++i]);
    else if (before[i]!.startsWith('-')) {
      err(`terminal-delight tick check: "${before[i]}" is not an option; use --safe or --watch MS before "--".\n`);
      return 2;
    } else words.push(before[i]!);
  }
  let results;
  if (dash >= 0) {
    const command = rest.slice(dash + 1);
    if (command.length === 0 || words.length > 0) {
      err('terminal-delight tick check: give the Tick\'s command after "--", for example: terminal-delight tick check -- python3 note.py\n');
      return 2;
    }
    results = await checkTick(command, { safe, watchMs });
  } else if (words.length === 1) {
    results = await checkPackage(words[0]!, { safe, watchMs, env: process.env, cwd: process.cwd() });
  } else if (words.length > 1) {
    results = await checkTick(words, { safe, watchMs });
  } else {
    err('terminal-delight tick check: give the Tick\'s command after "--", for example: terminal-delight tick check -- python3 note.py, or a package: terminal-delight tick check counter\n');
    return 2;
  }
  out(formatResults(results) + '\n');
  const failed = results.filter((r) => r.status === 'fail').length;
  const passed = results.filter((r) => r.status === 'pass').length;
  out(`${failed ? 'FAILED' : 'OK'}: ${passed} passed, ${failed} failed\n`);
  return failed ? 1 : 0;
}
