/**
 * `terminal-delight <subcommand> ...`: a small dispatcher. Each subcommand is a module
 * exporting `run(argv: string[]): Promise<number>` (the exit code), loaded only when
 * that subcommand runs. Add a row to COMMANDS to add a subcommand.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { nodeTooOld } from '../node-version.ts';

export interface Subcommand {
  /** One line for `terminal-delight help`. */
  summary: string;
  /** Loads the module that runs it. */
  load: () => Promise<{ run(argv: string[]): Promise<number> }>;
  /** Run by the app itself, not by a person: left out of `terminal-delight help`. */
  hidden?: boolean;
}

export const COMMANDS: Record<string, Subcommand> = {
  // ── other services add their rows here (one each, loaded lazily) ──
  surface: { summary: 'Put a surface on this pane\'s workbench (TDSP 0.4); --catalogue, --derive <transcript>', load: () => import('../surfaces/cli.ts') },
  mcp: { summary: 'Speak MCP on stdio to the running app (for an agent\'s MCP configuration)', load: () => import('../mcp/stdio.ts') },
  tick: { summary: 'Ticks (Tick protocol 3): tick check -- <command…> or PACKAGE, tick install [--uninstall] PATH|NAME, tick list', load: () => import('../tick/cli.ts') },
  hooks: { summary: 'Install the agent channel\'s hooks: --agent claude|codex|gemini|opencode|all (default: those on PATH), --uninstall', load: () => import('../agent-channel/cli.ts') },
  agent: { summary: 'Start an agent pane in the running app; agent new --worktree [--repo DIR] [--base BRANCH] [--name NAME] [--prompt TEXT] [-- argv…] gives it a git worktree of its own', load: () => import('../worktrees/cli.ts') },
  serve: { summary: 'Serve the window over HTTP and WebSocket on 127.0.0.1 (--port N, --fresh, --cwd DIR)', load: () => import('../serve/main.ts') },
  connect: { summary: 'Connect a machine over your own ssh: connect [user@]host[:port] [--name NAME] [--colour #RRGGBB] [--command PATH]; your service keeps the link', load: () => import('../machines/cli.ts') },
  bridge: { summary: 'The far end of a machine\'s link (run by ssh for `connect`)', load: () => import('../service/bridge.ts'), hidden: true },
  devices: { summary: 'The device door for phones (HTTPS, off by default): devices on --address ADDRESS[:PORT] [--cert F --key F], off, list, pair, revoke NAME', load: () => import('../devices/cli.ts') },
  search: { summary: 'Search everything panes, agents, surfaces and Ticks did: search QUERY [--agent A] [--pane P] [--folder F] [--kind K] [--since DATE] [--json]', load: () => import('../search/cli.ts') },
  usage: { summary: 'Tokens and cost of the agents\' sessions: usage [--by day|agent|pane|worktree|session] [--since DATE] [--json]', load: () => import('../usage/cli.ts') },
  service: { summary: 'The service that keeps your panes running with no window open: status, start, stop [--end-panes], restart', load: () => import('../service/cli.ts') },
};

/** The commands of the dispatcher itself, before COMMANDS' rows. */
const OWN: Record<string, string> = {
  help: 'Print this list; help COMMAND: what COMMAND takes (as COMMAND --help)',
  version: 'Print the version (also --version, -V)',
};

export function helpText(): string {
  const rows = [...Object.entries(OWN), ...Object.entries(COMMANDS).filter(([, c]) => !c.hidden).map(([n, c]) => [n, c.summary] as const)];
  const width = Math.max(...rows.map(([n]) => n.length));
  return `Usage: terminal-delight <command> [arguments]\n\nCommands:\n${rows.map(([n, text]) => `  ${n.padEnd(width)}  ${text}`).join('\n')}\n\nEvery command answers --help.\n`;
}

export async function main(argv: string[]): Promise<number> {
  const old = nodeTooOld();
  if (old) {
    process.stderr.write(`terminal-delight: ${old}\n`);
    return 1;
  }
  const [name, ...rest] = argv;
  if (name === 'version' || name === '--version' || name === '-V') {
    const { appVersion } = await import('../version.ts');
    process.stdout.write(`terminal-delight ${appVersion()}\n`);
    return 0;
  }
  if (name === 'help' && rest.length > 0 && Object.hasOwn(COMMANDS, rest[0]!)) return main([rest[0]!, '--help']);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(helpText());
    return 0;
  }
  const cmd = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!cmd) {
    process.stderr.write(`terminal-delight: "${name}" is not a command: run \`terminal-delight help\` to see them all.\n`);
    return 2;
  }
  const mod = await cmd.load();
  return mod.run(rest);
}

const invoked = process.argv[1] ? pathToFileURL(path.resolve(process.argv[1])).href : '';
if (invoked === import.meta.url) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`terminal-delight: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
