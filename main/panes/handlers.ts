/** The contract's app, settings, pane and layout requests, installed on the Core. */
import type { Core } from '../core.ts';
import type { SettingsApi } from '../services.ts';
import { PROTOCOL, SERVICE_STARTED_AT } from '../version.ts';
import { appVersion } from '../version.ts';
import type { PaneService } from './service.ts';
import { rowsMarkup } from '../../common/first-paint.ts';

/** Lines of history a peek carries by default, and at most (a phone scrolls back through them). */
export const PEEK_SCROLLBACK = 200;
const PEEK_MAX = 2000;

function str(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw new Error(`${what} is missing: send it as a string`);
  return v;
}

/** The longest a `pane.rows` ask waits for the pane's next output. */
const ROWS_AFTER_MAX = 1000;

/** Until the pane's next output has come (and gone to the windows), the pane is closed, or `ms` passed. */
function nextOutput(panes: PaneService, paneId: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      offOutput();
      offRemoved();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const offOutput = panes.onOutput((id) => {
      if (id === paneId) done();
    });
    // A pane closed meanwhile: answered at once (with the one-sentence error), not after `ms`.
    const offRemoved = panes.onRemoved((id) => {
      if (id === paneId) done();
    });
  });
}

export function installPaneHandlers(core: Core, panes: PaneService, settings: SettingsApi, shell: 'electron' | 'serve' = 'serve', notices: () => string[] = () => []): void {
  // Panes written to whose output has not come since (the echo of their last keys not seen yet): a
  // `pane.rows` ask with `after` waits for that output only then. Keys typed in a burst are
  // asked for with one ask in flight (renderer/first-paint/live.ts): an ask that comes after their
  // echoes is answered at once, not `after` ms later for output that will not come.
  const echoDue = new Set<string>();
  panes.onInput((id) => echoDue.add(id));
  panes.onOutput((id) => echoDue.delete(id));
  panes.onRemoved((id) => echoDue.delete(id));
  core.handle('app.hello', (req, client) => {
    panes.addReader(client.id);
    // A window always has something to show: the login shell when no pane is in the layout,
    // in the folder the window's relay was started in (not a window of another machine: its layout is its own).
    if (!panes.layout && req.far !== true) panes.create({ cwd: client.cwd });
    return {
      session: panes.session,
      panes: panes.list(),
      layout: panes.layout,
      focused: panes.focused,
      settings: settings.get(),
      ...(settings.problem?.() ? { settingsProblem: settings.problem!() } : {}),
      platform: process.platform,
      shell: client.shell === 'electron' ? 'electron' : client.shell === 'serve' ? 'serve' : shell,
      version: appVersion(),
      service: { pid: process.pid, startedAt: SERVICE_STARTED_AT, protocol: PROTOCOL },
      notices: notices(),
    };
  });

  core.handle('settings.set', (req) => settings.set(req));

  core.handle('pane.list', () => panes.list());

  core.handle('pane.create', (req, client) => {
    // A window reads what it made; a command (another machine's home service asking) does not,
    // nor a transport's client that has not said app.hello yet: the pane's output never waits
    // on a socket that may never read it (it reads from its hello on, with a snapshot).
    if (client.shell !== 'cli' && client.saidHello !== false) panes.addReader(client.id);
    if (req.direction !== undefined && req.direction !== 'right' && req.direction !== 'down') {
      throw new Error(`direction ${JSON.stringify(req.direction)} is not known: use "right" or "down"`);
    }
    if (req.kind !== undefined && req.kind !== 'shell' && req.kind !== 'agent') {
      throw new Error(`kind ${JSON.stringify(req.kind)} cannot be created here: use "shell" or "agent" (Ticks open with tick.open)`);
    }
    return panes.create({ cwd: req.cwd, command: req.command, kind: req.kind, splitOf: req.splitOf, direction: req.direction });
  });

  core.handle('pane.close', (req) => {
    const id = str(req.paneId, 'paneId');
    const pane = panes.get(id);
    if (!pane) return { closed: false };
    // A Tick's pane only loses its view here; tick.close ends the instance.
    if (pane.kind === 'tick') panes.detach(id);
    else panes.close(id);
    return { closed: true };
  });

  core.handle('pane.restart', async (req) => {
    const id = str(req.paneId, 'paneId');
    return panes.get(id)?.ended ? panes.resumeAfterLeftover(id) : panes.restart(id);
  });

  core.handle('pane.resume', (req) => panes.resumeAfterLeftover(str(req.paneId, 'paneId')));

  core.handle('pane.resumeAll', async () => {
    const resumed: string[] = [];
    const failed: Array<{ paneId: string; error: string }> = [];
    for (const p of panes.list()) {
      if (!p.ended) continue;
      try {
        await panes.resumeAfterLeftover(p.id);
        resumed.push(p.id);
      } catch (err) {
        failed.push({ paneId: p.id, error: (err as Error).message });
      }
    }
    return { resumed, failed };
  });

  core.handle('layout.area', (req) => panes.setArea(req));

  core.handle('pane.input', (req) => {
    if (typeof req.data !== 'string') throw new Error('data is missing: send the keys as a string');
    panes.write(str(req.paneId, 'paneId'), req.data);
  });

  core.handle('pane.resize', (req) => panes.resize(str(req.paneId, 'paneId'), req.cols, req.rows));

  core.handle('pane.ack', (req, client) => panes.ack(str(req.paneId, 'paneId'), client.id, req.chars));

  // With a size: the pane resized to it first, the snapshot taken at it (a window attaching that knows its size).
  core.handle('pane.snapshot', (req, client) => panes.snapshot(str(req.paneId, 'paneId'), client.id, req.scrollback, req.cols === undefined && req.rows === undefined ? undefined : { cols: req.cols!, rows: req.rows! }));

  // No client id: the asker does not become a reader (its acks never pace the pane).
  core.handle('pane.peek', async (req) => {
    const paneId = str(req.paneId, 'paneId');
    if (req.scrollback !== undefined && !(Number.isInteger(req.scrollback) && req.scrollback >= 0 && req.scrollback <= PEEK_MAX)) throw new Error(`scrollback ${JSON.stringify(req.scrollback)} is not usable: send a whole number of lines from 0 to ${PEEK_MAX}`);
    const snap = await panes.snapshot(paneId, undefined, req.scrollback ?? PEEK_SCROLLBACK);
    return { text: panes.screenText(paneId), data: snap.data, cols: snap.cols, rows: snap.rows };
  });

  core.handle('pane.view', (req, client) => panes.view(str(req.paneId, 'paneId'), client.id, req.shown));

  core.handle('pane.focus', (req) => panes.focus(str(req.paneId, 'paneId')));

  // The first paint kept live (renderer/early.ts): the pane's rows as the door's first paint drew them.
  core.handle('pane.rows', async (req) => {
    const paneId = str(req.paneId, 'paneId');
    if (req.theme !== 'light' && req.theme !== 'dark') throw new Error(`theme ${JSON.stringify(req.theme)} is not usable: send "light" or "dark"`);
    if (req.after !== undefined && !(Number.isInteger(req.after) && req.after >= 0 && req.after <= ROWS_AFTER_MAX)) throw new Error(`after ${JSON.stringify(req.after)} is not usable: send a whole number of ms from 0 to ${ROWS_AFTER_MAX}`);
    // (Its cells are read once, below, after any wait: here only whether it is there.)
    if (!panes.get(paneId)) throw new Error(`there is no pane "${paneId}": use an id from app.hello or pane.create`);
    // Asked with a key: answered with the pane's next output (its echo), or after `after` ms; at
    // once when output came since the pane's last input (the echo is in its screen already).
    if (req.after && echoDue.has(paneId)) await nextOutput(panes, paneId, req.after);
    const screen = panes.screenCells(paneId);
    if (!screen) throw new Error(`pane "${paneId}" ended while its rows were awaited`);
    const { fontSize, fontFamily } = settings.get();
    return { html: rowsMarkup(screen, req.theme, { fontSize, fontFamily }, req.focused === true), appCursor: screen.appCursor === true };
  });

  core.handle('layout.set', (req) => panes.setLayout(req.layout));
}
