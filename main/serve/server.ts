/**
 * serve's server: the browser's door (main/door/server.ts) with, for `service`, every window
 * relayed to the per-user service, started on demand (main/serve/relay.ts). What `terminal-delight
 * serve` runs where the service cannot open the door itself, and what tests and benchmarks start.
 */
import { startDoorServer, type DoorServerOptions, type Served } from '../door/server.ts';
import { answersOrStarting, serviceBackend } from './relay.ts';

export type { Served };

export interface ServeOptions extends Omit<DoorServerOptions, 'relay'> {
  /**
   * Relay every window to the per-user service (started on demand) instead of running the
   * core in this process: what `terminal-delight serve` and `npm start` do. Without it, the
   * core runs here (tests, and the benchmark's baseline for the extra hop).
   */
  service?: boolean | { socketPath?: string; tokenFile?: string };
}

export function startServe(opts: ServeOptions = {}): Promise<Served> {
  const { service, ...door } = opts;
  const relayTo = service ? (service === true ? {} : service) : undefined;
  if (!relayTo) return startDoorServer(door);
  // The service is reached (and started, when none runs) while the door sets up and listens:
  // its start overlaps serve's own; the URL is out once it answers or holds its lock.
  const ready = serviceBackend({ env: opts.env, cwd: opts.cwd, fresh: opts.fresh, firstPane: true, ...relayTo });
  ready.catch(() => undefined);
  const reachable = relayTo.socketPath ? ready.then(() => undefined) : answersOrStarting(ready, opts.env);
  reachable.catch(() => undefined);
  return startDoorServer({ ...door, relay: { ready, reachable } });
}
