/**
 * `--fresh` (npm start, `terminal-delight serve`, the Electron app) when a service already runs
 * for the state folder: a fresh session is one the service starts with, so the running one is
 * stopped and the caller starts a new one, but only when that loses nothing a person can see:
 * no pane or Tick runs in it and no window is attached (its ended panes' records are what
 * --fresh asks to drop). Otherwise nothing is touched and the caller says why in one sentence
 * and exits nonzero (docs/spec/service.md, "Starting afresh").
 */
import { connectService, stopService } from './client.ts';

export type Fresh = { ok: true; stopped: boolean } | { ok: false; error: string };

/** Make way for a fresh start: `stopped` when a service ran and was stopped for it; or why not. */
export async function makeWayForFresh(env: NodeJS.ProcessEnv = process.env): Promise<Fresh> {
  let conn;
  try {
    conn = await connectService({ env, client: 'cli', start: false, timeoutMs: 5_000 });
  } catch (err) {
    // None runs: the service the caller starts comes up fresh.
    if ((err as { code?: string }).code !== 'EREFUSED') return { ok: true, stopped: false };
    return { ok: false, error: `--fresh was not applied: ${(err as Error).message}` };
  }
  let info;
  try {
    info = await conn.request('service.info', {});
  } finally {
    conn.close();
  }
  const busy: string[] = [];
  if (info.running.length > 0) busy.push(`${info.running.length} pane${info.running.length === 1 ? '' : 's'} running (${[...new Set(info.running.map((p) => p.program))].join(', ')})`);
  if (info.ticks.length > 0) busy.push(`${info.ticks.length} Tick${info.ticks.length === 1 ? '' : 's'} running`);
  if (info.clients > 0) busy.push(`${info.clients} window${info.clients === 1 ? '' : 's'} attached`);
  if (busy.length > 0) {
    return {
      ok: false,
      error: `--fresh was not applied: the service (pid ${info.pid}) has ${busy.join(' and ')}; end them with \`terminal-delight service stop --end-panes\` (or Quit and end all panes) and start again with --fresh, or start without --fresh to attach to them`,
    };
  }
  try {
    await stopService({ env, reason: 'fresh' });
  } catch (err) {
    return { ok: false, error: `--fresh was not applied: ${(err as Error).message}` };
  }
  return { ok: true, stopped: true };
}
