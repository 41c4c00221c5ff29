/**
 * Qualified pane ids (docs/design/remote.md, "One window, many machines"): a pane of
 * machine `build-box` is `build-box/p3k9…` in this window; a home pane keeps its plain id
 * (`/` never occurs in a pane id). A window's transport (the renderer's td-client in a
 * browser, the Electron main's relay in the app) sends a request about a qualified id to its
 * machine with the id unwrapped, and qualifies what comes back. Pure.
 */
import type { EventName, Events, Layout, PaneInfo } from '../preload/contract.ts';
import { qualify, splitPaneId } from './pane-id.ts';

export { qualify, splitPaneId };

/** Fields of a request that name a pane. */
const PANE_FIELDS = ['paneId', 'splitOf'] as const;

/**
 * Requests the home service answers whatever pane they name: it holds the layout and its
 * focus, makes a pane on a machine (its `machine`, or the machine of `splitOf`: a shell, an
 * agent, a worktree agent, a Tick) and places it beside the pane it splits, and closes a far
 * pane there and in its layout; `search.query` names its machine in its own field, which the
 * home service answers (main/search/machines.ts), its hits' pane ids qualified.
 */
const HOME_REQUESTS: ReadonlySet<string> = new Set(['pane.create', 'agent.new', 'worktree.new', 'tick.open', 'pane.close', 'pane.focus', 'layout.set', 'machine.connect', 'machine.list', 'machine.retry', 'machine.restart', 'search.query']);

/**
 * Where a request goes: the machine its pane ids name (none: the home service), with the
 * ids unwrapped, or the machine its `machine` field names (taken out); or a sentence when
 * it names panes of two machines. The home service's own requests stay home.
 */
export function routeRequest(name: string, req: unknown): { machine?: string; req: unknown } | { error: string } {
  if (!req || typeof req !== 'object' || Array.isArray(req) || HOME_REQUESTS.has(name)) return { req };
  const asked = (req as Record<string, unknown>).machine;
  if (typeof asked === 'string' && asked !== '') {
    const { machine: _m, ...rest } = req as Record<string, unknown>;
    return { machine: asked, req: rest };
  }
  let machine: string | undefined;
  let out: Record<string, unknown> | undefined;
  for (const f of PANE_FIELDS) {
    const v = (req as Record<string, unknown>)[f];
    if (typeof v !== 'string') continue;
    const s = splitPaneId(v);
    if (s.machine === undefined) {
      if (machine !== undefined) return { error: 'a request names panes of two machines: a pane is split or moved within its own machine only' };
      continue;
    }
    if (machine !== undefined && machine !== s.machine) return { error: 'a request names panes of two machines: a pane is split or moved within its own machine only' };
    machine = s.machine;
    out ??= { ...(req as Record<string, unknown>) };
    out[f] = s.local;
  }
  return machine === undefined ? { req } : { machine, req: out };
}

function qualifyPane(machine: string, p: PaneInfo): PaneInfo {
  return { ...p, id: qualify(machine, p.id) };
}

function qualifyLayout(machine: string, l: Layout | null): Layout | null {
  if (!l) return l;
  if (l.type === 'pane') return { type: 'pane', paneId: qualify(machine, l.paneId) };
  return { ...l, children: l.children.map((c) => qualifyLayout(machine, c)!) };
}

/** A machine's answer, with its pane ids qualified (the requests whose answers name panes). */
export function qualifyResult(machine: string, name: string, res: unknown): unknown {
  if (!res || typeof res !== 'object') return res;
  switch (name) {
    case 'pane.create':
    case 'pane.restart':
    case 'pane.resume':
    case 'agent.new':
      return qualifyPane(machine, res as PaneInfo);
    case 'artifact.open': {
      // Its file is that machine's: the home service serves it at /m/<machine>/… (main/machines/far-files.ts).
      const v = res as { url?: unknown };
      return typeof v.url === 'string' && v.url.startsWith('/') && !v.url.startsWith('//') ? { ...v, url: `/m/${machine}${v.url}` } : res;
    }
    case 'app.hello': {
      const h = res as { panes: PaneInfo[]; layout: Layout | null; focused: string | null };
      return { ...h, panes: h.panes.map((p) => qualifyPane(machine, p)), layout: qualifyLayout(machine, h.layout), focused: h.focused === null ? null : qualify(machine, h.focused) };
    }
    default:
      return res;
  }
}

/**
 * A machine's event for this window, its pane ids qualified; undefined for what is that
 * machine's own window state, never this window's (its layout, its settings, its menu
 * commands: the layout is the home service's).
 */
export function qualifyEvent<K extends EventName>(machine: string, name: K, payload: Events[K]): Events[K] | undefined {
  const p = payload as unknown as Record<string, unknown>;
  switch (name) {
    case 'layout.changed':
    case 'settings.changed':
    case 'command':
    case 'machine.changed':
      return undefined;
    case 'pane.updated':
      return qualifyPane(machine, payload as PaneInfo) as Events[K];
    default:
      return typeof p?.paneId === 'string' ? ({ ...p, paneId: qualify(machine, p.paneId) } as unknown as Events[K]) : payload;
  }
}
