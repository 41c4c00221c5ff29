/**
 * The service's own requests: `service.info` (who runs the core and what still runs in
 * it, for "Quit and end all panes") and `service.quit`.
 */
import type { ServiceInfo } from '../../preload/contract.ts';
import type { Core } from '../core.ts';
import { appVersion, PROTOCOL, SERVICE_STARTED_AT } from '../version.ts';
import type { PaneService } from '../panes/service.ts';
import type { TickHost } from '../tick/host.ts';
import type { ClientHub } from './hub.ts';


export { SERVICE_STARTED_AT };

export function serviceInfo(panes: PaneService, ticks: TickHost, hub: ClientHub): ServiceInfo {
  return {
    pid: process.pid,
    version: appVersion(),
    protocol: PROTOCOL,
    startedAt: SERVICE_STARTED_AT,
    running: panes.list().filter((p) => p.status === 'running').map((p) => ({ paneId: p.id, title: p.title, program: panes.program(p.id), kind: p.kind })),
    ticks: ticks.list().filter((t) => t.id.startsWith('hosted:') && (t.status === 'ready' || t.status === 'starting')).map((t) => ({ instanceId: t.id, title: t.title })),
    clients: hub.windows,
  };
}

export function installServiceHandlers(core: Core, deps: { panes: PaneService; ticks: TickHost; hub: ClientHub; quit?: (endPanes: boolean) => void }): void {
  core.handle('service.info', () => serviceInfo(deps.panes, deps.ticks, deps.hub));
  // serve answers it while the service is stopped (main/serve/stopped.ts); here it runs already.
  core.handle('service.start', () => ({ ok: true }));
  core.handle('service.quit', (req) => {
    if (typeof req.endPanes !== 'boolean') throw new Error('endPanes is missing: send true to end every pane, false to stop the service only');
    if (!deps.quit) return { ok: false, error: 'This core runs inside the window\'s own process: close the window to stop it.' };
    // Answer first: the quit ends this process.
    setImmediate(() => deps.quit!(req.endPanes));
    return { ok: true };
  });
}
