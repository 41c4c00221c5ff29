/**
 * `terminal-delight connect [user@]host[:port] [--name NAME] [--colour #RRGGBB] [--command PATH]`:
 * asks this machine's service (started on demand) to connect another machine over the
 * person's own ssh (docs/design/remote.md). The service holds the link, so it outlives this
 * command; the machine is saved in settings and connected again when the service starts.
 */
import { parseArgs } from 'node:util';
import { connectService } from '../service/client.ts';

export const USAGE = 'usage: terminal-delight connect [user@]host[:port] [--name NAME] [--colour #RRGGBB] [--command PATH]';

const HELP = `${USAGE}

Connects another machine's Terminal Delight service to this one over your own ssh
(your ~/.ssh/config, keys, agent and known_hosts; ssh runs in batch mode, so a host key to
accept or a passphrase to type fails at once: run \`ssh HOST\` once in a terminal first).
Your service keeps the link (and reconnects it); the window shows the machine in its
title bar. Nothing listens on a new port.

The other machine needs Node 22.12 or newer and terminal-delight on the PATH that ssh
commands get (or give its path with --command).

  --name NAME        what the window calls it (default: the host)
  --colour #RRGGBB   the colour of its name in pane headers
  --command PATH     terminal-delight's path there (default: terminal-delight)
`;

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { name: { type: 'string' }, colour: { type: 'string' }, color: { type: 'string' }, command: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (err) {
    process.stderr.write(`connect: ${(err as Error).message.split('\n')[0]}; ${USAGE}\n`);
    return 2;
  }
  if (parsed.values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (parsed.positionals.length !== 1) {
    process.stderr.write(`connect: give one machine; ${USAGE}\n`);
    return 2;
  }
  const v = parsed.values;
  try {
    const conn = await connectService({ env, client: 'cli' });
    try {
      const m = await conn.request('machine.connect', {
        target: parsed.positionals[0]!,
        ...(v.name ? { name: v.name } : {}),
        ...(v.colour ?? v.color ? { colour: (v.colour ?? v.color)! } : {}),
        ...(v.command ? { command: v.command } : {}),
        ...(env.SSH_AUTH_SOCK ? { authSock: env.SSH_AUTH_SOCK } : {}),
      });
      process.stdout.write(`connected ${m.name} (${m.target}): terminal-delight ${m.version ?? '?'} on ${m.hostname || m.name}, ${m.panes.length} pane${m.panes.length === 1 ? '' : 's'} running\n`);
      for (const p of m.panes) process.stdout.write(`  ${p}\n`);
      return 0;
    } finally {
      conn.close();
    }
  } catch (err) {
    process.stderr.write(`connect: ${(err as Error).message}\n`);
    return 1;
  }
}
