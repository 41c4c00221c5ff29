/**
 * The benches' link to the window: the TdApi (window.td in Electron, the WebSocket
 * client in a browser, as the app sets it up) and the one bench store, connected to
 * the core's events once, on first use.
 */
import type { TdApi } from '../../preload/contract.ts';
import { connectBenchStore, createBenchStore, type BenchStore } from './store.ts';

let api: TdApi | undefined;
let store: BenchStore | undefined;

/** The app hands its TdApi over at start (before any bench mounts). */
export function setBenchApi(a: TdApi): void {
  api = a;
}

export function benchApi(): TdApi {
  const a = api ?? (globalThis as { td?: TdApi }).td;
  if (!a) throw new Error('The bench has no connection to Terminal Delight yet; reload the window.');
  return a;
}

export function benchStore(): BenchStore {
  if (!store) {
    store = createBenchStore();
    connectBenchStore(store, benchApi());
  }
  return store;
}

/** A one-sentence message from anything thrown. */
export function errorText(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  return m || 'Something went wrong; try again.';
}
