/**
 * `terminal-delight service status|start|stop|restart [--end-panes]`: the per-user service
 * the windows attach to (docs/design/service.md). `stop` keeps nothing running: every
 * pane's programs are ended first (a hang-up, then SIGTERM and SIGKILL to what ignores it)
 * and come back ended, ready to resume; --end-panes says so as "Quit and end all panes"
 * does. `restart` is stop (for an upgrade) then start.
 */
import { parseArgs } from 'node:util';
import { statePaths } from '../paths.ts';
import { connectService, stopService } from './client.ts';
import { readLock } from './lock.ts';

export const USAGE = 'usage: terminal-delight service status|start|stop|restart [--end-panes]';

export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { 'end-panes': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (err) {
    process.stderr.write(`service: ${(err as Error).message.split('\n')[0]}; ${USAGE}\n`);
    return 2;
  }
  const [verb = 'status', ...extra] = parsed.positionals;
  if (parsed.values.help) {
    process.stdout.write(`${USAGE}\n  status   whether the service runs, since when, and what runs in it\n  start    start it (windows and commands also start it when they need it)\n  stop     stop it, ending every pane's programs first; --end-panes: as Quit and end all panes\n  restart  stop it for an upgrade and start it again (panes come back through resume)\n`);
    return 0;
  }
  if (extra.length > 0 || !['status', 'start', 'stop', 'restart'].includes(verb)) {
    process.stderr.write(`service: "${[verb, ...extra].join(' ')}" is not a service command; ${USAGE}\n`);
    return 2;
  }
  const paths = statePaths(env);
  try {
    if (verb === 'status') {
      const conn = await connectService({ env, client: 'cli', start: false, timeoutMs: 3_000 }).catch(() => undefined);
      if (!conn) {
        const lock = readLock(paths.serviceLock);
        process.stdout.write(lock && lock !== 'empty' ? `not answering: a lock names pid ${lock.pid} (started ${lock.startedAt}) but its socket does not answer\n` : 'not running\n');
        return 3;
      }
      const info = await conn.request('service.info', {});
      conn.close();
      process.stdout.write(`running: pid ${info.pid}, version ${info.version}, since ${info.startedAt}; ${info.running.length} pane${info.running.length === 1 ? '' : 's'} running, ${info.ticks.length} Tick${info.ticks.length === 1 ? '' : 's'}, ${info.clients} window${info.clients === 1 ? '' : 's'} attached\n`);
      for (const p of info.running) process.stdout.write(`  ${p.paneId}  ${p.program}  ${p.title}\n`);
      return 0;
    }
    if (verb === 'stop' || verb === 'restart') {
      const ran = await stopService({ env, endPanes: parsed.values['end-panes'] === true, reason: verb === 'restart' ? 'upgrade' : 'asked' });
      if (verb === 'stop') {
        process.stdout.write(ran ? 'stopped\n' : 'not running\n');
        return 0;
      }
    }
    const conn = await connectService({ env, client: 'cli' });
    process.stdout.write(`running: pid ${conn.hello.pid}, version ${conn.hello.version}, since ${conn.hello.startedAt}\n`);
    conn.close();
    return 0;
  } catch (err) {
    process.stderr.write(`service: ${(err as Error).message}\n`);
    return 1;
  }
}
