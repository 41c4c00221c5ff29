/**
 * The environment the service runs with and takes back (docs/spec/service.md): what
 * `serviceCommand` (main/service/client.ts) sets for the service alone, and what the service
 * deletes again as it starts, before any pane, Tick or agent could inherit it. A module of its
 * own: the service's start loads it before the core.
 */

/**
 * glibc's allocator settings for the core (Linux), read by glibc as the process starts
 * (before any script could call mallopt, the runtime's threads have taken their arenas): one
 * arena, and blocks of 64 KiB and more mapped on their own, whatever size was freed last (glibc
 * otherwise raises that threshold as blocks are freed, and a flood's 64 KiB batches and frames
 * then fragment the heap). A 128 MiB flood's peak, measured on Node (bench/peer.bench.ts): ~5
 * MiB lower with these; on Electron's binary, where Chromium's allocator may stand in for
 * glibc's, unmeasured. The service takes them out of its environment at start (SERVICE_ONLY_ENV).
 */
export const CORE_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '65536' };

/**
 * Names of the variables `serviceCommand` set for the service alone (the allocator's, and
 * Electron's run-as-Node, which bin/terminal-delight sets for the CLI on Node too),
 * comma-separated: the service deletes them and this one as it starts (`takeServiceOnlyEnv`),
 * so no pane, Tick or agent it starts inherits them (an Electron app run in a pane with
 * ELECTRON_RUN_AS_NODE=1 would start as plain Node).
 */
export const SERVICE_ONLY_ENV = 'TD_SERVICE_ONLY_ENV';

/** Take the variables set for the service alone out of `env` (the service's own, at start). */
export function takeServiceOnlyEnv(env: NodeJS.ProcessEnv = process.env): void {
  const known = new Set([...Object.keys(CORE_MALLOC_ENV), 'ELECTRON_RUN_AS_NODE']);
  for (const k of (env[SERVICE_ONLY_ENV] ?? '').split(',')) if (known.has(k)) delete env[k];
  delete env[SERVICE_ONLY_ENV];
}
