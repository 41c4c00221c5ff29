/**
 * `terminal-delight tick ...`: tools for Tick authors.
 *   tick check [--safe] [--watch MS] -- <command…>
 * runs the Tick under the host's session engine and checks every Tick-side MUST the host
 * can observe, one PASS/FAIL line per rule; exit status 1 on any failure, 2 on misuse.
 */
import { checkTick, formatResults } from './check.ts';

const USAGE = `Usage: terminal-delight tick check [--safe] [--watch MS] -- <command…>
  Runs the Tick (Tick protocol 3) without a view and checks what a host can observe:
  framing, one response per id, no id: null, a valid descriptor, side-effect-free and
  prompt describe and read, seq rules, -32004 on a stale revision, -32602 on an unknown
  tool or bad arguments, updates, nothing but protocol on stdout, exit on stdin EOF and
  on SIGTERM. It sends deliberately invalid calls; --safe keeps them off mutating tools.
  --watch MS: how long to watch for updates (default 1000).
`;

export async function run(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    out(USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (sub !== 'check') {
    process.stderr.write(`terminal-delight tick: "${sub}" is not a tick command; run \`terminal-delight tick check -- <command…>\`.\n`);
    return 2;
  }
  const dash = rest.indexOf('--');
  const flags = dash >= 0 ? rest.slice(0, dash) : [];
  const command = dash >= 0 ? rest.slice(dash + 1) : rest;
  let safe = false;
  let watchMs = 1000;
  for (let i = 0; i < flags.length; i++) {
    if (flags[i] === '--safe') safe = true;
    else if (flags[i] === '--watch' && /^\d+$/.test(flags[i + 1] ?? '')) watchMs = Number(flags[++i]);
    else {
      process.stderr.write(`terminal-delight tick check: "${flags[i]}" is not an option; use --safe or --watch MS before "--".\n`);
      return 2;
    }
  }
  if (command.length === 0) {
    process.stderr.write('terminal-delight tick check: give the Tick\'s command after "--", for example: terminal-delight tick check -- python3 note.py\n');
    return 2;
  }
  const results = await checkTick(command, { safe, watchMs });
  out(formatResults(results) + '\n');
  const failed = results.filter((r) => r.status === 'fail').length;
  const passed = results.filter((r) => r.status === 'pass').length;
  out(`${failed ? 'FAILED' : 'OK'}: ${passed} passed, ${failed} failed\n`);
  return failed ? 1 : 0;
}
